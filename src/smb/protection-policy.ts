// Who requires a session's signing and encryption, decided from what each
// party said: the server (NEGOTIATE's SecurityMode, SESSION_SETUP's
// SessionFlags: MS-SMB2 2.2.4, 2.2.6), the share (TREE_CONNECT's ShareFlags:
// 2.2.10), the client generation's own offer, and the person's choice. Pure:
// the log-on (src/smb/logon.ts) asks, and refuses what cannot be given.

import type { Negotiated, SecurityPolicy } from './session-types.js';

/** The server's requirement wins, then the generation's (Windows 11 24H2 signs), then the person's `--signing required`. */
export function signingRequiredBy(serverRequires: boolean, profileRequires: boolean, policy: SecurityPolicy): Negotiated['signingRequiredBy'] {
  if (serverRequires) return 'server';
  if (profileRequires) return 'profile';
  return policy.signing === 'required' ? 'person' : null;
}

/** Whole-session encryption: the server's (SMB2_SESSION_FLAG_ENCRYPT_DATA), else the person's `--encrypt`. */
export function sessionEncryptionRequiredBy(serverEncrypts: boolean, policy: SecurityPolicy): Negotiated['encryptionRequiredBy'] {
  if (serverEncrypts) return 'server';
  return policy.encryption === 'required' ? 'person' : null;
}

/**
 * What a share that requires encryption (SHI1005_FLAGS_ENCRYPT_DATA) makes
 * of a session that does not seal yet: seal from here on (`share`), or
 * refuse because the person turned encryption off (`refused-by-person`) or
 * the dialect has no cipher (`needs-smb3`). A session that seals already, or
 * a share that does not ask, keeps what it has (`unchanged`).
 */
export function shareEncryption(
  shareRequires: boolean,
  sealsAlready: boolean,
  canSeal: boolean,
  policy: SecurityPolicy,
): 'unchanged' | 'share' | 'refused-by-person' | 'needs-smb3' {
  if (!shareRequires || sealsAlready) return 'unchanged';
  if (policy.encryption === 'off') return 'refused-by-person';
  return canSeal ? 'share' : 'needs-smb3';
}
