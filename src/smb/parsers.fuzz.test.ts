// Every parser of a server's bytes, under mutation (issue 47, item 6): a
// reply may say anything, and whatever it says must end in the parser's own
// typed error, never a RangeError or TypeError from the arithmetic under it
// (a NEGOTIATE context offset of 2^31 or more once came out negative).
// Deterministic: a seeded generator, and every 16- and 32-bit field of each
// sample set to the values where signed and unsigned arithmetic part ways.

import { describe, expect, it } from 'vitest';
import { xorshift32 } from '../test-support/xorshift.js';
import { WINDOWS_10_11_OFFER } from '../model/smb-security.js';
import { challengeMessage4243, hex, SMB311_EXCHANGE } from '../test-support/smb-vectors.js';
import { SmbError } from './errors.js';
import { parseCreate, parseDirectoryEntries, parseInternalInfo, parseQueryInfo, parseRead, parseStandardInfo, parseWrite } from './messages.js';
import { NegotiateError, parseNegotiate } from './negotiate.js';
import { parseMarker } from '../copy/scratch-marker.js';
import { DerError } from './security/der.js';
import { NegotiateContextError, parseServerContexts } from './security/negotiate-contexts.js';
import { NtlmError, parseChallenge } from './security/ntlm.js';

/** The values where 16- and 32-bit arithmetic goes wrong: zero, one, the signed limits, all ones. */
const EDGES_32 = [0, 1, 7, 8, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0x80000007, 0xfffffff8, 0xffffffff];
const EDGES_16 = [0, 1, 7, 8, 0x7fff, 0x8000, 0xfff8, 0xffff];
const RANDOM_MUTATIONS = 20_000;

/** Each sample with every aligned 16- and 32-bit field set to each edge value. */
function* fieldEdges(sample: Buffer): Generator<Buffer> {
  for (let at = 0; at + 2 <= sample.length; at += 2) {
    for (const value of EDGES_16) {
      const copy = Buffer.from(sample);
      copy.writeUInt16LE(value, at);
      yield copy;
    }
    if (at + 4 > sample.length) continue;
    for (const value of EDGES_32) {
      const copy = Buffer.from(sample);
      copy.writeUInt32LE(value, at);
      yield copy;
    }
  }
}

/** Random damage: bytes changed, fields set to edges, the message cut short or lengthened. */
function* randomMutations(sample: Buffer, seed: number): Generator<Buffer> {
  const next = xorshift32(seed);
  for (let round = 0; round < RANDOM_MUTATIONS; round++) {
    let copy = Buffer.from(sample);
    const edits = 1 + (next() % 4);
    for (let edit = 0; edit < edits; edit++) {
      const kind = next() % 5;
      const at = copy.length === 0 ? 0 : next() % copy.length;
      if (kind === 0 && copy.length > 0) copy[at] = next() & 0xff;
      else if (kind === 1 && at + 4 <= copy.length) copy.writeUInt32LE(EDGES_32[next() % EDGES_32.length] ?? 0, at);
      else if (kind === 2 && at + 2 <= copy.length) copy.writeUInt16LE(EDGES_16[next() % EDGES_16.length] ?? 0, at);
      else if (kind === 3) copy = copy.subarray(0, at);
      else copy = Buffer.concat([copy, Buffer.alloc(next() % 64, next() & 0xff)]);
    }
    yield copy;
  }
}

