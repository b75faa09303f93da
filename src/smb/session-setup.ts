// SESSION_SETUP's request and response (MS-SMB2 2.2.5, 2.2.6): the logon's
// messages (logon.ts), and the one-step ask for a server's NTLM challenge
// (server-identity.ts).

import { SmbError } from './errors.js';
import { SecurityMode } from './negotiate.js';
import type { SmbResponse } from './request-frames.js';

/** SESSION_SETUP request (MS-SMB2 2.2.5): 24 fixed bytes, then the security blob at offset 88. */
export function sessionSetupRequest(blob: Buffer, signingRequired: boolean): Buffer {
  const body = Buffer.alloc(24 + blob.length);
  body.writeUInt16LE(25, 0);
  body.writeUInt8(signingRequired ? SecurityMode.signingRequired : SecurityMode.signingEnabled, 3);
  body.writeUInt16LE(64 + 24, 12);
  body.writeUInt16LE(blob.length, 14);
  blob.copy(body, 24);
  return body;
}

/** SESSION_SETUP response (MS-SMB2 2.2.6): its flags and security blob, the blob's place checked. */
export function parseSessionSetup(response: SmbResponse): { flags: number; blob: Buffer } {
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
