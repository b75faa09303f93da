// What a reply must be before the connection acts on it: an SMB2 header, an
// answer to a request Pipefill sent and has not had answered, of that
// request's command, with a bounded number of interim replies; and what an
// unsolicited message may be. Each rule broken is a protocol error a person
// can read. Pure.

import { SmbError } from './errors.js';
import type { Smb2Header } from './protocol.js';
import { decodeHeader } from './protocol.js';

/** MS-SMB2 2.2.23: oplock and lease break notifications carry this message id; they answer nothing. */
export const UNSOLICITED_MESSAGE_ID = 0xffffffffffffffffn;
/**
 * Unsolicited messages (oplock and lease break notifications, MS-SMB2
 * 2.2.23, 2.2.24) are small, and Pipefill asks for no oplock or lease, so a
 * server has little reason to send any: one larger than this, or more than
 * MAX_UNSOLICITED_MESSAGES of them on a connection, fails it.
 */
export const MAX_UNSOLICITED_MESSAGE_BYTES = 1024;
export const MAX_UNSOLICITED_MESSAGES = 64;
/** A server sends one interim reply per request it takes async (MS-SMB2 3.3.4.2); a stream of them is not progress. */
export const MAX_INTERIM_REPLIES = 4;

const MISBEHAVING = 'The server, or something on the path to it, is misbehaving.';

/** A message's SMB2 header, or the error for one that is not SMB2. */
export function decodeReply(message: Buffer): Smb2Header | SmbError {
  try {
    return decodeHeader(message);
  } catch (error) {
    return new SmbError(
      'protocol',
      `The server sent something that is not SMB2: ${String(error)}.`,
      'Is this port an SMB2 server (SMB1-only servers are not supported)?',
      undefined,
      { cause: error },
    );
  }
}

/** A reply to a message id Pipefill never sent, or whose answer it has had. */
export function unknownReply(header: Smb2Header): SmbError {
  return new SmbError('protocol', `The server sent a reply to message ${header.messageId}, which Pipefill never sent or has had its answer to.`, MISBEHAVING);
}

/** The error for a reply that answers no outstanding request, or answers one with another command; undefined for a match. */
export function replyMismatch(header: Smb2Header, request: { readonly what: string; readonly command: number } | undefined): SmbError | undefined {
  if (!request) return unknownReply(header);
  if (header.command !== request.command)
    return new SmbError('protocol', `The server answered ${request.what} with a reply of another command (0x${header.command.toString(16)}).`, MISBEHAVING);
  return undefined;
}

/** The error once a request has had more interim replies than a server sends (one per request it takes async). */
export function tooManyInterims(interims: number, what: string): SmbError | undefined {
  return interims > MAX_INTERIM_REPLIES
    ? new SmbError('protocol', `The server sent ${interims} interim replies to ${what} and no answer.`, MISBEHAVING)
    : undefined;
}

/** The error for an unsolicited message larger than a break notification, or one too many on the connection. */
export function unsolicitedRefusal(messageBytes: number, count: number): SmbError | undefined {
  if (messageBytes <= MAX_UNSOLICITED_MESSAGE_BYTES && count <= MAX_UNSOLICITED_MESSAGES) return undefined;
  const why = messageBytes > MAX_UNSOLICITED_MESSAGE_BYTES ? `of ${messageBytes} bytes` : `number ${count}`;
  return new SmbError('protocol', `The server sent an unsolicited message ${why}; a break notification is smaller and rarer.`, MISBEHAVING);
}
