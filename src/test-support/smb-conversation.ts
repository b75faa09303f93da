// An SMB2 conversation written as TCP segments for the capture reader's
// tests: a handshake, then messages each way at given times, each cut into
// segments of at most `mss` bytes. Its requests and responses carry the
// header fields and body fields the analysis reads (MS-SMB2 2.2).

import { Command, encodeHeader, HeaderFlag, Status } from '../smb/protocol.js';
import type { SegmentSpec } from './pcap-builder.js';

export const CLIENT: [string, number] = ['192.0.2.10', 51_000];
export const SERVER: [string, number] = ['192.0.2.20', 445];
const MIB = 2 ** 20;

export interface Message {
  readonly seconds: number;
  /** When its last segment went (default: with its first): the segments between are spread evenly. */
  readonly lastSeconds?: number;
  readonly fromServer: boolean;
  readonly bytes: Buffer;
}

interface HeaderFields {
  readonly command: number;
  readonly messageId: bigint;
  readonly credits?: number;
  readonly creditCharge?: number;
  readonly status?: number;
  readonly response?: boolean;
  readonly async?: boolean;
}

/** An SMB2 message: the header, then `body`. */
export function smb2(fields: HeaderFields, body: Buffer): Buffer {
  const header = encodeHeader({
    creditCharge: fields.creditCharge ?? 1,
    command: fields.command,
    credits: fields.credits ?? 1,
    flags: (fields.response ? HeaderFlag.serverToRedirector : 0) | (fields.async ? HeaderFlag.asyncCommand : 0),
    nextCommand: 0,
    messageId: fields.messageId,
    treeId: 1,
    sessionId: 0x11n,
    ...(fields.status === undefined ? {} : { status: fields.status }),
  });
  return Buffer.concat([header, body]);
}

const fileIdBytes = (id: number) => {
  const bytes = Buffer.alloc(16);
  bytes.writeUInt32LE(id, 0);
  return bytes;
};

export function writeRequest(messageId: bigint, fileId: number, offset: number, length: number, charge = Math.ceil(length / 65_536)): Buffer {
  const body = Buffer.alloc(48);
  body.writeUInt16LE(49, 0);
  body.writeUInt16LE(64 + 48, 2);
  body.writeUInt32LE(length, 4);
  body.writeBigUInt64LE(BigInt(offset), 8);
  fileIdBytes(fileId).copy(body, 16);
  return smb2({ command: Command.write, messageId, creditCharge: charge, credits: 64 }, Buffer.concat([body, Buffer.alloc(length, 0x5a)]));
}

export function writeResponse(messageId: bigint, length: number, credits = 1, charge = 1): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt16LE(17, 0);
  body.writeUInt32LE(length, 4);
  return smb2({ command: Command.write, messageId, response: true, credits, creditCharge: charge, status: Status.success }, body);
}

export function readRequest(messageId: bigint, fileId: number, offset: number, length: number, charge = Math.ceil(length / 65_536)): Buffer {
  const body = Buffer.alloc(49);
  body.writeUInt16LE(49, 0);
  body.writeUInt32LE(length, 4);
  body.writeBigUInt64LE(BigInt(offset), 8);
  fileIdBytes(fileId).copy(body, 16);
  return smb2({ command: Command.read, messageId, creditCharge: charge, credits: 64 }, body);
}

export function readResponse(messageId: bigint, length: number, credits = 1, charge = 1): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt16LE(17, 0);
  body[2] = 80;
  body.writeUInt32LE(length, 4);
  return smb2(
    { command: Command.read, messageId, response: true, credits, creditCharge: charge, status: Status.success },
    Buffer.concat([body, Buffer.alloc(length, 0xa5)]),
  );
}

export function negotiateRequest(): Buffer {
  return smb2({ command: Command.negotiate, messageId: 0n, creditCharge: 0, credits: 1 }, Buffer.alloc(36));
}

export function negotiateResponse(dialect: number, credits: number): Buffer {
  const body = Buffer.alloc(65);
  body.writeUInt16LE(65, 0);
  body.writeUInt16LE(dialect, 4);
  return smb2({ command: Command.negotiate, messageId: 0n, response: true, credits, status: Status.success }, body);
}

export function createRequest(messageId: bigint): Buffer {
  return smb2({ command: Command.create, messageId, credits: 64 }, Buffer.alloc(57));
}

