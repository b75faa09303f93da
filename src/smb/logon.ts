// Logging on to a share: connect, negotiate what the client generation
// offers, NTLMv2 login with the session's keys, tree connect, and who
// requires signing or encryption (the server, the share, the profile, the
// person). An old generation the server refuses moves up to SMB 3 where it
// would. The file operations on the session are src/smb/session.ts's.

import { SmbConnection } from './connection.js';
import type { ConnectionSecurity, RequestOptions, SmbResponse } from './request-frames.js';
import { SmbError } from './errors.js';
import type { NegotiateResult } from './negotiate.js';
import { KerberosError, kerberosLogon, type SetupStep } from './kerberos-login.js';
import { planLogin } from './login-choice.js';
import { gssapiAddon } from './native-gssapi.js';
import { kerberosInMechList, SecurityMode } from './negotiate.js';
import { ntlmLogon } from './ntlm-login.js';
import { parseSessionSetup, sessionSetupRequest } from './session-setup.js';
import { Command, Status } from './protocol.js';
import type { SecurityOffer } from './security/algorithms.js';
import { isSmb3 } from './security/algorithms.js';
import { deriveSessionKeys } from './security/kdf.js';
import { PreauthHash } from './security/preauth.js';
import { createSigner, isSigned, verifyMessage } from './security/signing.js';
import { Sealer } from './security/transform.js';
import type { LoginUsed, Negotiated, OpenOptions, SecurityPolicy, ServerSays, SmbCredentials, SmbTarget } from './session-types.js';
import { sessionEncryptionRequiredBy, shareEncryption, signingRequiredBy as signingRequiredByOf } from './protection-policy.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';
import { kerberosPrincipal, ntlmIdentity, parseLoginName } from '../model/login-name.js';
import { connectHost } from '../model/share-path.js';
import { movedUpOffer, PIPEFILL_OFFER } from '../model/smb-security.js';
import { negotiateDialect, RefusedOldDialect } from './negotiate-dialect.js';

export const PHASE_DEADLINES_MS = { connect: 5_000, negotiate: 5_000, loginStep: 8_000, treeConnect: 5_000 } as const;

/** The caller's options with a phase's deadline (the caller's own, when shorter). */
const withDeadline = <T extends RequestOptions>(options: T, ms: number): T => ({ ...options, timeoutMs: Math.min(options.timeoutMs ?? ms, ms) });

const SessionFlag = { isGuest: 0x1, isNull: 0x2, encryptData: 0x4 } as const;
const SHAREFLAG_ENCRYPT_DATA = 0x8000;

/** A TREE_CONNECT refused after a logon that worked: the share lets in other accounts, not this one. */
function shareRefusesAccount(target: SmbTarget, credentials: SmbCredentials, cause: SmbError): SmbError {
  return new SmbError(
    'access-denied',
    `The share ${target.share} refuses ${credentials.user}: the server took the logon, then denied this account the share.`,
    "Only some accounts may use this share (Samba: valid users; Windows: the share's permissions): log on as one of them, or ask for this one to be let in.",
    cause.status,
    { cause },
  );
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
  /** The TREE_CONNECT response's MaximalAccess (MS-SMB2 2.2.10): what this account may do on the share at most. */
  readonly shareMaximalAccess?: number;
}

/**
 * Connects, negotiates what the offer allows, logs in and connects the
 * share. An old generation whose dialects the server refuses (server min
 * protocol, encryption required) moves up to SMB 3 on a new connection
 * and says so in `negotiated.movedUpFrom`. Fails with a typed SmbError.
 */
