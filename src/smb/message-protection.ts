// Message protection on the receiving side: a reply to a sealed request
// must come sealed, one to a signed request (or any, once the session signs
// everything) must carry a signature that verifies, and an unsolicited
// message is trusted only as far as the session's protection lets anyone
// vouch for it. The sending side signs and seals in connection.ts, with the
// signer and sealer the log-on set (src/smb/logon.ts).

import type { ConnectionSecurity } from './request-frames.js';
import { SmbError } from './errors.js';
import type { Smb2Header } from './protocol.js';
import { Command } from './protocol.js';
import { isSigned, verifyMessage } from './security/signing.js';
import { TransformError } from './security/transform.js';

export function integrityError(message: string, cause?: unknown): SmbError {
  return new SmbError(
    'integrity',
    message,
    // Either cause stops Windows 11 24H2 and Server 2025 as well: they sign every connection (issue 50, "cannot sign with this server").
    "Something between Pipefill and the server changed the traffic, or the server signs wrongly: the copy stopped before using any of it. Either way Windows 11 24H2 and Windows Server 2025, which sign every connection, will fail on this path too: find the device that rewrites SMB (a WAN optimiser, an inspecting firewall), or update the server's SMB software.",
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

/** An encrypted reply that did not open (its tag, its session, its size). */
export function unopenedError(server: string, error: unknown): SmbError {
  const reason = error instanceof TransformError ? error.message : String(error);
  return integrityError(`An encrypted reply from ${server} did not open: ${reason}.`, error);
}

/** What a reply is checked against: its request, as sent. */
export interface RequestSent {
  readonly what: string;
  readonly command: number;
  /** The session the request was sent on. */
  readonly sessionId: bigint;
  readonly sealed: boolean;
  readonly signed: boolean;
}

/**
 * A reply to a sealed request must come sealed; one to a signed request
 * (or any, once the session signs everything) must carry a signature that
 * verifies. Anything else fails the connection with an `integrity` error
 * before a byte of it is used. An interim STATUS_PENDING, which carries no
 * data, may come unsigned (MS-SMB2 3.2.5.1.3 skips those).
 *
 * The session a reply is verified against is its request's (MS-SMB2
 * 3.2.5.1.3: "For all other messages, the client MUST retrieve SessionId
 * from the corresponding Request.Message"); only a SESSION_SETUP reply
 * names its own. A reply whose header names another session, or none, is
 * verified all the same (its signature covers that header): a path that
 * zeroed the SessionId, the flag and the signature of every reply would
 * otherwise strip signing unseen.
 */
export function replyIntegrityError(
  message: Buffer,
  header: Smb2Header,
  request: RequestSent | undefined,
  received: { readonly encrypted: boolean; readonly interim: boolean },
  security: ConnectionSecurity | undefined,
  currentSessionId: bigint,
): SmbError | undefined {
  if (received.encrypted) return undefined;
  const what = request ? `the reply to ${request.what}` : `a reply (message ${header.messageId})`;
  if (request?.sealed) return integrityError(`The server sent ${what} unencrypted, though the request was encrypted.`);
  const signer = security?.signer;
  const sessionId = request && request.command !== Command.sessionSetup ? request.sessionId : header.sessionId;
  if (!signer || sessionId === 0n || sessionId !== currentSessionId) return undefined;
  if (isSigned(message)) return verifyMessage(signer, message) ? undefined : integrityError(`The signature of ${what} does not verify (${signer.algorithm}).`);
  if ((security.signAll || request?.signed) && !received.interim)
    return integrityError(`The server sent ${what} unsigned, though the session signs every message.`);
  return undefined;
}

/**
 * Whether an unsolicited message (an oplock or lease break) may be believed:
 * on a session that seals everything only a sealed one, on one that signs
 * everything only one signed for this session with a signature that
 * verifies, since anyone on the path could have sent it.
 */
export function unsolicitedTrusted(
  message: Buffer,
  header: Smb2Header,
  encrypted: boolean,
  security: ConnectionSecurity | undefined,
  sessionId: bigint,
): boolean {
  if (security?.sealAll === true && !encrypted) return false;
  const signer = security?.signer;
  if (!encrypted && signer && security?.signAll === true && sessionId !== 0n)
    return isSigned(message) && header.sessionId === sessionId && verifyMessage(signer, message);
  return true;
}
