// An authenticated SMB2/3 session on one share: negotiate what the client
// profile offers, NTLMv2 login with the session's keys, tree connect, then
// the file operations the test copies are made of. Signing and encryption
// are decided here and done by the connection (see ConnectionSecurity).

import { hostname } from 'node:os';
import { payloadBytes, RELATED_FILE_ID, SmbConnection } from './connection.js';
import type { ConnectionSecurity, RequestOptions, RequestSpec, SmbResponse } from './connection.js';
import { SmbError } from './errors.js';
import type { DataRange, WriterChoice } from './frame-writer.js';
import {
  Access,
  closeRequest,
  CreateOption,
  createRequest,
  Disposition,
  emptyRequest,
  flushRequest,
  DIRECTORY_OUTPUT_BYTES,
  parseCreate,
  parseDirectoryEntries,
  parseQueryInfo,
  parseRead,
  parseWrite,
  queryDirectoryRequest,
  queryInfoRequest,
  readRequest,
  setInfoRequest,
  writeRequest,
} from './messages.js';
import type { CreateParams, CreateResult, DirectoryEntry } from './messages.js';
import type { NegotiateResult } from './negotiate.js';
import { NegotiateError, negotiateRequest, ntlmInMechList, parseNegotiate, SecurityMode } from './negotiate.js';
import { Command, Status } from './protocol.js';
import type { CipherName, DialectName, SecurityOffer, SigningAlgorithm } from './security/algorithms.js';
import { dialectId, isSmb3 } from './security/algorithms.js';
import { deriveSessionKeys } from './security/kdf.js';
import { authenticateMessage, negotiateMessage, NtlmError, parseChallenge } from './security/ntlm.js';
import { PreauthHash } from './security/preauth.js';
import { createSigner, isSigned, verifyMessage } from './security/signing.js';
import { Sealer } from './security/transform.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { movedUpOffer } from '../model/smb-security.js';

export interface SmbTarget {
  readonly host: string;
  readonly port: number;
  readonly share: string;
}

export interface SmbCredentials {
  readonly user: string;
  readonly password: string;
  readonly domain?: string;
  /** Signing and encryption the person asked for; travels with the login to every session opened with it. */
  readonly security?: SecurityPolicy;
}

/** The login of a share-login input (contract), with the person's signing and encryption choices. */
export function credentialsFrom(login: {
  user: string;
  password: string;
  domain?: string | undefined;
  signing?: 'auto' | 'required' | undefined;
  encryption?: 'auto' | 'required' | 'off' | undefined;
}): SmbCredentials {
  const security: SecurityPolicy = { ...(login.signing ? { signing: login.signing } : {}), ...(login.encryption ? { encryption: login.encryption } : {}) };
  return {
    user: login.user,
    password: login.password,
    ...(login.domain === undefined ? {} : { domain: login.domain }),
    ...(Object.keys(security).length > 0 ? { security } : {}),
  };
}

/** What the person asked of signing and encryption, beyond what the server and the profile require. */
export interface SecurityPolicy {
  /** `required`: sign every message even where neither side requires it (`--signing required`). */
  readonly signing?: 'auto' | 'required';
  /** `required`: encrypt (`--encrypt`); `off`: refuse a server or share that requires it (`--no-encrypt`). */
  readonly encryption?: 'auto' | 'required' | 'off';
}

export interface Negotiated {
  readonly dialect: DialectName;
  readonly maxReadSize: number;
  readonly maxWriteSize: number;
  readonly maxTransactSize: number;
  /** Multi-credit requests over 64 KiB (SMB 2.1 large MTU). */
  readonly largeMtu: boolean;
  /** The algorithm every message is signed with, or null when the session does not sign its traffic. */
  readonly signing: SigningAlgorithm | null;
  /** Who wanted the signing: the server, the client profile, the person, or nobody. */
  readonly signingRequiredBy: 'server' | 'profile' | 'person' | null;
  /** The cipher every message is encrypted with, or null. */
  readonly encryption: CipherName | null;
  /** Who wanted encryption: the server (whole session), the share, the person, or nobody. */
  readonly encryptionRequiredBy: 'server' | 'share' | 'person' | null;
  /** The dialects the profile offered first, when the server refused them and the copy moved up to SMB 3. */
  readonly movedUpFrom?: readonly DialectName[];
  /** What the server said of itself in its NTLM CHALLENGE (its word only): recognising the server starts here. */
  readonly serverSays?: ServerSays;
}

