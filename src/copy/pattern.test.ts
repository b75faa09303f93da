import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import type { CryptoAddon } from '../smb/native-crypto.js';
import { cryptoAddon } from '../smb/native-crypto.js';
import { PatternSource } from './pattern.js';

/** Runs `body` with the crypto addon turned off: Node's Cipher makes the pattern. */
function withNodeCipher<T>(body: () => T): T {
  const saved = process.env['PIPEFILL_NATIVE_CRYPTO'];
  process.env['PIPEFILL_NATIVE_CRYPTO'] = '0';
  try {
    return body();
  } finally {
    if (saved === undefined) delete process.env['PIPEFILL_NATIVE_CRYPTO'];
    else process.env['PIPEFILL_NATIVE_CRYPTO'] = saved;
  }
}

describe('PatternSource', () => {
  const source = new PatternSource('seed', 'file001.doc');

  it('gives the same bytes for a slice however it is cut', () => {
    const whole = source.bytes(0, 100_000);
    expect(source.bytes(12_345, 777)).toEqual(whole.subarray(12_345, 12_345 + 777));
    expect(source.bytes(99_990, 10)).toEqual(whole.subarray(99_990));
    expect(source.matches(5, whole.subarray(5, 50_005))).toBe(true);
  });

  it('differs per file and per seed, and detects a changed byte', () => {
    expect(new PatternSource('seed', 'file002.doc').bytes(0, 64)).not.toEqual(source.bytes(0, 64));
    expect(new PatternSource('other', 'file001.doc').bytes(0, 64)).not.toEqual(source.bytes(0, 64));
    const corrupt = Buffer.from(source.bytes(1000, 4096));
    corrupt[2000] = (corrupt[2000] ?? 0) ^ 1;
    expect(source.matches(1000, corrupt)).toBe(false);
  });

  it('fills a reused buffer with the same bytes', () => {
    const target = Buffer.alloc(5000, 0xaa);
    source.fill(target.subarray(0, 4097), 3);
    expect(target.subarray(0, 4097)).toEqual(source.bytes(3, 4097));
    expect(target[4097]).toBe(0xaa);
    withNodeCipher(() => source.fill(target.subarray(10, 20), 99));
    expect(target.subarray(10, 20)).toEqual(source.bytes(99, 10));
  });

  // npm test builds the addon on Linux; a file written by one path must verify with the other.
  it.runIf(process.platform === 'linux')('is the same keystream whether the crypto addon or Node makes it, from any offset', () => {
    expect(cryptoAddon().available).toBe(true);
    const far = 2 ** 40 + 7; // a counter past 32 bits
    for (const [offset, length] of [
      [0, 1],
      [15, 2],
      [17, 3 * 2 ** 20 + 5],
      [far, 70_000],
    ] as const) {
      const native = source.bytes(offset, length);
      const viaNode = withNodeCipher(() => source.bytes(offset, length));
      expect(native.equals(viaNode), `${length} bytes at ${offset}`).toBe(true);
      expect(Buffer.concat(source.pieces(offset, length)).equals(viaNode)).toBe(true);
      expect(withNodeCipher(() => source.matches(offset, native))).toBe(true);
      const altered = Buffer.from(native);
      const last = altered.length - 1;
      altered[last] = (altered[last] ?? 0) ^ 0x80;
      expect(source.matches(offset, altered)).toBe(false);
      expect(source.matches(offset + 1, native)).toBe(length === 0);
    }
    expect(source.matches(3, Buffer.alloc(0))).toBe(true);
  });

  it.runIf(process.platform === 'linux')('refuses a key, offset or target the addon cannot use', () => {
    const { addon } = cryptoAddon() as { addon: CryptoAddon };
    expect(() => addon.patternFill(Buffer.alloc(15), 0, Buffer.alloc(4))).toThrow(/16-byte key/);
    expect(() => addon.patternFill(Buffer.alloc(16), -1, Buffer.alloc(4))).toThrow(/whole offset/);
    expect(() => addon.patternFill(Buffer.alloc(16), 1.5, Buffer.alloc(4))).toThrow(/whole offset/);
    expect(() => addon.patternFill(Buffer.alloc(16), 2 ** 53, Buffer.alloc(4))).toThrow(/whole offset/);
    expect(() => addon.patternMatches(Buffer.alloc(16), 0, 'text' as unknown as Buffer)).toThrow(/Buffer/);
  });

  it('is incompressible, so no WAN optimiser or SMB compression flatters a test', () => {
    const data = source.bytes(0, 1 << 20);
    expect(deflateRawSync(data).length / data.length).toBeGreaterThan(0.99);
  });
});
