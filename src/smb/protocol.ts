// SMB2 wire constants and the 64-byte header (MS-SMB2 2.2.1). Encoded and
// decoded here rather than through node-smb2's generic structure walker,
// because every read and write of the data path passes through it.

export const SMB2_HEADER_BYTES = 64;
const PROTOCOL_ID = 0x424d53fe; // 0xFE 'S' 'M' 'B', little-endian

export const Command = {
  negotiate: 0x00,
  sessionSetup: 0x01,
  logoff: 0x02,
  treeConnect: 0x03,
  treeDisconnect: 0x04,
  create: 0x05,
  close: 0x06,
  flush: 0x07,
  read: 0x08,
  write: 0x09,
  echo: 0x0d,
  queryDirectory: 0x0e,
  queryInfo: 0x10,
  setInfo: 0x11,
} as const;
export type CommandCode = (typeof Command)[keyof typeof Command];

export const HeaderFlag = {
  serverToRedirector: 0x1,
  asyncCommand: 0x2,
  relatedOperations: 0x4,
  signed: 0x8,
} as const;

/** NT status codes Pipefill tells apart (MS-ERREF 2.3.1). */
export const Status = {
  success: 0x00000000,
  pending: 0x00000103,
  moreProcessingRequired: 0xc0000016,
  noMoreFiles: 0x80000006,
  bufferOverflow: 0x80000005,
  endOfFile: 0xc0000011,
  noSuchFile: 0xc000000f,
  invalidParameter: 0xc000000d,
  accessDenied: 0xc0000022,
  objectNameInvalid: 0xc0000033,
  objectNameNotFound: 0xc0000034,
  objectNameCollision: 0xc0000035,
  objectPathNotFound: 0xc000003a,
  sharingViolation: 0xc0000043,
  logonFailure: 0xc000006d,
  accountRestriction: 0xc000006e,
  passwordExpired: 0xc0000071,
  accountDisabled: 0xc0000072,
  badNetworkName: 0xc00000cc,
  mediaWriteProtected: 0xc00000a2,
  diskFull: 0xc000007f,
  directoryNotEmpty: 0xc0000101,
  networkSessionExpired: 0xc000035c,
  userSessionDeleted: 0xc0000203,
  insufficientResources: 0xc000009a,
  cancelled: 0xc0000120,
  notSupported: 0xc00000bb,
  ntlmBlocked: 0xc0000418,
  invalidHandle: 0xc0000008,
  fileClosed: 0xc0000128,
  /** MS-ERREF 2.3.1: the server's clock and the ticket's differ by more than Kerberos allows. */
  timeDifferenceAtDc: 0xc0000133,
} as const;

export const Dialect = { smb202: 0x0202, smb210: 0x0210 } as const;

/** GLOBAL_CAP_LARGE_MTU: the server takes reads and writes over 64 KiB, charged in credits. */
export const CAP_LARGE_MTU = 0x4;

export interface Smb2Header {
  creditCharge: number;
  status: number;
  command: number;
  /** CreditRequest in a request, CreditResponse (credits granted) in a response. */
  credits: number;
  flags: number;
  nextCommand: number;
  messageId: bigint;
  /** Sync header: the tree id. */
  treeId: number;
  /** Async header (interim responses): the async id. */
  asyncId: bigint;
  sessionId: bigint;
}

export function encodeHeader(header: Omit<Smb2Header, 'status' | 'asyncId'> & { status?: number }): Buffer {
  const buffer = Buffer.alloc(SMB2_HEADER_BYTES);
  buffer.writeUInt32LE(PROTOCOL_ID, 0);
  buffer.writeUInt16LE(SMB2_HEADER_BYTES, 4);
  buffer.writeUInt16LE(header.creditCharge, 6);
  buffer.writeUInt32LE(header.status ?? 0, 8);
  buffer.writeUInt16LE(header.command, 12);
  buffer.writeUInt16LE(header.credits, 14);
  buffer.writeUInt32LE(header.flags, 16);
  buffer.writeUInt32LE(header.nextCommand, 20);
  buffer.writeBigUInt64LE(header.messageId, 24);
  buffer.writeUInt32LE(0, 32); // reserved (process id)
  buffer.writeUInt32LE(header.treeId, 36);
  buffer.writeBigUInt64LE(header.sessionId, 40);
  return buffer;
}

export function decodeHeader(message: Buffer): Smb2Header {
  if (message.length < SMB2_HEADER_BYTES || message.readUInt32LE(0) !== PROTOCOL_ID) {
    throw new Error(`Not an SMB2 message (${message.length} bytes, starts ${message.subarray(0, 4).toString('hex')}).`);
  }
  const flags = message.readUInt32LE(16);
  const isAsync = (flags & HeaderFlag.asyncCommand) !== 0;
  return {
    creditCharge: message.readUInt16LE(6),
    status: message.readUInt32LE(8),
    command: message.readUInt16LE(12),
    credits: message.readUInt16LE(14),
    flags,
    nextCommand: message.readUInt32LE(20),
    messageId: message.readBigUInt64LE(24),
    treeId: isAsync ? 0 : message.readUInt32LE(36),
    asyncId: isAsync ? message.readBigUInt64LE(32) : 0n,
    sessionId: message.readBigUInt64LE(40),
  };
}

/** Splits a compounded response into its messages (each starts 8-byte aligned at NextCommand). */
export function splitCompound(frame: Buffer): Buffer[] {
  const messages: Buffer[] = [];
  let offset = 0;
  // A compound chain holds at most a handful of messages; the bound stops a malformed chain from looping.
  for (let guard = 0; guard < 64; guard++) {
    if (offset + SMB2_HEADER_BYTES > frame.length) throw new Error(`A ${frame.length - offset}-byte SMB2 message is shorter than its header.`);
    const next = frame.readUInt32LE(offset + 20);
    // MS-SMB2 3.2.5.1.9: each compounded response starts 8-byte aligned after a whole header.
    if (next !== 0 && (next < SMB2_HEADER_BYTES || next % 8 !== 0)) throw new Error(`A compounded SMB2 response points its next message ${next} bytes on.`);
    messages.push(frame.subarray(offset, next === 0 ? frame.length : offset + next));
    if (next === 0) return messages;
    offset += next;
    if (offset + SMB2_HEADER_BYTES > frame.length) throw new Error('A compounded SMB2 response points past its end.');
  }
  throw new Error('A compounded SMB2 response chains more than 64 messages.');
}

/** The wire size of a transport frame header (Direct TCP: a zero byte and a 24-bit length). */
export const TRANSPORT_HEADER_BYTES = 4;

export function transportHeader(length: number): Buffer {
  if (length > 0xffffff) throw new Error(`An SMB2 message of ${length} bytes does not fit a transport frame.`);
  const buffer = Buffer.alloc(TRANSPORT_HEADER_BYTES);
  buffer.writeUInt32BE(length, 0);
  return buffer;
}
