// Request bodies and reply parsers, one small function per SMB2 message.
// Control messages go through node-smb2's packet structures; CREATE, READ,
// WRITE and QUERY_INFO are encoded here (see node-smb2.ts for why).

import { SmbError } from './errors.js';
import { encodeBody } from './node-smb2.js';

/**
 * Every reply is the server's word, not a fact: a field that puts a length
 * or an offset outside the message, or a body shorter than its command's
 * fixed part, fails at once with a typed `protocol` error, before any of it
 * is used (MS-SMB2 3.2.5.1.x: the client verifies each response's structure).
 */
function malformed(what: string, detail: string): SmbError {
  return new SmbError(
    'protocol',
    `The server's ${what} reply is malformed: ${detail}.`,
    'The server, or something on the path to it, is misbehaving; its log may say more.',
  );
}

function needBytes(body: Buffer, bytes: number, what: string): void {
  if (body.length < bytes) throw malformed(what, `${body.length} bytes where the fixed part alone is ${bytes}`);
}

/**
 * The slice [offsetFromHeader - 64, + length) of a reply body, checked to lie
 * inside it. Offsets in SMB2 replies count from the start of the 64-byte header.
 */
function bodySlice(body: Buffer, offsetFromHeader: number, length: number, fixedBytes: number, what: string): Buffer {
  if (length === 0) return body.subarray(0, 0);
  const start = offsetFromHeader - 64;
  if (start < fixedBytes || start + length > body.length)
    throw malformed(what, `its data (${length} bytes at offset ${offsetFromHeader}) lies outside the ${64 + body.length}-byte message`);
  return body.subarray(start, start + length);
}

export const Access = {
  readData: 0x1,
  listDirectory: 0x1,
  writeData: 0x2,
  appendData: 0x4,
  readAttributes: 0x80,
  writeAttributes: 0x100,
  delete: 0x10000,
  readControl: 0x20000,
  synchronize: 0x100000,
} as const;

export const Disposition = { open: 1, create: 2, openIf: 3, overwriteIf: 5 } as const;
/** MS-SMB2 2.2.13 CreateOptions; FILE_OPEN_REPARSE_POINT opens a link itself, never what it points to. */
export const CreateOption = { directory: 0x1, nonDirectory: 0x40, deleteOnClose: 0x1000, openReparsePoint: 0x200000 } as const;
export const ShareAccess = { read: 0x1, write: 0x2, delete: 0x4 } as const;
const SHARE_ALL = ShareAccess.read | ShareAccess.write | ShareAccess.delete;
const ATTRIBUTE_NORMAL = 0x80;
const ATTRIBUTE_DIRECTORY = 0x10;
const ATTRIBUTE_REPARSE_POINT = 0x400;

export const InfoType = { file: 1, fileSystem: 2 } as const;
export const FileInfoClass = {
  basic: 4,
  standard: 5,
  internal: 6,
  stream: 22,
  networkOpen: 34,
  attributeTag: 35,
  disposition: 13,
  allocation: 19,
  endOfFile: 20,
  fsAttribute: 5,
} as const;

// --- ECHO / LOGOFF / TREE_DISCONNECT -----------------------------------------------

export const emptyRequest = (name: 'echo' | 'logoff' | 'treeDisconnect'): Buffer => encodeBody(name, {});

// --- CREATE / CLOSE -----------------------------------------------------------------

export interface CreateParams {
  readonly path: string;
  readonly access: number;
  readonly disposition: number;
  readonly options: number;
  readonly directory?: boolean;
  /** Whom else the server lets open the file meanwhile; default read, write and delete. */
  readonly shareAccess?: number;
}

