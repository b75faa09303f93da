// What a session is opened with and what it negotiated: the target, the
// login, the person's signing and encryption choices, the server's word about
// itself. Types of their own file so the log-on (logon.ts) and the session
// (session.ts) both use them without importing each other.

import type { RequestOptions } from './request-frames.js';
import type { WriterChoice } from './frame-writer.js';
import type { CipherName, DialectName, SecurityOffer, SigningAlgorithm } from './security/algorithms.js';
import type { AuthChoice } from './login-choice.js';

export interface SmbTarget {
  /** The server's name as typed (in the tree connect's path, and Kerberos's cifs/<host>). */
  readonly host: string;
  readonly port: number;
  readonly share: string;
  /** A folder below the share where Pipefill works: its scratch folder goes there (src/model/share-path.ts). */
  readonly folder?: string;
  /** Where to connect instead of resolving `host` (src/model/share-path.ts). */
  readonly address?: string;
}

export interface SmbCredentials {
  /** As typed: alice, CORP\\alice or alice@CORP.EXAMPLE.COM (src/model/login-name.ts). */
  readonly user: string;
  /** Empty: no password, so Kerberos with the person's own ticket. */
  readonly password: string;
  readonly domain?: string;
  /** Kerberos where it can work (default), or one of the two (src/smb/login-choice.ts). */
  readonly auth?: AuthChoice;
  /** Signing and encryption the person asked for; travels with the login to every session opened with it. */
  readonly security?: SecurityPolicy;
}

/** The login of a share-login input (contract), with the person's signing and encryption choices. */
export function credentialsFrom(login: {
  user: string;
  password: string;
  domain?: string | undefined;
  auth?: AuthChoice | undefined;
  signing?: 'auto' | 'required' | undefined;
  encryption?: 'auto' | 'required' | 'off' | undefined;
}): SmbCredentials {
  const security: SecurityPolicy = { ...(login.signing ? { signing: login.signing } : {}), ...(login.encryption ? { encryption: login.encryption } : {}) };
  return {
    user: login.user,
    password: login.password,
    ...(login.domain === undefined ? {} : { domain: login.domain }),
    ...(login.auth === undefined ? {} : { auth: login.auth }),
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
  /** How the session logged on (Kerberos or NTLMv2, and why not Kerberos). */
  readonly login?: LoginUsed;
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

/** How a session logged on: the mechanism, and why not Kerberos where NTLMv2 was used. */
export interface LoginUsed {
  readonly mechanism: 'kerberos' | 'ntlmv2';
  /** The Kerberos principal the ticket was for. */
  readonly principal?: string;
  readonly whyNotKerberos?: string;
  /** NTLMv2: the account the AUTHENTICATE message named, DOMAIN\\user or the user alone. */
  readonly account?: string;
  /** The server logged the person on as a guest (no key: nothing signed or sealed). */
  readonly guest?: boolean;
}
