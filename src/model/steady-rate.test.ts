import { describe, expect, it } from 'vitest';
import { steadyBytesPerSecond } from './steady-rate.js';

const MIB = 2 ** 20;
const bucket = (index: number, bytes: number) => ({ tMs: index * 100, bytes });

describe('steadyBytesPerSecond', () => {
  it('reads the rate a copy held after its start, not its average with the ramp and the close', () => {
    // The demo link's Windows 11 write of 15 MiB (issue 48): 0.5 s opening and ramp, then 1 MiB about every 130 ms, 0.5 s close.
    const moving = [1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1];
    const timeline = [
      ...[0, 0, 0, 0, 0].map((_, i) => bucket(i, 0)),
      ...moving.map((m, i) => bucket(5 + i, m * MIB)),
      ...[25, 26, 27].map((i) => bucket(i, 0)),
    ];
    const steady = steadyBytesPerSecond(timeline, 100) ?? 0;
    const total = moving.reduce((sum, m) => sum + m, 0) * MIB;
    const average = total / (timeline.length * 0.1);
    expect(steady * 8).toBeGreaterThan(60e6);
    expect(steady * 8).toBeLessThan(75e6);
    expect(steady).toBeGreaterThan(1.3 * average);
  });

  it('says nothing of a copy that moved its data in a moment', () => {
    expect(steadyBytesPerSecond([bucket(0, 0), bucket(3, MIB), bucket(5, MIB)], 100)).toBeUndefined();
    expect(steadyBytesPerSecond([], 100)).toBeUndefined();
  });

  it('is the line rate for a copy that held it from the start', () => {
    const timeline = Array.from({ length: 30 }, (_, i) => bucket(i, 1_250_000));
    expect(steadyBytesPerSecond(timeline, 100)).toBeCloseTo(12.5e6, -3);
  });
});
