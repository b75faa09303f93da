// Logging on to a share: connect, negotiate what the client generation
// offers, NTLMv2 login with the session's keys, tree connect, and who
// requires signing or encryption (the server, the share, the profile, the
// person). An old generation the server refuses moves up to SMB 3 where it
// would. The file operations on the session are src/smb/session.ts's.

import { hostname } from 'node:os';
import { SmbConnection } from './connection.js';
import type { ConnectionSecurity, RequestOptions, SmbResponse } from './request-frames.js';
import { SmbError } from './errors.js';
import type { NegotiateResult } from './negotiate.js';
import { NegotiateError, negotiateRequest, ntlmInMechList, parseNegotiate, SecurityMode } from './negotiate.js';
import { Command, Status } from './protocol.js';
import type { DialectName, SecurityOffer } from './security/algorithms.js';
import { dialectId, isSmb3 } from './security/algorithms.js';
import { deriveSessionKeys } from './security/kdf.js';
import { authenticateMessage, negotiateMessage, NtlmError, parseChallenge } from './security/ntlm.js';
import { PreauthHash } from './security/preauth.js';
import { createSigner, isSigned, verifyMessage } from './security/signing.js';
import { Sealer } from './security/transform.js';
import type { Negotiated, OpenOptions, ServerSays, SmbCredentials, SmbTarget } from './session.js';
import { sessionEncryptionRequiredBy, shareEncryption, signingRequiredBy as signingRequiredByOf } from './protection-policy.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { movedUpOffer } from '../model/smb-security.js';

export const PHASE_DEADLINES_MS = { connect: 5_000, negotiate: 5_000, loginStep: 8_000, treeConnect: 5_000 } as const;

/** The caller's options with a phase's deadline (the caller's own, when shorter). */
const withDeadline = <T extends RequestOptions>(options: T, ms: number): T => ({ ...options, timeoutMs: Math.min(options.timeoutMs ?? ms, ms) });

const SessionFlag = { isGuest: 0x1, isNull: 0x2, encryptData: 0x4 } as const;
const SHAREFLAG_ENCRYPT_DATA = 0x8000;

/** The server refused what an old generation offers, in a way SMB 3 can cure: the caller may move up. */
class RefusedOldDialect extends Error {
  constructor(override readonly cause: SmbError) {
    super(cause.message);
  }
}

const dialectList = (dialects: readonly string[]): string => dialects.map((dialect) => `SMB ${dialect}`).join(', ');

/** SESSION_SETUP request (MS-SMB2 2.2.5): 24 fixed bytes, then the security blob at offset 88. */
function sessionSetupRequest(blob: Buffer, signingRequired: boolean): Buffer {
  const body = Buffer.alloc(24 + blob.length);
  body.writeUInt16LE(25, 0);
  body.writeUInt8(signingRequired ? SecurityMode.signingRequired : SecurityMode.signingEnabled, 3);
  body.writeUInt16LE(64 + 24, 12);
  body.writeUInt16LE(blob.length, 14);
  blob.copy(body, 24);
  return body;
}

/** SESSION_SETUP response (MS-SMB2 2.2.6): its flags and security blob, the blob's place checked. */
function parseSessionSetup(response: SmbResponse): { flags: number; blob: Buffer } {
  const { body, message } = response;
  if (body.length < 8) throw new SmbError('protocol', `The SESSION_SETUP response has ${body.length} bytes.`, 'The server is misbehaving.');
  const offset = body.readUInt16LE(4);
  const length = body.readUInt16LE(6);
  if (length > 0 && (offset < 64 || offset + length > message.length)) {
    throw new SmbError(
      'protocol',
      `The SESSION_SETUP response's security buffer (${length} bytes at ${offset}) lies outside its ${message.length} bytes.`,
      'The server is misbehaving.',
    );
  }
  return { flags: body.readUInt16LE(2), blob: message.subarray(offset, offset + length) };
}

/** TREE_CONNECT request (MS-SMB2 2.2.9): 8 fixed bytes, the UNC path at offset 72. */
function treeConnectRequest(unc: string): Buffer {
  const path = Buffer.from(unc, 'utf16le');
  const body = Buffer.alloc(8 + path.length);
  body.writeUInt16LE(9, 0);
  body.writeUInt16LE(64 + 8, 4);
  body.writeUInt16LE(path.length, 6);
  path.copy(body, 8);
  return body;
}

/** A session logged on: its connection (its security set), what it negotiated, and the share's tree. */
export interface LoggedOn {
  readonly connection: SmbConnection;
  readonly negotiated: Negotiated;
  readonly treeId: number;
}

