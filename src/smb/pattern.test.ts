import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { PatternSource } from './pattern.js';

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

  it('is incompressible, so no WAN optimiser or SMB compression flatters a test', () => {
    const data = source.bytes(0, 1 << 20);
    expect(deflateRawSync(data).length / data.length).toBeGreaterThan(0.99);
  });
});
