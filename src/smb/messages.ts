// Request bodies and reply parsers, one small function per SMB2 message.
// Control messages go through node-smb2's packet structures; CREATE, READ,
// WRITE and QUERY_INFO are encoded here (see node-smb2.ts for why).

import { decodeBody, encodeBody } from './node-smb2.js';

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
export const CreateOption = { directory: 0x1, nonDirectory: 0x40, deleteOnClose: 0x1000 } as const;
export const ShareAccess = { read: 0x1, write: 0x2, delete: 0x4 } as const;
const SHARE_ALL = ShareAccess.read | ShareAccess.write | ShareAccess.delete;
const ATTRIBUTE_NORMAL = 0x80;
const ATTRIBUTE_DIRECTORY = 0x10;

export const InfoType = { file: 1, fileSystem: 2 } as const;
export const FileInfoClass = {
  basic: 4,
  standard: 5,
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
  body.writeUInt16LE(name.length > 0 ? 120 : 0, 44);
  body.writeUInt16LE(name.length, 46);
  name.copy(body, 56);
  return body;
}

export interface CreateResult {
  readonly fileId: Buffer;
  readonly endOfFile: number;
  readonly isDirectory: boolean;
}

export function parseCreate(body: Buffer): CreateResult {
  return {
    endOfFile: Number(body.readBigUInt64LE(48)),
    isDirectory: (body.readUInt32LE(56) & ATTRIBUTE_DIRECTORY) !== 0,
    fileId: Buffer.from(body.subarray(64, 80)),
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

/** The data of a READ reply, as a slice of the received message (no copy). */
export function parseRead(body: Buffer): Buffer {
  const dataOffset = body.readUInt8(2) - 64;
  const length = body.readUInt32LE(4);
  return body.subarray(dataOffset, dataOffset + length);
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

export const parseWrite = (body: Buffer): number => body.readUInt32LE(4);

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

export function parseQueryInfo(body: Buffer): Buffer {
  const offset = body.readUInt16LE(2) - 64;
  return body.subarray(offset, offset + body.readUInt32LE(4));
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
  readonly bytes: number;
}

/** Entries of a FileIdBothDirectoryInformation listing (MS-FSCC 2.4.17). */
export function parseDirectoryEntries(body: Buffer): DirectoryEntry[] {
  const parsed = decodeBody('queryDirectory', body);
  const buffer = parsed['buffer'];
  if (!Buffer.isBuffer(buffer)) return [];
  const entries: DirectoryEntry[] = [];
  let offset = 0;
  // Entries chain by NextEntryOffset; a listing reply is at most the 64 KiB asked for.
  for (let guard = 0; guard < 65_536 && offset + 104 <= buffer.length; guard++) {
    const next = buffer.readUInt32LE(offset);
    const nameLength = buffer.readUInt32LE(offset + 60);
    entries.push({
      name: buffer.subarray(offset + 104, offset + 104 + nameLength).toString('utf16le'),
      isDirectory: (buffer.readUInt32LE(offset + 56) & ATTRIBUTE_DIRECTORY) !== 0,
      bytes: Number(buffer.readBigUInt64LE(offset + 40)),
    });
    if (next === 0) break;
    offset += next;
  }
  return entries;
}