export async function logOn(target: SmbTarget, credentials: SmbCredentials, options: OpenOptions = {}): Promise<LoggedOn> {
  const offer = options.offer ?? PIPEFILL_OFFER;
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
  const connection = await SmbConnection.connect(connectHost(target), target.port, withDeadline(options, PHASE_DEADLINES_MS.connect));
  try {
    const policy = options.security ?? credentials.security ?? {};
    const preauth = new PreauthHash();
    const negotiate = await negotiateDialect(connection, target, offer, preauth, withDeadline(options, PHASE_DEADLINES_MS.negotiate));
    refuseEncryptionWithoutCipher(target, offer, negotiate, policy);
    const serverRequires = (negotiate.securityMode & SecurityMode.signingRequired) !== 0;
    const signingRequiredBy = signingRequiredByOf(serverRequires, offer.signingRequired, policy);
    const login = await logIn(connection, target, credentials, offer, negotiate, preauth, signingRequiredBy !== null, options);
    refuseGuest(login, offer, credentials, policy);
    const session = sessionSecurity(target, offer, login, policy, signingRequiredBy);
    connection.security = session.security;
    const tree = await connectTree(connection, target, credentials, negotiate, session.security, policy, options);
    const encryptionRequiredBy = tree.sealedForShare ? 'share' : session.encryptionRequiredBy;
    const { security } = session;
    const largeMtu = negotiate.dialect !== '2.0.2' && (negotiate.capabilities & 0x4) !== 0;
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
      login: login.login,
    };
    const { treeId, shareMaximalAccess } = tree;
    return { connection, negotiated, treeId, ...(shareMaximalAccess === undefined ? {} : { shareMaximalAccess }) };
  } catch (error) {
    connection.destroy();
    throw error;
  }
}

/** Encryption the person asked for, on a dialect or a server that agreed no cipher: refused with what would allow it. */
function refuseEncryptionWithoutCipher(target: SmbTarget, offer: SecurityOffer, negotiate: NegotiateResult, policy: SecurityPolicy): void {
  if (policy.encryption !== 'required' || negotiate.cipher) return;
  const smb3 = isSmb3(negotiate.dialect);
  // An old generation asked to encrypt moves up to SMB 3, as it does for a server that requires it.
  if (!smb3 && offer.movesUp) throw new RefusedOldDialect(new SmbError('negotiation', 'Encryption needs SMB 3.', 'Choose an SMB 3 client profile.'));
  throw new SmbError(
    'negotiation',
    `Encryption was asked for, but ${target.host} and this client agreed on no cipher (SMB ${negotiate.dialect}${smb3 ? '' : ', which has no encryption'}).`,
    smb3
      ? `The server must allow a cipher this client offers (${offer.ciphers.join(', ') || 'none: this client generation cannot encrypt'}); Samba: server smb3 encryption algorithms.`
      : 'Encryption needs SMB 3: let the server allow it (server max protocol = SMB3).',
  );
}

type LoggedIn = Awaited<ReturnType<typeof authenticate>>;

/** The logon, with a refusal that means "this client cannot encrypt" said so. */
async function logIn(
  connection: SmbConnection,
  target: SmbTarget,
  credentials: SmbCredentials,
  offer: SecurityOffer,
  negotiate: NegotiateResult,
  preauth: PreauthHash,
  signingRequired: boolean,
  options: OpenOptions,
): Promise<LoggedIn> {
  const smb3 = isSmb3(negotiate.dialect);
  return authenticate(connection, target, credentials, negotiate, preauth, signingRequired, withDeadline(options, PHASE_DEADLINES_MS.loginStep)).catch(
    (error: unknown) => {
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
    },
  );
}

/** A guest logon where Windows 10 and 11 refuse one, or where encryption was asked for (a guest has no key). */
function refuseGuest(login: LoggedIn, offer: SecurityOffer, credentials: SmbCredentials, policy: SecurityPolicy): void {
  if (!login.login.guest) return;
  if (offer.refusesGuest)
    throw new SmbError(
      'auth-failed',
      `The server logged ${credentials.user} on as a guest (it takes unknown users and wrong passwords as guests), and Windows 10 and 11 refuse guest logons.`,
      'Check the user name and password. On the server, stop mapping bad logons to guest (Samba: map to guest = Never); Windows clients would need AllowInsecureGuestAuth, which Microsoft advises against.',
    );
  if (policy.encryption === 'required')
    throw new SmbError(
      'negotiation',
      `Encryption was asked for, but the server logged ${credentials.user} on as a guest, and a guest session has no key to encrypt with.`,
      'Check the user name and password (the server maps unknown users to guest), or run without --encrypt.',
    );
}