/**
 * Connects, negotiates what the offer allows, logs in and connects the
 * share. An old generation whose dialects the server refuses (server min
 * protocol, encryption required) moves up to SMB 3 on a new connection
 * and says so in `negotiated.movedUpFrom`. Fails with a typed SmbError.
 */
export async function logOn(target: SmbTarget, credentials: SmbCredentials, options: OpenOptions = {}): Promise<LoggedOn> {
  const offer = options.offer ?? CLIENT_PROFILES['pipefill-max'].offer;
  try {
    return await openWith(target, credentials, offer, options);
  } catch (error) {
    if (!(error instanceof RefusedOldDialect)) throw error;
    if (!offer.movesUp) throw error.cause;
    const session = await openWith(target, credentials, movedUpOffer(offer), options).catch((second: unknown) => {
      throw second instanceof RefusedOldDialect ? second.cause : second;
    });
    return { ...session, negotiated: { ...session.negotiated, movedUpFrom: offer.dialects } };
  }
}

async function openWith(target: SmbTarget, credentials: SmbCredentials, offer: SecurityOffer, options: OpenOptions): Promise<LoggedOn> {
  const connection = await SmbConnection.connect(target.host, target.port, withDeadline(options, PHASE_DEADLINES_MS.connect));
  try {
    const policy = options.security ?? credentials.security ?? {};
    const preauth = new PreauthHash();
    const negotiate = await negotiateDialect(connection, target, offer, preauth, withDeadline(options, PHASE_DEADLINES_MS.negotiate));
    const smb3 = isSmb3(negotiate.dialect);
    if (policy.encryption === 'required' && !negotiate.cipher) {
      // An old generation asked to encrypt moves up to SMB 3, as it does for a server that requires it.
      if (!smb3 && offer.movesUp) throw new RefusedOldDialect(new SmbError('negotiation', 'Encryption needs SMB 3.', 'Choose an SMB 3 client profile.'));
      throw new SmbError(
        'negotiation',
        `Encryption was asked for, but ${target.host} and this client agreed on no cipher (SMB ${negotiate.dialect}${smb3 ? '' : ', which has no encryption'}).`,
        smb3
          ? 'The server must allow AES-128-GCM, AES-128-CCM or AES-256 encryption.'
          : 'Encryption needs SMB 3: let the server allow it (server max protocol = SMB3).',
      );
    }
    const serverRequires = (negotiate.securityMode & SecurityMode.signingRequired) !== 0;
    const signingRequiredBy = signingRequiredByOf(serverRequires, offer.signingRequired, policy);
    const largeMtu = negotiate.dialect !== '2.0.2' && (negotiate.capabilities & 0x4) !== 0;
    const login = await authenticate(
      connection,
      credentials,
      negotiate,
      preauth,
      signingRequiredBy !== null,
      withDeadline(options, PHASE_DEADLINES_MS.loginStep),
    ).catch((error: unknown) => {
      // Samba refuses a client that cannot encrypt at SESSION_SETUP when it requires encryption.
      if (!(error instanceof SmbError) || error.kind !== 'access-denied') throw error;
      if (!smb3) throw new RefusedOldDialect(error);
      if (!negotiate.cipher) {
        throw new SmbError(
          'negotiation',
          `${target.host} refused the login, and it agreed no cipher with this client (offered: ${offer.ciphers.join(', ') || 'none'}): a server that requires encryption refuses such a client.`,
          'The server requires a cipher this client generation does not offer (Samba: server smb3 encryption algorithms); try a profile that offers it, or allow a common one.',
          error.status,
          { cause: error },
        );
      }
      throw error;
    });
    let encryptionRequiredBy = sessionEncryptionRequiredBy((login.flags & SessionFlag.encryptData) !== 0, policy);
    if (encryptionRequiredBy === 'server' && policy.encryption === 'off') {
      throw new SmbError(
        'negotiation',
        `${target.host} requires every session to be encrypted, and encryption was turned off for this test.`,
        'Run without --no-encrypt (or set Encryption to automatic), or test against a server that allows unencrypted sessions.',
      );
    }
    if (encryptionRequiredBy !== null && !login.sealer) {
      throw new SmbError(
        'negotiation',
        `${target.host} requires encryption but agreed no cipher with this client.`,
        'The server must allow an AES-CCM or AES-GCM cipher.',
      );
    }
    const security: ConnectionSecurity = {
      ...(login.signer ? { signer: login.signer } : {}),
      ...(login.sealer ? { sealer: login.sealer } : {}),
      signAll: signingRequiredBy !== null && login.signer !== undefined,
      sealAll: encryptionRequiredBy !== null,
    };
    connection.security = security;

    const unc = `\\\\${target.host}\\${target.share}`;
    const tree = await connection
      .request(
        { command: Command.treeConnect, body: treeConnectRequest(unc), what: `connect to share ${target.share}`, sign: negotiate.dialect === '3.1.1' },
        withDeadline(options, PHASE_DEADLINES_MS.treeConnect),
      )
      .catch((error: unknown) => {
        // A share that requires encryption refuses a client without it at TREE_CONNECT.
        if (!smb3 && error instanceof SmbError && error.kind === 'access-denied') throw new RefusedOldDialect(error);
        throw error;
      });
    const shareFlags = tree.body.length >= 8 ? tree.body.readUInt32LE(4) : 0;
    const forShare = shareEncryption((shareFlags & SHAREFLAG_ENCRYPT_DATA) !== 0, security.sealAll, security.sealer !== undefined, policy);
    if (forShare === 'refused-by-person') {
      throw new SmbError(
        'negotiation',
        `The share ${target.share} requires encryption, and encryption was turned off for this test.`,
        'Run without --no-encrypt (or set Encryption to automatic), or choose a share that allows unencrypted access.',
      );
    }
    if (forShare === 'needs-smb3')
      throw new RefusedOldDialect(
        new SmbError('negotiation', `The share ${target.share} requires encryption, which SMB ${negotiate.dialect} cannot give.`, 'Encryption needs SMB 3.'),
      );
    if (forShare === 'share') {
      security.sealAll = true;
      encryptionRequiredBy = 'share';
    }
    const negotiated: Negotiated = {
      dialect: negotiate.dialect,
      maxReadSize: largeMtu ? negotiate.maxReadSize : Math.min(negotiate.maxReadSize, BYTES_PER_CREDIT),
      maxWriteSize: largeMtu ? negotiate.maxWriteSize : Math.min(negotiate.maxWriteSize, BYTES_PER_CREDIT),
      maxTransactSize: negotiate.maxTransactSize,
      largeMtu,
      signing: security.signAll && !security.sealAll ? negotiate.signing : null,
      signingRequiredBy: security.signAll ? signingRequiredBy : null,
      encryption: security.sealAll && negotiate.cipher ? negotiate.cipher : null,
      encryptionRequiredBy: security.sealAll ? encryptionRequiredBy : null,
      serverSays: login.serverSays,
    };
    return { connection, negotiated, treeId: tree.header.treeId };
  } catch (error) {
    connection.destroy();
    throw error;
  }
}

