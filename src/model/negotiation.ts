// What a client and a server settle on when they connect: the dialect, and
// whether the data is signed or encrypted and with which algorithm, by the
// rules of MS-SMB2: the highest dialect both speak (3.3.5.3.1); for 3.1.1 the
// first signing algorithm and cipher in the client's lists that the server
// supports (3.3.5.2.5.1-3.3.5.2.5.2 leave the choice to the server; Windows
// and Samba take the client's order); HMAC-SHA256 for 2.x and AES-128-CMAC
// for 3.0 / 3.0.2 signing (3.1.4.1), AES-128-CCM for 3.0 / 3.0.2 encryption.

import type { ClientProfile } from './client-profiles.js';
import type { Protection } from './crypto-cost.js';
import { PipefillInputError } from './errors.js';
import type { ServerProfile } from './server-profiles.js';
import type { CipherName, DialectName, SigningAlgorithm } from './smb-security.js';
import { CIPHERS, DIALECTS, SIGNING_ALGORITHMS } from './smb-security.js';

/**
 * What a scenario asks for: `auto` (what the pair negotiates by default),
 * `none`, `signing` or `encryption` (the best algorithm the pair shares), or
 * one algorithm by name.
 */
export type ProtectionRequest = 'auto' | 'none' | 'signing' | 'encryption' | SigningAlgorithm | CipherName;
export const PROTECTION_REQUESTS: readonly ProtectionRequest[] = ['auto', 'none', 'signing', 'encryption', ...SIGNING_ALGORITHMS, ...CIPHERS];

export interface Negotiated {
  readonly dialect: DialectName;
  readonly protection: Protection;
  /** Why this protection: the side that requires it, or the request. */
  readonly reason: string;
}

export function isProtectionRequest(text: string): text is ProtectionRequest {
  return (PROTECTION_REQUESTS as readonly string[]).includes(text);
}

function commonDialect(client: ClientProfile, server: ServerProfile): DialectName {
  const shared = DIALECTS.filter((dialect) => client.offer.dialects.includes(dialect) && server.security.dialects.includes(dialect));
  const best = shared[shared.length - 1];
  if (!best) {
    throw new PipefillInputError(
      `${client.label} and ${server.label} share no SMB dialect (client ${client.offer.dialects.join(', ')}; server ${server.security.dialects.join(', ')}).`,
      'Choose a client that speaks SMB 3, or a server that accepts older dialects.',
    );
  }
  return best;
}

function signingAlgorithm(dialect: DialectName, client: ClientProfile, server: ServerProfile): SigningAlgorithm {
  if (dialect === '2.0.2' || dialect === '2.1') return 'HMAC-SHA256';
  if (dialect !== '3.1.1') return 'AES-128-CMAC';
  // A 3.1.1 client that sends no SIGNING_CAPABILITIES context gets AES-CMAC.
  return client.offer.signing.find((algorithm) => server.security.signing.includes(algorithm)) ?? 'AES-128-CMAC';
}

function cipher(dialect: DialectName, client: ClientProfile, server: ServerProfile): CipherName | undefined {
  if (dialect === '2.0.2' || dialect === '2.1') return undefined;
  if (dialect !== '3.1.1') return server.security.ciphers.includes('AES-128-CCM') ? 'AES-128-CCM' : undefined;
  return client.offer.ciphers.find((name) => server.security.ciphers.includes(name));
}

/** A named cipher, if this pair can use it at this dialect. */
function cipherIfShared(name: CipherName, dialect: DialectName, client: ClientProfile, server: ServerProfile): CipherName | undefined {
  if (!server.security.ciphers.includes(name)) return undefined;
  if (dialect === '3.1.1') return client.offer.ciphers.includes(name) ? name : undefined;
  return dialect === '3.0' || dialect === '3.0.2' ? (name === 'AES-128-CCM' ? name : undefined) : undefined;
}

function requireCipher(found: CipherName | undefined, dialect: DialectName, client: ClientProfile, server: ServerProfile, why: string): CipherName {
  if (found) return found;
  throw new PipefillInputError(
    `${client.label} cannot encrypt with ${server.label} over SMB ${dialect} (${why}): they share no cipher.`,
    'Encryption needs SMB 3 on both sides; choose a client and server that speak it.',
  );
}

/** The dialect and protection a client and server settle on, for this request. */
export function negotiate(client: ClientProfile, server: ServerProfile, request: ProtectionRequest = 'auto'): Negotiated {
  const dialect = commonDialect(client, server);
  if (request === 'none') {
    if (server.security.encryptionRequired)
      throw new PipefillInputError(`${server.label} requires encryption: a copy without it is refused.`, 'Use --security auto or encryption.');
    if (server.security.signingRequired || client.offer.signingRequired)
      throw new PipefillInputError(
        `${server.security.signingRequired ? server.label : client.label} requires signing: a copy without it does not happen.`,
        'Use --security auto or signing; Pipefill models what the protection costs, not turning it off.',
      );
    return { dialect, protection: { kind: 'none' }, reason: 'as asked' };
  }
  if (request === 'encryption' || (CIPHERS as readonly string[]).includes(request)) {
    const found = request === 'encryption' ? cipher(dialect, client, server) : cipherIfShared(request as CipherName, dialect, client, server);
    return { dialect, protection: { kind: 'encryption', algorithm: requireCipher(found, dialect, client, server, `${request} asked`) }, reason: 'as asked' };
  }
  if (request === 'signing' || (SIGNING_ALGORITHMS as readonly string[]).includes(request)) {
    if (server.security.encryptionRequired)
      throw new PipefillInputError(`${server.label} requires encryption; signing alone is refused.`, 'Use --security auto or encryption.');
    const best = signingAlgorithm(dialect, client, server);
    if (request !== 'signing' && request !== best) {
      const possible = dialect === '3.1.1' ? client.offer.signing.filter((algorithm) => server.security.signing.includes(algorithm)) : [best];
      if (!possible.includes(request as SigningAlgorithm)) {
        throw new PipefillInputError(
          `${client.label} and ${server.label} cannot sign with ${request} over SMB ${dialect}.`,
          `They can sign with ${[...new Set([best, ...possible])].join(' or ')}.`,
        );
      }
      return { dialect, protection: { kind: 'signing', algorithm: request as SigningAlgorithm }, reason: 'as asked' };
    }
    return { dialect, protection: { kind: 'signing', algorithm: best }, reason: 'as asked' };
  }
  if (server.security.encryptionRequired) {
    return {
      dialect,
      protection: { kind: 'encryption', algorithm: requireCipher(cipher(dialect, client, server), dialect, client, server, 'the server requires it') },
      reason: `${server.label} requires encryption`,
    };
  }
  if (client.offer.signingRequired || server.security.signingRequired) {
    const who = client.offer.signingRequired ? client.label : server.label;
    return { dialect, protection: { kind: 'signing', algorithm: signingAlgorithm(dialect, client, server) }, reason: `${who} requires signing` };
  }
  return { dialect, protection: { kind: 'none' }, reason: 'neither side requires signing or encryption' };
}
