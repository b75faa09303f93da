// What each captured SMB frame says: its SMB2 messages (a compound's too,
// MS-SMB2 3.2.4.1.4), with the fields the analysis reads from their bodies
// (MS-SMB2 2.2): READ and WRITE's length, offset and file id, a READ
// response's data length, CREATE's file id and size, CLOSE's file id, the
// dialect NEGOTIATE settled on. A sealed frame (a transform header, 2.2.41)
// shows only its size and session: it is one opaque message. Nothing of a
// file's name or data is read.

import { Command, decodeHeader, HeaderFlag, SMB2_HEADER_BYTES, Status } from '../smb/protocol.js';
import type { SmbFrame } from './smb-frames.js';

export type Direction = 'request' | 'response';

export interface SmbMessage {
  readonly direction: Direction;
  readonly firstSeconds: number;
  readonly lastSeconds: number;
  /** The frame's length: a compound's messages share it. */
  readonly frameLength: number;
  /** A sealed message: only its size is known. */
  readonly sealed?: { readonly originalBytes: number; readonly sessionId: bigint };
  /** A compressed one (2.2.42): likewise opaque here. */
  readonly compressed?: true;
  /** SMB1 (a negotiate before SMB2, or an old client). */
  readonly smb1?: true;
  readonly command?: number;
  /** The header's SMB2_FLAGS_SERVER_TO_REDIR: the message came from the server. */
  readonly fromServer?: boolean;
  readonly messageId?: bigint;
  readonly creditCharge?: number;
  /** CreditRequest in a request, CreditResponse in a response. */
  readonly credits?: number;
  readonly status?: number;
  readonly signed?: boolean;
  readonly async?: boolean;
  readonly related?: boolean;
  /** READ and WRITE requests: bytes asked for or carried, at what offset, of which open. */
  readonly dataLength?: number;
  readonly offset?: bigint;
  readonly fileId?: string;
  /** A CREATE response's end of file. */
  readonly endOfFile?: bigint;
  /** A NEGOTIATE response's dialect. */
  readonly dialect?: number;
}

const TRANSFORM_HEADER_BYTES = 52;

const fileIdAt = (message: Buffer, at: number): string | undefined => (message.length >= at + 16 ? message.toString('hex', at, at + 16) : undefined);

/** The body fields of one SMB2 message that the analysis reads, where the capture kept them. */
function bodyFields(message: Buffer, command: number, response: boolean, status: number): Partial<SmbMessage> {
  const body = SMB2_HEADER_BYTES;
  const has = (bytes: number) => message.length >= body + bytes;
  if (status !== Status.success && !(response && command === Command.read && status === Status.bufferOverflow)) return {};
  switch (command) {
    case Command.read:
      // Request 2.2.19: Length at 4, Offset at 8, FileId at 16. Response 2.2.20: DataLength at 4.
      if (response) return has(8) ? { dataLength: message.readUInt32LE(body + 4) } : {};
      return has(32) ? { dataLength: message.readUInt32LE(body + 4), offset: message.readBigUInt64LE(body + 8), ...optionalFileId(message, body + 16) } : {};
    case Command.write:
      // Request 2.2.21: Length at 4, Offset at 8, FileId at 16. Response 2.2.22: Count at 4.
      if (response) return has(8) ? { dataLength: message.readUInt32LE(body + 4) } : {};
      return has(32) ? { dataLength: message.readUInt32LE(body + 4), offset: message.readBigUInt64LE(body + 8), ...optionalFileId(message, body + 16) } : {};
    case Command.create:
      // Response 2.2.14: EndofFile at 48, FileId at 64.
      return response && has(80) ? { endOfFile: message.readBigUInt64LE(body + 48), ...optionalFileId(message, body + 64) } : {};
    case Command.close:
      // Request 2.2.15: FileId at 8.
      return !response ? optionalFileId(message, body + 8) : {};
    case Command.negotiate:
      // Response 2.2.4: DialectRevision at 4.
      return response && has(6) ? { dialect: message.readUInt16LE(body + 4) } : {};
    default:
      return {};
  }
}

function optionalFileId(message: Buffer, at: number): { fileId?: string } {
  const id = fileIdAt(message, at);
  return id === undefined ? {} : { fileId: id };
}

/** The messages in one frame, as far as the capture kept them; a frame whose head was cut short gives what it holds. */
export function messagesOf(frame: SmbFrame, direction: Direction): SmbMessage[] {
  const { head } = frame;
  const base = { direction, firstSeconds: frame.firstSeconds, lastSeconds: frame.lastSeconds, frameLength: frame.length };
  const protocol = head[0];
  if (head.length < 4 || head.toString('latin1', 1, 4) !== 'SMB') return [];
  if (protocol === 0xfd) {
    if (head.length < TRANSFORM_HEADER_BYTES) return [{ ...base, sealed: { originalBytes: frame.length - TRANSFORM_HEADER_BYTES, sessionId: 0n } }];
    return [{ ...base, sealed: { originalBytes: head.readUInt32LE(36), sessionId: head.readBigUInt64LE(44) } }];
  }
  if (protocol === 0xfc) return [{ ...base, compressed: true }];
  if (protocol === 0xff) return [{ ...base, smb1: true }];
  if (protocol !== 0xfe) return [];
  const messages: SmbMessage[] = [];
  let offset = 0;
  // A compound holds a handful of messages; the bound keeps a crafted chain from looping.
  for (let guard = 0; guard < 64 && offset + SMB2_HEADER_BYTES <= head.length; guard++) {
    const part = head.subarray(offset);
    let header;
    try {
      header = decodeHeader(part);
    } catch {
      break;
    }
    const next = header.nextCommand;
    const message = next > 0 && next <= part.length ? part.subarray(0, next) : part;
    const response = (header.flags & HeaderFlag.serverToRedirector) !== 0;
    messages.push({
      ...base,
      command: header.command,
      fromServer: response,
      messageId: header.messageId,
      creditCharge: header.creditCharge,
      credits: header.credits,
      status: header.status,
      signed: (header.flags & HeaderFlag.signed) !== 0,
      async: (header.flags & HeaderFlag.asyncCommand) !== 0,
      related: (header.flags & HeaderFlag.relatedOperations) !== 0,
      ...bodyFields(message, header.command, response, header.status),
    });
    // MS-SMB2 3.2.4.1.4: each compounded message starts 8-byte aligned at NextCommand; anything else ends the chain.
    if (next === 0 || next < SMB2_HEADER_BYTES || next % 8 !== 0) break;
    offset += next;
  }
  return messages;
}