/** A server's own account of itself, from its NTLM CHALLENGE (MS-NLMP 2.2.1.2). */
export interface ServerSays {
  readonly ntlmVersion?: { readonly major: number; readonly minor: number; readonly build: number; readonly revision: number };
  readonly computerName?: string;
}

export interface OpenOptions extends RequestOptions {
  readonly timeoutMs?: number;
  /** How long a server may make no progress while requests wait (default 9 s, SILENCE_TIMEOUT_MS). */
  readonly silenceTimeoutMs?: number;
  /** How requests reach the socket (default: Pipefill's sender addon where it is built; see frame-writer.ts). */
  readonly writer?: WriterChoice;
  /** What the client offers (default: Pipefill's own, every dialect and algorithm). */
  readonly offer?: SecurityOffer;
  readonly security?: SecurityPolicy;
}

/**
 * Each phase of opening a session has a deadline of its own, whatever the
 * server does meanwhile: one round trip each, even on a 600 ms satellite
 * path, with room for a domain controller's answer at login. A server that
 * trickles or stalls there ends in a typed timeout, not a wait.
 */
export const PHASE_DEADLINES_MS = { connect: 5_000, negotiate: 5_000, loginStep: 8_000, treeConnect: 5_000 } as const;

/** The caller's options with a phase's deadline (the caller's own, when shorter). */
const withDeadline = <T extends RequestOptions>(options: T, ms: number): T => ({ ...options, timeoutMs: Math.min(options.timeoutMs ?? ms, ms) });