/** MS-SMB2 2.2.13: 56 fixed bytes, then the UTF-16 name at offset 120 from the header. */
export function createRequest(params: CreateParams): Buffer {
  const name = Buffer.from(params.path, 'utf16le');
  const body = Buffer.alloc(56 + Math.max(1, name.length));
  body.writeUInt16LE(57, 0);
  body.writeUInt32LE(2, 4); // impersonation level: Impersonation
  body.writeUInt32LE(params.access | Access.synchronize, 24);
  body.writeUInt32LE(params.directory ? ATTRIBUTE_DIRECTORY : ATTRIBUTE_NORMAL, 28);
  body.writeUInt32LE(params.shareAccess ?? SHARE_ALL, 32);
  body.writeUInt32LE(params.disposition, 36);
  body.writeUInt32LE(params.options, 40);
  // 120 even for the share root's empty name, as Windows and smbclient send it: one server crashed on 0 for every user.
  body.writeUInt16LE(120, 44);
  body.writeUInt16LE(name.length, 46);
  name.copy(body, 56);
  return body;
}

export interface CreateResult {
  readonly fileId: Buffer;
  readonly endOfFile: number;
  readonly isDirectory: boolean;
  /** FILE_ATTRIBUTE_REPARSE_POINT on what was opened (MS-FSCC 2.6). */
  readonly isReparsePoint: boolean;
  /** The server's clock: CreationTime, LastWriteTime, ChangeTime as FILETIMEs (MS-SMB2 2.2.14). */
  readonly times: FileTimes;
}

/** Times as the server keeps them (FILETIME: 100 ns since 1601), never the client's clock. */
export interface FileTimes {
  readonly created: bigint;
  readonly written: bigint;
  readonly changed: bigint;
}

/** The latest of a file's times: what "how long since anyone touched it" is measured from. */
export const latestTime = (times: FileTimes): bigint =>
  [times.created, times.written, times.changed].reduce((latest, time) => (time > latest ? time : latest), 0n);

/** A FILETIME of this many milliseconds. */
export const filetimeSpan = (ms: number): bigint => BigInt(Math.round(ms)) * 10_000n;