async function negotiateDialect(
  connection: SmbConnection,
  target: SmbTarget,
  offer: SecurityOffer,
  preauth: PreauthHash,
  options: RequestOptions,
): Promise<NegotiateResult> {
  // What the server speaks, asked on a connection of its own, so the error can name both sides.
  const refused = async (detail: string) => {
    const serverChoice = offer.movesUp ? undefined : await serverDialect(target, options).catch(() => undefined);
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
        'The server or something on the path is misbehaving.',
        undefined,
        { cause: error },
      );
    throw error;
  }
  if (negotiate.dialect === '3.1.1') preauth.update(reply.message);
  connection.dialect = dialectId(negotiate.dialect);
  return negotiate;
}

/** The dialect a server picks when offered all of them: one NEGOTIATE on a connection of its own, 3 s at most. */
async function serverDialect(target: SmbTarget, options: OpenOptions): Promise<DialectName | undefined> {
  const everything = CLIENT_PROFILES['pipefill-max'].offer;
  const connection = await SmbConnection.connect(target.host, target.port, { timeoutMs: 3_000, ...(options.signal ? { signal: options.signal } : {}) });
  try {
    const reply = await connection.request({ command: Command.negotiate, body: negotiateRequest(everything), what: 'NEGOTIATE' }, { timeoutMs: 3_000 });
    return parseNegotiate(reply.message, everything).dialect;
  } finally {
    connection.destroy();
  }
}

/**
 * NTLMv2 over SESSION_SETUP, then the session's keys: from the NTLM session
 * key, by the dialect's derivation, over the 3.1.1 preauth chain of this
 * very exchange. The server's final response is checked with them.
 */