const toWindowsPath = (path: string): string => path.replace(/\//g, '\\').replace(/^\\+/, '');

/** The most entries a listing may hold (a share root of 100,000 names is ~20 MiB of them). */
const MAX_LISTING_ENTRIES = 100_000;
/** Replies a listing may take: 100,000 short names fit in ~200 of 64 KiB; more is a server that never ends it. */
const MAX_LISTING_PAGES = 2_000;
/** What a QUERY_DIRECTORY answers at the end of a listing, or for a folder with nothing to list. */
const LISTING_END: readonly number[] = [Status.noMoreFiles, Status.objectNameNotFound, Status.noSuchFile];

/** A reply's header and fixed part, beyond the data it carries. */
const REPLY_OVERHEAD_BYTES = 256;

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

export class SmbSession {
  private constructor(
    readonly connection: SmbConnection,
    readonly target: SmbTarget,
    readonly negotiated: Negotiated,
    readonly treeId: number,
  ) {}

  /**
   * Connects, negotiates what the offer allows, logs in and connects the
   * share. An old generation whose dialects the server refuses (server min
   * protocol, encryption required) moves up to SMB 3 on a new connection
   * and says so in `negotiated.movedUpFrom`. Fails with a typed SmbError.
   */
  static async open(target: SmbTarget, credentials: SmbCredentials, options: OpenOptions = {}): Promise<SmbSession> {
    const offer = options.offer ?? CLIENT_PROFILES['pipefill-max'].offer;
    try {
      return await SmbSession.openWith(target, credentials, offer, options);
    } catch (error) {
      if (!(error instanceof RefusedOldDialect)) throw error;
      if (!offer.movesUp) throw error.cause;
      const session = await SmbSession.openWith(target, credentials, movedUpOffer(offer), options).catch((second: unknown) => {
        throw second instanceof RefusedOldDialect ? second.cause : second;
      });
      Object.assign(session, { negotiated: { ...session.negotiated, movedUpFrom: offer.dialects } });
      return session;
    }
  }

  private static async openWith(target: SmbTarget, credentials: SmbCredentials, offer: SecurityOffer, options: OpenOptions): Promise<SmbSession> {
    const connection = await SmbConnection.connect(target.host, target.port, withDeadline(options, PHASE_DEADLINES_MS.connect));
    try {
      const policy = options.security ?? credentials.security ?? {};
      const preauth = new PreauthHash();
      const negotiate = await SmbSession.negotiate(connection, target, offer, preauth, withDeadline(options, PHASE_DEADLINES_MS.negotiate));
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
      const signingRequiredBy = serverRequires ? 'server' : offer.signingRequired ? 'profile' : policy.signing === 'required' ? 'person' : null;
      const largeMtu = negotiate.dialect !== '2.0.2' && (negotiate.capabilities & 0x4) !== 0;
      const login = await SmbSession.login(
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
      let encryptionRequiredBy: Negotiated['encryptionRequiredBy'] =
        (login.flags & SessionFlag.encryptData) !== 0 ? 'server' : policy.encryption === 'required' ? 'person' : null;
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
      if ((shareFlags & SHAREFLAG_ENCRYPT_DATA) !== 0 && !security.sealAll) {
        if (policy.encryption === 'off') {
          throw new SmbError(
            'negotiation',
            `The share ${target.share} requires encryption, and encryption was turned off for this test.`,
            'Run without --no-encrypt (or set Encryption to automatic), or choose a share that allows unencrypted access.',
          );
        }
        if (!security.sealer)
          throw new RefusedOldDialect(
            new SmbError(
              'negotiation',
              `The share ${target.share} requires encryption, which SMB ${negotiate.dialect} cannot give.`,
              'Encryption needs SMB 3.',
            ),
          );
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
      return new SmbSession(connection, target, negotiated, tree.header.treeId);
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  private static async negotiate(
    connection: SmbConnection,
    target: SmbTarget,
    offer: SecurityOffer,
    preauth: PreauthHash,
    options: RequestOptions,
  ): Promise<NegotiateResult> {
    // What the server speaks, asked on a connection of its own, so the error can name both sides.
    const refused = async (detail: string) => {
      const serverChoice = offer.movesUp ? undefined : await SmbSession.serverDialect(target, options).catch(() => undefined);
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
        throw await refused(
          error.kind === 'connection-lost' ? ': it closed the connection' : ` (status 0x${(error.status ?? 0).toString(16).padStart(8, '0')})`,
        );
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
  private static async serverDialect(target: SmbTarget, options: OpenOptions): Promise<DialectName | undefined> {
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
  private static async login(
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

  private request(
    command: number,
    body: Buffer,
    what: string,
    options: RequestOptions & { payload?: RequestSpec['payload']; creditCharge?: number; okStatuses?: readonly number[]; replyBytes?: number } = {},
  ): Promise<SmbResponse> {
    return this.connection.request(
      {
        command,
        body,
        what,
        treeId: this.treeId,
        ...(options.payload ? { payload: options.payload } : {}),
        ...(options.creditCharge ? { creditCharge: options.creditCharge } : {}),
        ...(options.okStatuses ? { okStatuses: options.okStatuses } : {}),
        ...(options.replyBytes ? { replyBytes: options.replyBytes } : {}),
      },
      options,
    );
  }

  /** Credits a read or write of this many bytes costs (1 below 64 KiB, or on SMB 2.0.2). */
  creditCharge(bytes: number): number {
    return this.negotiated.largeMtu ? Math.max(1, Math.ceil(bytes / BYTES_PER_CREDIT)) : 1;
  }

  async create(params: CreateParams, options: RequestOptions = {}): Promise<CreateResult> {
    const path = toWindowsPath(params.path);
    const reply = await this.request(Command.create, createRequest({ ...params, path }), `open ${params.path || '(share root)'}`, options);
    return parseCreate(reply.body);
  }

  /** CREATE and QUERY_INFO compounded: one round trip, as Windows 7 and later open a file. */
  async createAndQuery(params: CreateParams, infoClass: number, options: RequestOptions = {}): Promise<CreateResult> {
    const path = toWindowsPath(params.path);
    const [created, queried] = await this.connection.compound(
      [
        { command: Command.create, body: createRequest({ ...params, path }), treeId: this.treeId, what: `open ${params.path}` },
        { command: Command.queryInfo, body: queryInfoRequest(RELATED_FILE_ID, 1, infoClass), treeId: this.treeId, what: `query ${params.path}` },
      ],
      options,
    );
    if (!created || !queried) throw new SmbError('protocol', `Incomplete compound reply for ${params.path}.`, 'The server log may say more.');
    return parseCreate(created.body);
  }

  async close(fileId: Buffer, options: RequestOptions = {}): Promise<void> {
    await this.request(Command.close, closeRequest(fileId), 'close', options);
  }

  async read(fileId: Buffer, offset: number, length: number, options: RequestOptions = {}): Promise<Buffer> {
    const reply = await this.request(Command.read, readRequest(fileId, offset, length), `read ${length} bytes at ${offset}`, {
      ...options,
      creditCharge: this.creditCharge(length),
      replyBytes: REPLY_OVERHEAD_BYTES + length,
    });
    return parseRead(reply.body, length);
  }

  /**
   * Writes `data` at `offset`: one buffer, pieces sent without joining them,
   * or a range of a local file or of the test pattern when the connection
   * sends ranges (connection.sendsRanges).
   */
  async write(fileId: Buffer, offset: number, data: Buffer | readonly Buffer[] | DataRange, options: RequestOptions = {}): Promise<number> {
    const length = payloadBytes(data);
    const reply = await this.request(Command.write, writeRequest(fileId, offset, length), `write ${length} bytes at ${offset}`, {
      ...options,
      payload: data,
      creditCharge: this.creditCharge(length),
    });
    return parseWrite(reply.body, length);
  }

  async queryInfo(fileId: Buffer, infoType: number, infoClass: number, options: RequestOptions = {}): Promise<Buffer> {
    const reply = await this.request(Command.queryInfo, queryInfoRequest(fileId, infoType, infoClass), `query info class ${infoClass}`, {
      ...options,
      okStatuses: [Status.bufferOverflow],
    });
    return parseQueryInfo(reply.body);
  }

  async setInfo(fileId: Buffer, infoClass: number, value: Buffer, options: RequestOptions = {}): Promise<void> {
    await this.request(Command.setInfo, setInfoRequest(fileId, infoClass, value), `set info class ${infoClass}`, options);
  }

  async flush(fileId: Buffer, options: RequestOptions = {}): Promise<void> {
    await this.request(Command.flush, flushRequest(fileId), 'flush', options);
  }

  /** One QUERY_DIRECTORY: the entries matching `pattern` ([] when none are left). */
  async queryDirectory(fileId: Buffer, pattern: string, flags: number, options: RequestOptions = {}): Promise<DirectoryEntry[]> {
    const reply = await this.request(Command.queryDirectory, queryDirectoryRequest(fileId, pattern, flags), `list ${pattern}`, {
      ...options,
      okStatuses: LISTING_END,
      replyBytes: REPLY_OVERHEAD_BYTES + DIRECTORY_OUTPUT_BYTES,
    });
    return reply.header.status === Status.success ? parseDirectoryEntries(reply.body) : [];
  }

  async echo(options: RequestOptions = {}): Promise<void> {
    await this.connection.request({ command: Command.echo, body: emptyRequest('echo'), what: 'ECHO' }, options);
  }

  /**
   * Asks the server for `wanted` credits before a pipeline starts: a reply can
   * only grant credits to a request, so with nothing in flight an 8 MiB read
   * (128 credits) could wait for ever. Sends ECHOs whose headers ask for the
   * difference, until the grant reaches `wanted` or stops growing (the
   * server's ceiling, e.g. `smb2 max credits`). Returns the credits held.
   */
  async reserveCredits(wanted: number, options: RequestOptions = {}): Promise<number> {
    const { connection } = this;
    const held = () => connection.credits.credits + connection.credits.creditsInFlight;
    connection.creditTarget = Math.max(connection.creditTarget, wanted);
    // Each ECHO may double what the server grants; eight cover 1 to 8192.
    for (let attempt = 0; attempt < 8 && held() < wanted; attempt++) {
      const before = held();
      await this.echo(options);
      if (held() <= before) break;
    }
    return held();
  }

  // --- Conveniences built on the operations above --------------------------------

  async makeDirectory(path: string, options: RequestOptions = {}): Promise<void> {
    // The create and its related close in one compound, one round trip (MS-SMB2 3.2.4.1.4), as deletePath.
    await this.connection.compound(
      [
        {
          command: Command.create,
          body: createRequest({
            path: toWindowsPath(path),
            access: Access.listDirectory | Access.readAttributes,
            disposition: Disposition.create,
            options: CreateOption.directory,
            directory: true,
          }),
          treeId: this.treeId,
          what: `make ${path}`,
        },
        { command: Command.close, body: closeRequest(RELATED_FILE_ID), treeId: this.treeId, what: `close ${path}` },
      ],
      options,
    );
  }

  /** Every entry of a directory, "." and ".." left out. */
  async listDirectory(path: string, options: RequestOptions = {}): Promise<DirectoryEntry[]> {
    return (await this.listDirectoryWithLinks(path, options)).entries;
  }

  /**
   * A folder's entries, with the server's ids of the folder itself (`.`) and
   * of its parent (`..`): a folder reached through a link has the parent of
   * the link's target, not of the link (scratch.ts tells links apart so).
   * At most MAX_LISTING_ENTRIES entries: a listing is never allowed to grow
   * without bound.
   */
  async listDirectoryWithLinks(path: string, options: RequestOptions = {}): Promise<{ entries: DirectoryEntry[]; self?: bigint; parent?: bigint }> {
    const { closed, ...listing } = await this.listDirectoryClosing(path, options);
    await closed;
    return listing;
  }

  /**
   * A listing whose handle's close is still in flight (`closed` settles when
   * it is done, never rejects): a clean-up removes the entries meanwhile and
   * waits for it only before removing the folder itself, a round trip saved
   * per folder.
   */
  async listDirectoryClosing(
    path: string,
    options: RequestOptions = {},
  ): Promise<{ entries: DirectoryEntry[]; self?: bigint; parent?: bigint; closed: Promise<void> }> {
    // The open and the first two pages in one compound (MS-SMB2 3.2.4.1.4): a folder that fits one reply is
    // listed in one round trip, its end (STATUS_NO_MORE_FILES) included, where open, list, list again took
    // three; a clean-up of nested folders pays that at every level on a long path. A server fails a related
    // request after one that failed with the same status (3.3.5.2.7.2): an empty folder's second page says
    // no more files too.
    const windowsPath = toWindowsPath(path);
    const page = {
      command: Command.queryDirectory,
      treeId: this.treeId,
      what: 'list *',
      okStatuses: LISTING_END,
      replyBytes: REPLY_OVERHEAD_BYTES + DIRECTORY_OUTPUT_BYTES,
    };
    const [created, firstPage, secondPage] = await this.connection.compound(
      [
        {
          command: Command.create,
          body: createRequest({
            path: windowsPath,
            access: Access.listDirectory | Access.readAttributes,
            disposition: Disposition.open,
            options: CreateOption.directory,
            directory: true,
          }),
          treeId: this.treeId,
          what: `open ${path || '(share root)'}`,
        },
        { ...page, body: queryDirectoryRequest(RELATED_FILE_ID, '*', 1) },
        { ...page, body: queryDirectoryRequest(RELATED_FILE_ID, '*', 0) },
      ],
      options,
    );
    if (!created || !firstPage || !secondPage)
      throw new SmbError('protocol', `Incomplete compound reply listing ${path || '(share root)'}.`, 'The server log may say more.');
    const { fileId } = parseCreate(created.body);
    const close = () => this.close(fileId, options).catch(() => undefined);
    try {
      const entries: DirectoryEntry[] = [];
      let self: bigint | undefined;
      let parent: bigint | undefined;
      // Bounded in pages too: a server that answered with '.' and '..' for ever would add no entries.
      for (let page = 0; ; page++) {
        if (page >= MAX_LISTING_PAGES)
          throw new SmbError(
            'protocol',
            `The folder ${path || '(share root)'} kept listing after ${MAX_LISTING_PAGES} replies.`,
            'The server, or something on the path to it, is misbehaving.',
          );
        const compounded = [firstPage, secondPage][page];
        const batch = compounded
          ? compounded.header.status === Status.success
            ? parseDirectoryEntries(compounded.body)
            : []
          : await this.queryDirectory(fileId, '*', 0, options);
        if (batch.length === 0) break;
        for (const entry of batch) {
          if (entry.name === '.') self = entry.fileId;
          else if (entry.name === '..') parent = entry.fileId;
          else entries.push(entry);
        }
        if (entries.length > MAX_LISTING_ENTRIES)
          throw new SmbError(
            'protocol',
            `The folder ${path || '(share root)'} lists more than ${MAX_LISTING_ENTRIES} entries.`,
            'Pipefill lists only its scratch folders and the share root; point it at a share whose root is smaller, or a subfolder.',
          );
      }
      return { entries, ...(self === undefined ? {} : { self }), ...(parent === undefined ? {} : { parent }), closed: close() };
    } catch (error) {
      await close();
      throw error;
    }
  }

  /** Deletes a file or an empty directory (opened delete-on-close, then closed). */
  async deletePath(path: string, directory: boolean, options: RequestOptions = {}): Promise<void> {
    // One compound, one round trip: the close is related to the open (MS-SMB2 3.2.4.1.4), and an open that
    // fails takes the close down with it (3.3.5.2.7.2), so no handle is left either way.
    await this.connection.compound(
      [
        {
          command: Command.create,
          body: createRequest({
            path: toWindowsPath(path),
            access: Access.delete | Access.readAttributes,
            disposition: Disposition.open,
            options: CreateOption.deleteOnClose | (directory ? CreateOption.directory : CreateOption.nonDirectory),
            directory,
          }),
          treeId: this.treeId,
          what: `open ${path} to delete it`,
        },
        { command: Command.close, body: closeRequest(RELATED_FILE_ID), treeId: this.treeId, what: `close ${path}, deleting it` },
      ],
      options,
    );
  }

  /** Logs off and closes the connection; never throws (it runs in cleanup paths). */
  async end(): Promise<void> {
    if (!this.connection.isOpen) return;
    const quick = { timeoutMs: 2_000 };
    // The tree's disconnect goes first and the LOGOFF right behind it (MS-SMB2 3.2.4.23), both in flight at once:
    // one round trip for the two instead of two. A server that took the LOGOFF first would refuse the disconnect,
    // which changes nothing here: the log-off closes the session's opens (3.3.5.6).
    await Promise.all([
      this.request(Command.treeDisconnect, emptyRequest('treeDisconnect'), 'disconnect the share', quick).catch(() => undefined),
      this.connection.request({ command: Command.logoff, body: emptyRequest('logoff'), what: 'LOGOFF' }, quick).catch(() => undefined),
    ]);
    await this.connection.end();
  }
}
