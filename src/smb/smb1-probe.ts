// Whether a server that refused every SMB 2 and 3 dialect speaks SMB1: one
// SMB_COM_NEGOTIATE (MS-CIFS 2.2.4.52.1) offering only "NT LM 0.12", the
// dialect every SMB1 server since Windows NT 4 speaks, on a connection of its
// own. Windows 10 (from 1709) and Windows 11 ship without SMB1, so such a
// server is one no current client reaches, and the person must hear that
// rather than "check the min and max protocol" (issue 50). Pipefill speaks no
// more of SMB1 than this one exchange.

import { Socket } from 'node:net';

export const SMB1_DIALECT = 'NT LM 0.12';

/** MS-CIFS 2.2.3.1: the SMB header's Protocol field, "\xFFSMB". */
const SMB1_PROTOCOL = 0xff534d42;
/** MS-CIFS 2.2.2.1: SMB_COM_NEGOTIATE. */
const SMB_COM_NEGOTIATE = 0x72;
const HEADER_BYTES = 32;
/** A negotiate response is a few hundred bytes; anything past this is not one. */
const MAX_REPLY_BYTES = 64 * 1024;

/**
 * The request, framed for direct TCP (a zero byte and a 24-bit length,
 * MS-SMB2 2.1): the 32-byte header (MS-CIFS 2.2.3.1) with Flags 0x18 (paths
 * caseless and canonical) and Flags2 0x4001 (long names, NT status codes),
 * WordCount 0, then ByteCount and the one dialect as BufferFormat 0x02 and
 * an OEM string ending in a zero byte (MS-CIFS 2.2.4.52.1).
 */
export function smb1NegotiateRequest(): Buffer {
  const dialects = Buffer.concat([Buffer.from([0x02]), Buffer.from(SMB1_DIALECT, 'latin1'), Buffer.from([0])]);
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(SMB1_PROTOCOL, 0);
  header[4] = SMB_COM_NEGOTIATE;
  header[9] = 0x18;
  header.writeUInt16LE(0x4001, 10);
  // TID 0xFFFF: no tree yet (MS-CIFS 2.2.3.1); PIDLow, UID and MID stay 0.
  header.writeUInt16LE(0xffff, 24);
  const byteCount = Buffer.alloc(2);
  byteCount.writeUInt16LE(dialects.length, 0);
  const message = Buffer.concat([header, Buffer.from([0]), byteCount, dialects]);
  const frame = Buffer.alloc(4);
  frame.writeUInt32BE(message.length, 0);
  return Buffer.concat([frame, message]);
}

/**
 * Whether `message` (the frame's payload) is an SMB1 NEGOTIATE response that
 * chose the dialect offered: Protocol "\xFFSMB", command 0x72, status 0, and
 * DialectIndex 0 (0xFFFF is "none of them", MS-CIFS 2.2.4.52.2).
 */
export function acceptsSmb1(message: Buffer): boolean {
  if (message.length < HEADER_BYTES + 3) return false;
  if (message.readUInt32BE(0) !== SMB1_PROTOCOL || message[4] !== SMB_COM_NEGOTIATE || message.readUInt32LE(5) !== 0) return false;
  const wordCount = message[HEADER_BYTES] ?? 0;
  return wordCount >= 1 && message.readUInt16LE(HEADER_BYTES + 1) === 0;
}

/** Asks `host:port` for SMB1 (at most `timeoutMs`); false on any refusal, hang-up, silence or reply that is not one. */
export function speaksSmb1(host: string, port: number, options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {}): Promise<boolean> {
  return new Promise((resolve) => {
    if (options.signal?.aborted) {
      resolve(false);
      return;
    }
    const socket = new Socket();
    let received = Buffer.alloc(0);
    const done = (answer: boolean) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      socket.destroy();
      resolve(answer);
    };
    const abort = () => done(false);
    const timer = setTimeout(() => done(false), options.timeoutMs ?? 3_000);
    options.signal?.addEventListener('abort', abort, { once: true });
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4) return;
      const length = received.readUInt32BE(0) & 0xffffff;
      if (received[0] !== 0 || length > MAX_REPLY_BYTES) return done(false);
      if (received.length >= 4 + length) done(acceptsSmb1(received.subarray(4, 4 + length)));
    });
    socket.connect(port, host, () => socket.write(smb1NegotiateRequest()));
  });
}