/** What the session signs and seals, and who wanted its encryption; refused where the server's demand cannot be met. */
function sessionSecurity(
  target: SmbTarget,
  offer: SecurityOffer,
  login: LoggedIn,
  policy: SecurityPolicy,
  signingRequiredBy: Negotiated['signingRequiredBy'],
): { security: ConnectionSecurity; encryptionRequiredBy: Negotiated['encryptionRequiredBy'] } {
  const encryptionRequiredBy = sessionEncryptionRequiredBy((login.flags & SessionFlag.encryptData) !== 0, policy);
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
      `The server must allow a cipher this client offers (${offer.ciphers.join(', ') || 'none: this client generation cannot encrypt'}); Samba: server smb3 encryption algorithms.`,
    );
  }
  const security: ConnectionSecurity = {
    ...(login.signer ? { signer: login.signer } : {}),
    ...(login.sealer ? { sealer: login.sealer } : {}),
    signAll: signingRequiredBy !== null && login.signer !== undefined,
    sealAll: encryptionRequiredBy !== null,
  };
  return { security, encryptionRequiredBy };
}

/**
 * The share's tree, and whether the share itself requires encryption (then
 * every message is sealed from here on: `security.sealAll` is set). A share
 * that refuses the account, or that an old dialect cannot encrypt for, says so.
 */
async function connectTree(
  connection: SmbConnection,
  target: SmbTarget,
  credentials: SmbCredentials,
  negotiate: NegotiateResult,
  security: ConnectionSecurity,
  policy: SecurityPolicy,
  options: OpenOptions,
): Promise<{ treeId: number; shareMaximalAccess?: number; sealedForShare: boolean }> {
  const smb3 = isSmb3(negotiate.dialect);
  const unc = `\\\\${target.host}\\${target.share}`;
  const tree = await connection
    .request(
      { command: Command.treeConnect, body: treeConnectRequest(unc), what: `connect to share ${target.share}`, sign: negotiate.dialect === '3.1.1' },
      withDeadline(options, PHASE_DEADLINES_MS.treeConnect),
    )
    .catch((error: unknown) => {
      // A share that requires encryption refuses a client without it at TREE_CONNECT.
      if (!smb3 && error instanceof SmbError && error.kind === 'access-denied') throw new RefusedOldDialect(error);
      // Logged on, then refused the share: the account is not among those the share lets in (issue 50).
      if (error instanceof SmbError && error.kind === 'access-denied') throw shareRefusesAccount(target, credentials, error);
      throw error;
    });
  // StructureSize, ShareType, Reserved, ShareFlags, Capabilities, then MaximalAccess at offset 12 (MS-SMB2 2.2.10).
  const shareMaximalAccess = tree.body.length >= 16 ? tree.body.readUInt32LE(12) : undefined;
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
  if (forShare === 'share') security.sealAll = true;
  return { treeId: tree.header.treeId, ...(shareMaximalAccess === undefined ? {} : { shareMaximalAccess }), sealedForShare: forShare === 'share' };
}

/**
 * The logon (Kerberos where it can work, NTLMv2 where it cannot; see
 * login-choice.ts), then the session's keys: from the logon's session key,
 * by the dialect's derivation, over the 3.1.1 preauth chain of this very
 * exchange. The server's final response is checked with them.
 */
