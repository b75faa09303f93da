// The NEGOTIATE (MS-SMB2 2.2.3, 3.2.4.2.2), and what a refusal of it means:
// a server that speaks only SMB1, an SMB 3.1.1 algorithm list it allows
// none of (asked again on connections of their own, an error path only), or
// dialects an old generation offers that SMB 3 can cure (RefusedOldDialect:
// the log-on then moves up). Apart from the log-on (logon.ts) so each reads
// as one job.

import { SmbConnection } from './connection.js';
import type { RequestOptions, SmbResponse } from './request-frames.js';
import { SmbError } from './errors.js';
import type { NegotiateResult } from './negotiate.js';
import { NegotiateError, negotiateRequest, parseNegotiate } from './negotiate.js';
import { Command } from './protocol.js';
import type { DialectName, SecurityOffer } from './security/algorithms.js';
import { dialectId, isSmb3 } from './security/algorithms.js';
import type { PreauthHash } from './security/preauth.js';
import type { OpenOptions, SmbTarget } from './session-types.js';
import { connectHost } from '../model/share-path.js';
import { PIPEFILL_OFFER } from '../model/smb-security.js';
import { SMB1_DIALECT, speaksSmb1 } from './smb1-probe.js';

/** The server refused what an old generation offers, in a way SMB 3 can cure: the caller may move up. */
export class RefusedOldDialect extends Error {
  constructor(override readonly cause: SmbError) {
    super(cause.message);
  }
}

const dialectList = (dialects: readonly string[]): string => dialects.map((dialect) => `SMB ${dialect}`).join(', ');

export async function negotiateDialect(
  connection: SmbConnection,
  target: SmbTarget,
  offer: SecurityOffer,
  preauth: PreauthHash,
  options: RequestOptions,
): Promise<NegotiateResult> {
  // What the server speaks, asked on a connection of its own, so the error can name both sides.
  const refused = async (detail: string) => {
    const serverChoice = offer.movesUp ? undefined : await serverDialect(target, options).catch(() => undefined);
    // Every SMB 2 and 3 dialect refused: a server that speaks only SMB1 is named as such (no current Windows reaches it).
    if (
      !offer.movesUp &&
      serverChoice === undefined &&
      (await speaksSmb1(connectHost(target), target.port, options.signal ? { signal: options.signal } : {}))
    ) {
      return new SmbError(
        'negotiation',
        `${target.host} speaks only SMB1 (${SMB1_DIALECT}): it refused every SMB 2 and 3 dialect, and Windows 10 and 11 speak no other (they ship without SMB1 since Windows 10 1709). No client Pipefill tests can reach it.`,
        'Turn SMB 2 and 3 on at the server (Samba: remove server max protocol = NT1, or set it to SMB3; a NAS: the highest SMB version in its file-sharing settings), then SMB1 off once no old device needs it.',
      );
    }
    // A dialect this client offers after all: the refusal was of an SMB 3.1.1 algorithm list, not the dialects.
    if (serverChoice !== undefined && offer.dialects.includes(serverChoice)) {
      const cause = await refusedAlgorithms(target, offer, options).catch(() => undefined);
      if (cause) {
        const [what, list, setting] =
          cause === 'signing'
            ? ['signing algorithms', offer.signing, 'server smb3 signing algorithms']
            : ['ciphers', offer.ciphers, 'server smb3 encryption algorithms'];
        // Whose offer it was: a generation moved up to SMB 3 offers what Pipefill offered in its place (issue 50).
        const offered = offer.movedUpFrom
          ? `which Pipefill offered in this client's place once the server refused its own ${dialectList(offer.movedUpFrom)}`
          : 'which this client offers';
        // No list sent: SMB 3.1.1 then signs with AES-128-CMAC (MS-SMB2 3.3.5.4) and encrypts with nothing.
        const allowed =
          list.length > 0
            ? `it allows none of the ${what} offered for SMB 3.1.1 (${list.join(', ')})`
            : cause === 'signing'
              ? "it does not allow AES-128-CMAC, SMB 3.1.1's signing where the client sends no list of signing algorithms, as this one does not"
              : 'this client sends no list of ciphers, so it can encrypt with none';
        return new SmbError(
          'negotiation',
          `${target.host} refused this client's NEGOTIATE${detail}, though it speaks SMB ${serverChoice}, ${offered}: ${allowed}.`,
          `Let the server allow ${list.length > 0 ? 'one of them' : cause === 'signing' ? 'AES-128-CMAC' : 'a cipher'} (Samba: ${setting}), or test with a client generation that offers what the server allows.`,
        );
      }
    }
    return new RefusedOldDialect(
      new SmbError(
        'negotiation',
        `${target.host} accepted none of the dialects this client offered (${dialectList(offer.dialects)})${detail}${serverChoice ? `; offered everything, it chooses SMB ${serverChoice}` : ''}.`,
        offer.dialects.every((dialect) => !isSmb3(dialect))
          ? 'The server allows only newer dialects (server min protocol); an SMB 3 client profile can test it.'
          : "Check the server's min and max protocol settings.",
      ),
    );
  };
  let reply: SmbResponse;
  try {
    reply = await connection.request(
      { command: Command.negotiate, body: negotiateRequest(offer), what: 'NEGOTIATE', onWire: (message) => preauth.update(message) },
      options,
    );
  } catch (error) {
    // smbd answers a NEGOTIATE with no dialect in common with an error status
    // (NOT_SUPPORTED; INVALID_PARAMETER when its SMB 3 algorithm lists leave
    // no room for SMB 2), or hangs up.
    if (error instanceof SmbError && (error.status !== undefined || error.kind === 'connection-lost')) {
      throw await refused(error.kind === 'connection-lost' ? ': it closed the connection' : ` (status 0x${(error.status ?? 0).toString(16).padStart(8, '0')})`);
    }
    throw error;
  }
  let negotiate: NegotiateResult;
  try {
    negotiate = parseNegotiate(reply.message, offer);
  } catch (error) {
    if (error instanceof NegotiateError && error.noCommonDialect) throw await refused(`: ${error.message}`);
    if (error instanceof NegotiateError)
      throw new SmbError(
        'protocol',
        `The server's NEGOTIATE response is not valid: ${error.message}.`,
        error.hint ?? 'The server or something on the path is misbehaving.',
        undefined,
        { cause: error },
      );
    throw error;
  }
  if (negotiate.dialect === '3.1.1') preauth.update(reply.message);
  connection.dialect = dialectId(negotiate.dialect);
  return negotiate;
}