async function authenticate(
  connection: SmbConnection,
  credentials: SmbCredentials,
  negotiate: NegotiateResult,
  connectionPreauth: PreauthHash,
  signingRequired: boolean,
  options: RequestOptions,
): Promise<{ flags: number; serverSays: ServerSays; signer?: ReturnType<typeof createSigner>; sealer?: Sealer }> {
  const workstation = (hostname().split('.')[0] ?? 'PIPEFILL').slice(0, 15);
  const smb311 = negotiate.dialect === '3.1.1';
  const preauth = connectionPreauth.fork();
  const onWire = (message: Buffer) => {
    if (smb311) preauth.update(message);
  };
  const ntlmNegotiate = negotiateMessage();
  const first = await connection.request(
    {
      command: Command.sessionSetup,
      body: sessionSetupRequest(ntlmNegotiate, signingRequired),
      okStatuses: [Status.moreProcessingRequired],
      what: 'login (NTLM negotiate)',
      onWire,
    },
    options,
  );
  if (first.header.status !== Status.moreProcessingRequired)
    throw new SmbError('protocol', 'The server ended the login after the first NTLM message.', 'The server may not take NTLM logins.');
  if (smb311) preauth.update(first.message);
  connection.sessionId = first.header.sessionId;
  const challenge = parseSessionSetup(first).blob;
  let authentication;
  let serverSays: ServerSays;
  try {
    const parsed = parseChallenge(challenge);
    serverSays = { ...(parsed.version ? { ntlmVersion: parsed.version } : {}), ...(parsed.computerName ? { computerName: parsed.computerName } : {}) };
    authentication = authenticateMessage(
      { user: credentials.user, password: credentials.password, domain: credentials.domain ?? '', workstation },
      ntlmNegotiate,
      challenge,
    );
  } catch (error) {
    if (error instanceof NtlmError)
      throw new SmbError(
        'protocol',
        `The server's NTLM challenge is not valid: ${error.message}.`,
        'The server or something on the path is misbehaving.',
        undefined,
        { cause: error },
      );
    throw error;
  }
  const final = await connection
    .request(
      { command: Command.sessionSetup, body: sessionSetupRequest(authentication.message, signingRequired), what: `login as ${credentials.user}`, onWire },
      options,
    )
    .catch((error: unknown) => {
      if (error instanceof SmbError && error.kind === 'auth-failed' && ntlmInMechList(negotiate.securityBlob) === 'kerberos-only') {
        throw new SmbError(
          'auth-unsupported',
          `The server refused the NTLM login, and it lists only Kerberos among the logins it takes (login as ${credentials.user}).`,
          'Pipefill logs in with NTLMv2; this server accepts Kerberos only. Allow NTLMv2 on the server (ntlm auth = ntlmv2-only) or test another share.',
          error.status,
          { cause: error },
        );
      }
      if (error instanceof SmbError && error.status === Status.ntlmBlocked) {
        throw new SmbError(
          'auth-unsupported',
          `The server does not accept NTLM logins (login as ${credentials.user}): it takes Kerberos only.`,
          'Pipefill logs in with NTLMv2; allow NTLMv2 on the server (Samba: ntlm auth = ntlmv2-only; Windows: the "Restrict NTLM" policies) or test another share.',
          error.status,
          { cause: error },
        );
      }
      throw error;
    });
  const { flags } = parseSessionSetup(final);
  if ((flags & (SessionFlag.isGuest | SessionFlag.isNull)) !== 0) {
    // A guest session has no key: nothing can be signed or sealed.
    if (signingRequired)
      throw new SmbError(
        'auth-failed',
        `The server logged ${credentials.user} in as a guest, and a guest session cannot sign.`,
        'Check the user name and password; the server maps unknown users to guest.',
      );
    return { flags, serverSays };
  }
  const keys = deriveSessionKeys(negotiate.dialect, authentication.sessionKey, {
    ...(smb311 ? { preauthHash: preauth.hash } : {}),
    ...(negotiate.cipher ? { cipher: negotiate.cipher } : {}),
  });
  const signer = createSigner(negotiate.signing, keys.signingKey);
  // MS-SMB2 3.2.5.3.1: a 3.1.1 server always signs its final SESSION_SETUP
  // response; with the keys now known, that signature proves both sides saw
  // the same NEGOTIATE and SESSION_SETUP messages.
  const mustBeSigned = smb311 || signingRequired;
  if (isSigned(final.message) ? !verifyMessage(signer, final.message) : mustBeSigned) {
    throw new SmbError(
      'integrity',
      `The server's final login response ${isSigned(final.message) ? 'carries a signature that does not verify' : 'is unsigned'} (${signer.algorithm}).`,
      'Something between Pipefill and the server changed the login, or the password the server checked differs from the one typed.',
    );
  }
  const sealer =
    negotiate.cipher && isSmb3(negotiate.dialect) ? new Sealer(negotiate.cipher, keys.encryptionKey, keys.decryptionKey, connection.sessionId) : undefined;
  return { flags, serverSays, signer, ...(sealer ? { sealer } : {}) };
}