async function authenticate(
  connection: SmbConnection,
  target: SmbTarget,
  credentials: SmbCredentials,
  negotiate: NegotiateResult,
  connectionPreauth: PreauthHash,
  signingRequired: boolean,
  options: RequestOptions,
): Promise<{ flags: number; serverSays: ServerSays; login: LoginUsed; signer?: ReturnType<typeof createSigner>; sealer?: Sealer }> {
  const smb311 = negotiate.dialect === '3.1.1';
  const name = parseLoginName(credentials.user, credentials.domain);
  const hasPassword = credentials.password !== '';
  const gss = gssapiAddon();
  const plan = planLogin({
    auth: credentials.auth ?? 'auto',
    host: target.host,
    hasPassword,
    serverOffersKerberos: kerberosInMechList(negotiate.securityBlob),
    ...(gss.available ? {} : { kerberosUnavailable: gss.reason }),
  });
  if (plan.mechanism === 'none') throw new SmbError('kerberos', plan.why, plan.fix);
  // Each attempt hashes its own SESSION_SETUP exchange onto the connection's preauth chain (MS-SMB2 3.2.5.3.1).
  let preauth = connectionPreauth.fork();
  let sent = false;
  const step: SetupStep = async (blob, what) => {
    sent = true;
    const response = await connection.request(
      {
        command: Command.sessionSetup,
        body: sessionSetupRequest(blob, signingRequired),
        okStatuses: [Status.moreProcessingRequired],
        what,
        onWire: (message) => {
          if (smb311) preauth.update(message);
        },
      },
      options,
    );
    // The final response stays out of the preauth hash; the session's id comes with the first reply, whichever it is.
    if (response.header.status === Status.moreProcessingRequired && smb311) preauth.update(response.message);
    if (connection.sessionId === 0n) connection.sessionId = response.header.sessionId;
    return { response, blob: parseSessionSetup(response).blob };
  };
  let outcome: { final: SmbResponse; sessionKey: Buffer; serverSays: ServerSays; login: LoginUsed };
  let whyNotKerberos = plan.mechanism === 'ntlmv2' ? plan.whyNotKerberos : '';
  let kerberosFix: string | undefined;
  if (plan.mechanism === 'kerberos') {
    const defaultRealm = gss.available ? gss.addon.Context.defaultRealm() : undefined;
    // Without a realm the cache's own principal logs on, checked against the typed user below.
    const typed = kerberosPrincipal(name, defaultRealm);
    const principal = typed.includes('@') ? typed : undefined;
    try {
      const kerberos = await kerberosLogon(
        { host: target.host, ...(principal === undefined ? {} : { principal }), ...(hasPassword ? { password: credentials.password } : {}) },
        step,
      );
      const ticketUser = kerberos.principal.split('@')[0] ?? '';
      if (ticketUser.toLowerCase() !== name.user.toLowerCase())
        throw new SmbError(
          'kerberos',
          `The Kerberos ticket is for ${kerberos.principal}, not ${credentials.user}.`,
          `Log on as ${credentials.user} (kinit ${name.user}), type ${ticketUser} as the user, or give ${credentials.user}'s password.`,
        );
      outcome = { ...kerberos, serverSays: {}, login: { mechanism: 'kerberos', principal: kerberos.principal } };
    } catch (error) {
      // Only a failure before anything reached the server falls back: the NTLM logon then starts clean.
      if (!(error instanceof KerberosError && error.fallsBack && plan.mayFallBack && !sent)) throw error;
      whyNotKerberos = error.reason;
      kerberosFix = error.hint;
      preauth = connectionPreauth.fork();
    }
  }
  const identity = ntlmIdentity(name);
  outcome ??= await ntlmLogon({ ...identity, password: credentials.password }, negotiate.securityBlob, step, whyNotKerberos, kerberosFix).then((ntlm) => ({
    ...ntlm,
    // The account as the AUTHENTICATE message named it (MS-NLMP 2.2.1.3: DomainName and UserName): CORP\alice typed is user alice of domain CORP.
    login: { mechanism: 'ntlmv2' as const, whyNotKerberos, account: identity.domain ? `${identity.domain}\\${identity.user}` : identity.user },
  }));
  const { final, sessionKey, serverSays, login } = outcome;
  const { flags } = parseSessionSetup(final);
  if ((flags & (SessionFlag.isGuest | SessionFlag.isNull)) !== 0) {
    // A guest session has no key: nothing can be signed or sealed.
    // Windows 11 24H2 and Windows Server 2025 sign every connection and refuse insecure guest logons: a share
    // that takes people as guests is one they will not open (issue 50, the readiness of a share for 24H2).
    if (signingRequired)
      throw new SmbError(
        'auth-failed',
        `The server logged ${credentials.user} on as a guest, and a guest session cannot sign: Windows 11 24H2 and Windows Server 2025, which sign every connection and refuse guest logons, will refuse this share as it is set up.`,
        'Log on with a real account and its password (a name or password the server does not know is taken as a guest: Samba map to guest = Bad User); on the server, give people accounts and set map to guest = never.',
      );
    return { flags, serverSays, login: { ...login, guest: true } };
  }
  const keys = deriveSessionKeys(negotiate.dialect, sessionKey, {
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
  return { flags, serverSays, login, signer, ...(sealer ? { sealer } : {}) };
}
