import { describe, expect, it } from 'vitest';
import { SmbError } from './errors.js';
import { createRequest, Disposition, parseCreate, parseDirectoryEntries, parseQueryInfo, parseRead, parseWrite } from './messages.js';

/** A QUERY_DIRECTORY reply body around a listing, as smbd lays it out (buffer at offset 72). */
function listingReply(listing: Buffer, offset = 72): Buffer {
  const body = Buffer.alloc(8);
  body.writeUInt16LE(9, 0);
  body.writeUInt16LE(offset, 2);
  body.writeUInt32LE(listing.length, 4);
  return Buffer.concat([body, listing]);
}

const SERVER_TIMES = { created: 133_000_000_000_000_001n, written: 133_000_000_000_000_003n, changed: 133_000_000_000_000_004n };

function entry(name: string, next: number, directory = false): Buffer {
  const utf16 = Buffer.from(name, 'utf16le');
  const bytes = Buffer.alloc(Math.max(next, 104 + utf16.length));
  bytes.writeUInt32LE(next, 0);
  bytes.writeBigUInt64LE(1234n, 40);
  // CreationTime, LastWriteTime, ChangeTime (MS-FSCC 2.4.17): the server's clock, read as it is.
  bytes.writeBigUInt64LE(133_000_000_000_000_001n, 8);
  bytes.writeBigUInt64LE(133_000_000_000_000_003n, 24);
  bytes.writeBigUInt64LE(133_000_000_000_000_004n, 32);
  bytes.writeUInt32LE(directory ? 0x10 : 0x80, 56);
  bytes.writeUInt32LE(utf16.length, 60);
  utf16.copy(bytes, 104);
  return bytes;
}

describe('replies are checked against their structure', () => {
  it('parses a well-formed listing', () => {
    const listing = Buffer.concat([entry('a', 112, true), entry('bb.bin', 0)]);
    expect(parseDirectoryEntries(listingReply(listing))).toEqual([
      { name: 'a', isDirectory: true, isReparsePoint: false, bytes: 1234, fileId: 0n, times: SERVER_TIMES },
      { name: 'bb.bin', isDirectory: false, isReparsePoint: false, bytes: 1234, fileId: 0n, times: SERVER_TIMES },
    ]);
  });

  it('refuses entries that overlap, run past the listing, or a listing outside the message, in bounded time and memory', () => {
    // The reply that once took 1 GiB: successors 8 bytes on, each claiming the rest of 128 KiB as its name.
    const hostile = Buffer.alloc(64 * 1024);
    for (let at = 0; at + 104 <= hostile.length; at += 8) {
      hostile.writeUInt32LE(8, at);
      hostile.writeUInt32LE(hostile.length - at - 104, at + 60);
    }
    const rss = process.memoryUsage().rss;
    expect(() => parseDirectoryEntries(listingReply(hostile))).toThrow(/inside itself or outside/);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
    expect(() => parseDirectoryEntries(listingReply(entry('x', 0).fill(0xff, 60, 64)))).toThrow(/runs past/);
    expect(() => parseDirectoryEntries(listingReply(entry('x', 0), 4000))).toThrow(/lies outside/);
    expect(() => parseDirectoryEntries(listingReply(Buffer.alloc(0)).subarray(0, 4))).toThrow(SmbError);
  });

  it('refuses short bodies and data that lies outside the message or exceeds what was asked', () => {
    expect(() => parseCreate(Buffer.alloc(40))).toThrow(/CREATE reply is malformed/);
    const read = Buffer.alloc(16 + 100);
    read.writeUInt8(80, 2);
    read.writeUInt32LE(100, 4);
    expect(parseRead(read, 100).length).toBe(100);
    expect(() => parseRead(read, 99)).toThrow(/100 bytes of data for a read of 99/);
    read.writeUInt8(200, 2);
    expect(() => parseRead(read, 100)).toThrow(/lies outside/);
    const write = Buffer.alloc(16);
    write.writeUInt32LE(10, 4);
    expect(parseWrite(write, 10)).toBe(10);
    expect(() => parseWrite(write, 9)).toThrow(/10 bytes written of 9 sent/);
    const info = Buffer.alloc(8 + 4);
    info.writeUInt16LE(72, 2);
    info.writeUInt32LE(40, 4);
    expect(() => parseQueryInfo(info)).toThrow(/lies outside/);
  });
});

describe('CREATE requests (MS-SMB2 2.2.13)', () => {
  it("puts the name at offset 0x78 even when it is the share root's empty name, as Windows and smbclient do", () => {
    for (const path of ['', 'pipefill-scratch']) {
      const body = createRequest({ path, access: 0x80, disposition: Disposition.open, options: 0 });
      expect(body.readUInt16LE(44)).toBe(0x78);
      expect(body.readUInt16LE(46)).toBe(Buffer.byteLength(path, 'utf16le'));
    }
  });
});