/** MS-SMB2 2.2.14: 88 fixed bytes. */
export function parseCreate(body: Buffer): CreateResult {
  needBytes(body, 88, 'CREATE');
  const endOfFile = body.readBigUInt64LE(48);
  if (endOfFile > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed('CREATE', `a file size of ${endOfFile} bytes`);
  const attributes = body.readUInt32LE(56);
  return {
    endOfFile: Number(body.readBigUInt64LE(48)),
    isDirectory: (attributes & ATTRIBUTE_DIRECTORY) !== 0,
    isReparsePoint: (attributes & ATTRIBUTE_REPARSE_POINT) !== 0,
    fileId: Buffer.from(body.subarray(64, 80)),
    times: { created: body.readBigUInt64LE(8), written: body.readBigUInt64LE(24), changed: body.readBigUInt64LE(32) },
  };
}

export const closeRequest = (fileId: Buffer): Buffer => encodeBody('close', { fileId: fileId.toString('hex') });
export const flushRequest = (fileId: Buffer): Buffer => encodeBody('flush', { fileId: fileId.toString('hex') });

// --- READ / WRITE --------------------------------------------------------------------

/** MS-SMB2 2.2.19: 48 fixed bytes and one byte of buffer. */
export function readRequest(fileId: Buffer, offset: number, length: number): Buffer {
  const body = Buffer.alloc(49);
  body.writeUInt16LE(49, 0);
  body.writeUInt8(0x50, 2); // padding: ask for the data right after the 80-byte reply header
  body.writeUInt32LE(length, 4);
  body.writeBigUInt64LE(BigInt(offset), 8);
  fileId.copy(body, 16);
  return body;
}

/**
 * The data of a READ reply (MS-SMB2 2.2.20: 16 fixed bytes), as a slice of
 * the received message (no copy). More data than was asked for is a lie, not
 * a bonus.
 */
export function parseRead(body: Buffer, asked: number): Buffer {
  needBytes(body, 16, 'READ');
  const length = body.readUInt32LE(4);
  if (length > asked) throw malformed('READ', `${length} bytes of data for a read of ${asked}`);
  return bodySlice(body, body.readUInt8(2), length, 16, 'READ');
}

/** MS-SMB2 2.2.21: 48 fixed bytes; the data follows as the request's payload. */
export function writeRequest(fileId: Buffer, offset: number, length: number): Buffer {
  const body = Buffer.alloc(48);
  body.writeUInt16LE(49, 0);
  body.writeUInt16LE(64 + 48, 2);
  body.writeUInt32LE(length, 4);
  body.writeBigUInt64LE(BigInt(offset), 8);
  fileId.copy(body, 16);
  return body;
}

/** MS-SMB2 2.2.22: 16 fixed bytes; the count written, never more than was sent. */
export function parseWrite(body: Buffer, sent: number): number {
  needBytes(body, 16, 'WRITE');
  const count = body.readUInt32LE(4);
  if (count > sent) throw malformed('WRITE', `${count} bytes written of ${sent} sent`);
  return count;
}

// --- QUERY_INFO / SET_INFO / QUERY_DIRECTORY -----------------------------------------

/** MS-SMB2 2.2.37: 40 fixed bytes and one byte of buffer. */
export function queryInfoRequest(fileId: Buffer, infoType: number, infoClass: number, outputBytes = 4096): Buffer {
  const body = Buffer.alloc(41);
  body.writeUInt16LE(41, 0);
  body.writeUInt8(infoType, 2);
  body.writeUInt8(infoClass, 3);
  body.writeUInt32LE(outputBytes, 4);
  fileId.copy(body, 24);
  return body;
}

/** MS-SMB2 2.2.38: 8 fixed bytes, then the output buffer where its offset says. */
export function parseQueryInfo(body: Buffer, asked = 4096): Buffer {
  needBytes(body, 8, 'QUERY_INFO');
  const length = body.readUInt32LE(4);
  if (length > asked) throw malformed('QUERY_INFO', `${length} bytes of output for ${asked} asked`);
  return bodySlice(body, body.readUInt16LE(2), length, 8, 'QUERY_INFO');
}

export function setInfoRequest(fileId: Buffer, infoClass: number, value: Buffer): Buffer {
  return encodeBody('setInfo', { infoType: InfoType.file, fileInfoClass: infoClass, fileId: fileId.toString('hex'), buffer: value });
}

/** FILE_BASIC_INFORMATION with every time "unchanged" (0) except last-write, as a copy tool stamps it. */
export function basicInfo(lastWrite: Date): Buffer {
  const value = Buffer.alloc(40);
  const filetime = BigInt(lastWrite.getTime()) * 10_000n + 116_444_736_000_000_000n;
  value.writeBigUInt64LE(filetime, 16);
  return value;
}

export interface StandardInfo {
  readonly links: number;
  readonly deletePending: boolean;
  readonly isDirectory: boolean;
}

/** FILE_STANDARD_INFORMATION (MS-FSCC 2.4.41): AllocationSize, EndOfFile, NumberOfLinks, DeletePending, Directory. */
export function parseStandardInfo(value: Buffer): StandardInfo {
  needBytes(value, 22, 'QUERY_INFO FileStandardInformation');
  return { links: value.readUInt32LE(16), deletePending: value.readUInt8(20) !== 0, isDirectory: value.readUInt8(21) !== 0 };
}

/** FILE_INTERNAL_INFORMATION (MS-FSCC 2.4.22): IndexNumber, the file's own id on its volume (its inode on smbd). */
export function parseInternalInfo(value: Buffer): bigint {
  needBytes(value, 8, 'QUERY_INFO FileInternalInformation');
  return value.readBigUInt64LE(0);
}

export function sizeInfo(bytes: number): Buffer {
  const value = Buffer.alloc(8);
  value.writeBigUInt64LE(BigInt(bytes));
  return value;
}

export const QueryDirectoryFlag = { restartScans: 0x1, returnSingleEntry: 0x2 } as const;

export function queryDirectoryRequest(fileId: Buffer, pattern: string, flags: number): Buffer {
  return encodeBody('queryDirectory', { fileId: fileId.toString('hex'), buffer: Buffer.from(pattern, 'utf16le'), flags, fileInformationClass: 37 });
}

export interface DirectoryEntry {
  readonly name: string;
  readonly isDirectory: boolean;
  /** FILE_ATTRIBUTE_REPARSE_POINT (MS-FSCC 2.6): a symlink, junction or mount point, never to be walked into. */
  readonly isReparsePoint: boolean;
  readonly bytes: number;
  /** The server's id of the file (its inode on smbd; 0 where the server keeps none). */
  readonly fileId: bigint;
  /** Its times on the server's clock. */
  readonly times: FileTimes;
}

/** What a QUERY_DIRECTORY asks for at most (node-smb2's request default); a reply may not carry more. */
export const DIRECTORY_OUTPUT_BYTES = 0x10000;
/** FileIdBothDirectoryInformation's fixed part: the name starts here (MS-FSCC 2.4.17). */
const DIRECTORY_ENTRY_BYTES = 104;

/**
 * Entries of a FileIdBothDirectoryInformation listing (MS-SMB2 2.2.34, MS-FSCC
 * 2.4.17). Each entry must lie inside the buffer with its name; the next one
 * must start after it, 8-byte aligned (MS-FSCC 2.4: NextEntryOffset), so
 * entries never overlap and the names decoded add up to at most the reply.
 */
export function parseDirectoryEntries(body: Buffer): DirectoryEntry[] {
  needBytes(body, 8, 'QUERY_DIRECTORY');
  const length = body.readUInt32LE(4);
  if (length > DIRECTORY_OUTPUT_BYTES) throw malformed('QUERY_DIRECTORY', `${length} bytes of listing for ${DIRECTORY_OUTPUT_BYTES} asked`);
  const buffer = bodySlice(body, body.readUInt16LE(2), length, 8, 'QUERY_DIRECTORY');
  const entries: DirectoryEntry[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    if (offset + DIRECTORY_ENTRY_BYTES > buffer.length) throw malformed('QUERY_DIRECTORY', `an entry at ${offset} runs past the ${buffer.length}-byte listing`);
    const next = buffer.readUInt32LE(offset);
    const nameLength = buffer.readUInt32LE(offset + 60);
    const entryEnd = offset + DIRECTORY_ENTRY_BYTES + nameLength;
    if (nameLength % 2 !== 0 || entryEnd > buffer.length)
      throw malformed('QUERY_DIRECTORY', `a name of ${nameLength} bytes at ${offset} runs past the listing`);
    if (next !== 0 && (next % 8 !== 0 || offset + next < entryEnd || offset + next >= buffer.length))
      throw malformed('QUERY_DIRECTORY', `entry ${entries.length + 1} points its successor to ${offset + next}, inside itself or outside the listing`);
    entries.push({
      name: buffer.subarray(offset + DIRECTORY_ENTRY_BYTES, entryEnd).toString('utf16le'),
      isDirectory: (buffer.readUInt32LE(offset + 56) & ATTRIBUTE_DIRECTORY) !== 0,
      isReparsePoint: (buffer.readUInt32LE(offset + 56) & ATTRIBUTE_REPARSE_POINT) !== 0,
      bytes: Number(buffer.readBigUInt64LE(offset + 40)),
      fileId: buffer.readBigUInt64LE(offset + 96),
      times: { created: buffer.readBigUInt64LE(offset + 8), written: buffer.readBigUInt64LE(offset + 24), changed: buffer.readBigUInt64LE(offset + 32) },
    });
    if (next === 0) break;
    offset += next;
  }
  return entries;
}
