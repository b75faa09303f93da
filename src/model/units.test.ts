import { describe, expect, it } from 'vitest';
import { inputErrorText } from '../test-support/input-error.js';
import { PipefillInputError } from './errors.js';
import {
  formatBinaryBytes,
  formatBytes,
  formatDuration,
  formatLossRate,
  formatRate,
  parseBufferBytes,
  parseLossRate,
  parseRate,
  parseSizeBytes,
  parseTimeMs,
} from './units.js';

describe('parseRate', () => {
  it.each([
    ['155.52mbit', 155.52e6],
    ['1gbit', 1e9],
    ['OC1', 51.84e6],
    ['OC3', 155.52e6],
    ['oc-12', 622.08e6],
    ['GbE', 1e9],
    ['10GbE', 10e9],
    ['512kbit', 512e3],
    ['100 Mb/s', 100e6],
    ['2.5gbps', 2.5e9],
  ])('%s is %d b/s', (text, expected) => {
    expect(parseRate(text)).toBeCloseTo(expected, 3);
  });

  it.each(['155', 'fast', '-5mbit', '0mbit', '10 MB', ''])('refuses %j with a hint that names the units', (text) => {
    expect(() => parseRate(text)).toThrow(PipefillInputError);
    try {
      parseRate(text);
    } catch (error) {
      expect((error as PipefillInputError).hint).toMatch(/mbit/);
      expect((error as PipefillInputError).message).toContain(JSON.stringify(text));
    }
  });
});

describe('parseTimeMs', () => {
  it.each([
    ['32ms', 32],
    ['0.075s', 75],
    ['800us', 0.8],
    ['1.5 s', 1500],
  ])('%s is %d ms', (text, expected) => {
    expect(parseTimeMs(text)).toBeCloseTo(expected, 9);
  });
  it('refuses a bare number: 32 could be ms or s', () => {
    expect(inputErrorText(() => parseTimeMs('32'))).toMatch(/Expected a number with a unit/);
  });
});

describe('parseSizeBytes', () => {
  it('keeps decimal and binary units apart', () => {
    expect(parseSizeBytes('100MB')).toBe(100_000_000);
    expect(parseSizeBytes('100MiB')).toBe(104_857_600);
    expect(parseSizeBytes('64KiB')).toBe(65_536);
    expect(parseSizeBytes('1GiB')).toBe(2 ** 30);
    expect(parseSizeBytes('512B')).toBe(512);
  });
  it('refuses unknown units', () => {
    expect(inputErrorText(() => parseSizeBytes('100M'))).toMatch(/KiB, MiB, GiB/);
  });
});

describe('parseLossRate', () => {
  it('reads percentages and fractions', () => {
    expect(parseLossRate('0.1%')).toBeCloseTo(0.001, 12);
    expect(parseLossRate('0.02')).toBeCloseTo(0.02, 12);
    expect(parseLossRate('0%')).toBe(0);
  });
  it.each(['100%', '2', '-1%', 'lots', '%'])('refuses %j', (text) => {
    expect(() => parseLossRate(text)).toThrow(PipefillInputError);
  });
});

describe('formatting', () => {
  it('prints rates, durations and sizes as a person reads them', () => {
    expect(formatRate(155.52e6)).toBe('156 Mb/s');
    expect(formatRate(51.84e6)).toBe('51.8 Mb/s');
    expect(formatRate(1e9)).toBe('1 Gb/s');
    expect(formatDuration(32)).toBe('32 ms');
    expect(formatDuration(5800)).toBe('5.8 s');
    expect(formatDuration(1_013_000)).toBe('16 min 53 s');
    expect(formatDuration(3_539_700)).toBe('59 min');
    expect(formatDuration(3_599_700)).toBe('60 min');
    expect(formatDuration(300_000)).toBe('5 min');
    expect(formatDuration(7_199_999)).toBe('2 h 0 min');
    expect(formatBytes(622_080)).toBe('622 KB');
    expect(formatBinaryBytes(61_440)).toBe('60 KiB');
    expect(formatBinaryBytes(2_096_560)).toBe('2 MiB');
  });
});

describe('parseBufferBytes', () => {
  const bdp = 620_000;
  it('reads a size, a share of the BDP and a time at the line rate', () => {
    expect(parseBufferBytes('64KB', bdp, 155e6)).toBe(64_000);
    expect(parseBufferBytes('0.25bdp', bdp, 155e6)).toBe(155_000);
    expect(parseBufferBytes('20ms', bdp, 100e6)).toBe(250_000);
    expect(parseBufferBytes('0', bdp, 155e6)).toBe(0);
  });
  it('refuses what is not a buffer, with what was expected', () => {
    for (const text of ['abc', '101bdp', 'NaNbdp', '999999GB', '-5KB']) expect(() => parseBufferBytes(text, bdp, 155e6), text).toThrow(/Cannot read/);
  });
});

describe('formatLossRate', () => {
  it('says a share as a person writes it: two significant digits, no trailing zero, never an exponent', () => {
    expect([0.0095, 0.009, 0.0108, 0.2, 0.0002, 0].map(formatLossRate)).toEqual(['0.95%', '0.9%', '1.1%', '20%', '0.02%', '0%']);
    expect(formatLossRate(1e-9)).toBe('<0.000001%');
  });
});