/**
 * Which of a 3.1.1 offer's algorithm lists the server refused: the offer
 * again with Pipefill's full signing list, then with its full cipher list,
 * each one NEGOTIATE on a connection of its own (an error path only).
 */
async function refusedAlgorithms(target: SmbTarget, offer: SecurityOffer, options: OpenOptions): Promise<'signing' | 'cipher' | undefined> {
  const everything = PIPEFILL_OFFER;
  // A list the offer already has whole cannot be the cause.
  if (offer.signing.length < everything.signing.length && (await acceptsOffer(target, { ...offer, signing: everything.signing }, options))) return 'signing';
  if (offer.ciphers.length < everything.ciphers.length && (await acceptsOffer(target, { ...offer, ciphers: everything.ciphers }, options))) return 'cipher';
  return undefined;
}

/** Whether the server answers `offer`'s NEGOTIATE with a dialect (3 s at most). */
async function acceptsOffer(target: SmbTarget, offer: SecurityOffer, options: OpenOptions): Promise<boolean> {
  const connection = await SmbConnection.connect(connectHost(target), target.port, { timeoutMs: 3_000, ...(options.signal ? { signal: options.signal } : {}) });
  try {
    const reply = await connection.request({ command: Command.negotiate, body: negotiateRequest(offer), what: 'NEGOTIATE' }, { timeoutMs: 3_000 });
    parseNegotiate(reply.message, offer);
    return true;
  } catch {
    return false;
  } finally {
    connection.destroy();
  }
}

/** The dialect a server picks when offered all of them: one NEGOTIATE on a connection of its own, 3 s at most. */
async function serverDialect(target: SmbTarget, options: OpenOptions): Promise<DialectName | undefined> {
  const everything = PIPEFILL_OFFER;
  const connection = await SmbConnection.connect(connectHost(target), target.port, { timeoutMs: 3_000, ...(options.signal ? { signal: options.signal } : {}) });
  try {
    const reply = await connection.request({ command: Command.negotiate, body: negotiateRequest(everything), what: 'NEGOTIATE' }, { timeoutMs: 3_000 });
    return parseNegotiate(reply.message, everything).dialect;
  } finally {
    connection.destroy();
  }
}