export function createResponse(messageId: bigint, fileId: number, credits = 1): Buffer {
  const body = Buffer.alloc(89);
  body.writeUInt16LE(89, 0);
  fileIdBytes(fileId).copy(body, 64);
  return smb2({ command: Command.create, messageId, response: true, credits, status: Status.success }, body);
}

export function closeRequest(messageId: bigint, fileId: number): Buffer {
  const body = Buffer.alloc(24);
  body.writeUInt16LE(24, 0);
  fileIdBytes(fileId).copy(body, 8);
  return smb2({ command: Command.close, messageId, credits: 1 }, body);
}

export function closeResponse(messageId: bigint, credits = 1): Buffer {
  return smb2({ command: Command.close, messageId, response: true, credits, status: Status.success }, Buffer.alloc(60));
}

/**
 * The conversation's segments: a handshake (round trip `rttSeconds`, starting at 0), then each message framed and
 * cut at `mss`. `lengthApart`: each frame's 4-byte length in a segment of its own, as go-smb2 sends it.
 */
export function conversation(
  messages: readonly Message[],
  options: { rttSeconds?: number; mss?: number; snap?: number; windowScale?: number; lengthApart?: boolean } = {},
): SegmentSpec[] {
  const rtt = options.rttSeconds ?? 0.02;
  const mss = options.mss ?? 1448;
  const scale = options.windowScale === undefined ? {} : { windowScale: options.windowScale };
  const segments: SegmentSpec[] = [
    { seconds: 0, from: CLIENT, to: SERVER, seq: 1000, flags: 0x02, mss, ...scale },
    { seconds: rtt / 2, from: SERVER, to: CLIENT, seq: 5000, ack: 1001, flags: 0x12, mss, ...scale },
    { seconds: rtt, from: CLIENT, to: SERVER, seq: 1001, ack: 5001, flags: 0x10 },
  ];
  const next = { client: 1001, server: 5001 };
  for (const message of messages) {
    const framed = Buffer.alloc(4 + message.bytes.length);
    framed.writeUInt32BE(message.bytes.length, 0);
    message.bytes.copy(framed, 4);
    const side = message.fromServer ? 'server' : 'client';
    const pieces: Buffer[] = [];
    const body = options.lengthApart ? framed.subarray(4) : framed;
    if (options.lengthApart) pieces.push(framed.subarray(0, 4));
    for (let at = 0; at < body.length; at += mss) pieces.push(body.subarray(at, at + mss));
    const count = pieces.length;
    for (const [index, payload] of pieces.entries()) {
      const spread = count > 1 && message.lastSeconds !== undefined ? ((message.lastSeconds - message.seconds) * index) / (count - 1) : 0;
      segments.push({
        seconds: message.seconds + spread,
        from: message.fromServer ? SERVER : CLIENT,
        to: message.fromServer ? CLIENT : SERVER,
        seq: next[side],
        payload,
        ...(options.snap === undefined ? {} : { snap: options.snap }),
      });
      next[side] += payload.length;
    }
  }
  return segments;
}

/** A client that opens file 7, writes `count` requests of 1 MiB keeping `depth` in flight over a path of `rttSeconds`, and closes it. */
export function pipelinedWriteMessages(count: number, depth: number, credits: number, rttSeconds: number): Message[] {
  const messages: Message[] = [
    { seconds: 0.03, fromServer: false, bytes: negotiateRequest() },
    { seconds: 0.04, fromServer: true, bytes: negotiateResponse(0x0311, credits) },
    { seconds: 0.05, fromServer: false, bytes: createRequest(1n) },
    { seconds: 0.05 + rttSeconds, fromServer: true, bytes: createResponse(1n, 7) },
  ];
  // Request i goes when request i - depth is answered: a closed pipeline, one round trip per wave.
  const start = 0.1;
  for (let i = 0; i < count; i++) {
    const sent = start + Math.floor(i / depth) * rttSeconds;
    messages.push({ seconds: sent, fromServer: false, bytes: writeRequest(BigInt(2 + i), 7, i * MIB, MIB) });
    messages.push({ seconds: sent + rttSeconds - 0.0001, fromServer: true, bytes: writeResponse(BigInt(2 + i), MIB, 16, 16) });
  }
  const end = start + Math.ceil(count / depth) * rttSeconds;
  messages.push({ seconds: end, fromServer: false, bytes: closeRequest(BigInt(2 + count), 7) });
  messages.push({ seconds: end + rttSeconds, fromServer: true, bytes: closeResponse(BigInt(2 + count)) });
  return messages.sort((a, b) => a.seconds - b.seconds);
}