/** Runs the parser over every mutation and returns the errors that were not its own typed ones (none, for it to pass). */
function untypedErrors(sample: Buffer, parse: (bytes: Buffer) => unknown, typed: (error: unknown) => boolean, seed: number): string[] {
  const found = new Set<string>();
  for (const source of [fieldEdges(sample), randomMutations(sample, seed)]) {
    for (const bytes of source) {
      try {
        parse(bytes);
      } catch (error) {
        if (!typed(error)) found.add(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
    }
  }
  return [...found].slice(0, 5);
}

const smbTyped = (error: unknown) => error instanceof SmbError;

/** A reply body with its variable part at offset (from the header) 64 + fixed. */
function replyBody(fixed: number, data: Buffer, lengthAt: number, offsetAt: number, offsetBytes: 1 | 2 = 2): Buffer {
  const body = Buffer.alloc(fixed + data.length);
  if (offsetBytes === 1) body.writeUInt8(64 + fixed, offsetAt);
  else body.writeUInt16LE(64 + fixed, offsetAt);
  body.writeUInt32LE(data.length, lengthAt);
  data.copy(body, fixed);
  return body;
}

function listingEntry(name: string): Buffer {
  const utf16 = Buffer.from(name, 'utf16le');
  const entry = Buffer.alloc(104 + utf16.length + ((8 - ((104 + utf16.length) % 8)) % 8));
  entry.writeBigUInt64LE(133_000_000_000_000_000n, 8);
  entry.writeUInt32LE(0x10, 56);
  entry.writeUInt32LE(utf16.length, 60);
  entry.writeBigUInt64LE(42n, 96);
  utf16.copy(entry, 104);
  return entry;
}

describe("the parsers of a server's bytes, under mutation", () => {
  it('a NEGOTIATE context offset of 2^31 or more is a typed error (it was a RangeError)', () => {
    const message = hex(SMB311_EXCHANGE.steps[1]?.message ?? '');
    for (const offset of [0x80000000, 0x80000007, 0xfffffff9, 0xffffffff])
      expect(() => parseServerContexts(message, offset, 2), `offset ${offset}`).toThrow(NegotiateContextError);
    const reply = Buffer.from(message);
    reply.writeUInt32LE(0x80000000, 64 + 60);
    expect(() => parseNegotiate(reply, WINDOWS_10_11_OFFER)).toThrow(NegotiateError);
  });

  it.each([
    [
      'NEGOTIATE (MS-SMB2 3.1.1 example)',
      () => hex(SMB311_EXCHANGE.steps[1]?.message ?? ''),
      (b: Buffer) => parseNegotiate(b, WINDOWS_10_11_OFFER),
      (e: unknown) => e instanceof NegotiateError,
    ],
    [
      'CREATE',
      () => {
        const body = Buffer.alloc(88);
        body.writeUInt16LE(89, 0);
        return body;
      },
      parseCreate,
      smbTyped,
    ],
    ['READ', () => replyBody(16, Buffer.alloc(40, 7), 4, 2, 1), (b: Buffer) => parseRead(b, 64), smbTyped],
    [
      'WRITE',
      () => {
        const body = Buffer.alloc(16);
        body.writeUInt32LE(64, 4);
        return body;
      },
      (b: Buffer) => parseWrite(b, 64),
      smbTyped,
    ],
    ['QUERY_INFO, FileStandardInformation', () => replyBody(8, Buffer.alloc(24, 1), 4, 2), (b: Buffer) => parseStandardInfo(parseQueryInfo(b)), smbTyped],
    ['QUERY_INFO, FileInternalInformation', () => replyBody(8, Buffer.alloc(8, 1), 4, 2), (b: Buffer) => parseInternalInfo(parseQueryInfo(b)), smbTyped],
    [
      'QUERY_DIRECTORY',
      () => {
        const first = listingEntry('.pipefill-20261127T000000-0000abcd');
        first.writeUInt32LE(first.length, 0);
        return replyBody(8, Buffer.concat([first, listingEntry('source')]), 4, 2);
      },
      parseDirectoryEntries,
      smbTyped,
    ],
    ['NTLM CHALLENGE (MS-NLMP 4.2.4.3 layout)', challengeMessage4243, parseChallenge, (e: unknown) => e instanceof NtlmError || e instanceof DerError],
  ] as const)('%s: every failure is its own typed error', (_name, sample, parse, typed) => {
    // The sample itself parses: the mutations start from a good reply.
    expect(() => parse(sample())).not.toThrow();
    expect(untypedErrors(sample(), parse, typed, 0x5eed)).toEqual([]);
  });

  it("a scratch folder's marker: anything but a marker reads as none, never an error", () => {
    const marker = Buffer.from('Pipefill scratch folder 1\n.pipefill-20261127T000000-0000abcd\n2a\n', 'ascii');
    expect(parseMarker(marker)).toBeDefined();
    expect(untypedErrors(marker, parseMarker, () => false, 0xbeef)).toEqual([]);
  });
});
