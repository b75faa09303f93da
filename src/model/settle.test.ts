import { describe, expect, it } from 'vitest';
import { projectSeconds, settledRate, SETTLE_RULE, studentT95, waterFill } from './settle.js';

const BUCKET = 100;
/** A timeline of `buckets` buckets from `rate(i)` bytes each. */
const timeline = (buckets: number, bytesIn: (index: number) => number) => Array.from({ length: buckets }, (_, index) => ({ tMs: index * BUCKET, bytes: bytesIn(index) }));

describe('settledRate', () => {
  it('settles on a steady rate after a slow-start ramp, and leaves the ramp out of the rate', () => {
    // Doubling for 5 buckets (a ramp), then 1 MB per 100 ms.
    const points = timeline(30, (index) => (index < 5 ? 1e6 / 2 ** (5 - index) : 1e6));
    const result = settledRate({ points, bucketMs: BUCKET, fromMs: 0, nowMs: 3_000, rttMs: 20 });
    expect(result.settled).toBe(true);
    expect(result.bytesPerSecond).toBeCloseTo(10e6, -3);
    expect(result.rampEndMs).toBeGreaterThanOrEqual(400);
  });

  it('is not settled while the rate still climbs, however smooth', () => {
    const points = timeline(30, (index) => 1e5 * (1 + index));
    const result = settledRate({ points, bucketMs: BUCKET, fromMs: 0, nowMs: 3_000, rttMs: 20 });
    expect(result.settled).toBe(false);
  });

  it('needs its minimum of windows, and windows of several round trips on a long path', () => {
    const steady = timeline(40, () => 1e6);
    // 75 ms: a window is four round trips, 300 ms (3 buckets); 1.2 s holds four of them.
    expect(settledRate({ points: steady, bucketMs: BUCKET, fromMs: 0, nowMs: 1_100, rttMs: 75 }).settled).toBe(false);
    const enough = settledRate({ points: steady, bucketMs: BUCKET, fromMs: 0, nowMs: 1_300, rttMs: 75 });
    expect(enough.windowMs).toBe(300);
    expect(enough.windows).toBe(SETTLE_RULE.minWindows);
    expect(enough.settled).toBe(true);
  });

  it('sees a synchronous client lumpy per bucket as steady per window', () => {
    // One 60 KB read per 75 ms round trip: buckets alternate one and two reads' worth, some none.
    const points = timeline(40, (index) => [61_440, 61_440, 0][index % 3] ?? 0);
    const result = settledRate({ points, bucketMs: BUCKET, fromMs: 0, nowMs: 4_000, rttMs: 75 });
    expect(result.settled).toBe(true);
    expect(result.bytesPerSecond).toBeCloseTo((2 * 61_440) / 0.3, -2);
  });

  it('is not settled when windows scatter widely', () => {
    const points = timeline(20, (index) => (index % 2 === 0 ? 2e6 : 1e5));
    expect(settledRate({ points, bucketMs: BUCKET, fromMs: 0, nowMs: 2_000, rttMs: 1 }).settled).toBe(false);
  });

  it('counts only buckets from the given start and never the one still filling', () => {
    const points = timeline(20, (index) => (index < 10 ? 5e6 : 1e6));
    const result = settledRate({ points, bucketMs: BUCKET, fromMs: 1_000, nowMs: 2_050, rttMs: 1 });
    expect(result.windows).toBe(10);
    expect(result.bytesPerSecond).toBeCloseTo(10e6, -3);
  });

  it('gives nothing to go on before a whole window has passed', () => {
    expect(settledRate({ points: [], bucketMs: BUCKET, fromMs: 0, nowMs: 50, rttMs: 20 })).toMatchObject({ settled: false, windows: 0, bytesPerSecond: 0 });
  });
});

describe('studentT95', () => {
  it('has the table values and the normal limit', () => {
    expect(studentT95(1)).toBeCloseTo(12.706, 3);
    expect(studentT95(3)).toBeCloseTo(3.182, 3);
    expect(studentT95(100)).toBe(1.96);
    expect(studentT95(0)).toBe(Infinity);
  });
});

describe('projectSeconds', () => {
  it('adds the remaining bytes at the rate and the metadata owed, with the interval from the rate', () => {
    const projection = projectSeconds({ measuredSeconds: 2, remainingBytes: 8e6, remainingMetadataSeconds: 0.5, rate: { bytesPerSecond: 1e6, relativeHalfWidth: 0.05 } });
    expect(projection.seconds).toBeCloseTo(10.5, 6);
    expect(projection.lowSeconds).toBeCloseTo(2.5 + 8 / 1.05, 6);
    expect(projection.highSeconds).toBeCloseTo(2.5 + 8 / 0.95, 6);
  });

  it('is the measured time when nothing remains', () => {
    expect(projectSeconds({ measuredSeconds: 3, remainingBytes: 0, remainingMetadataSeconds: 0, rate: { bytesPerSecond: 0, relativeHalfWidth: Infinity } }).seconds).toBe(3);
  });
});

describe('waterFill', () => {
  it('gives every copy what it needs when the time allows', () => {
    expect(waterFill([1, 2, 3], 10)).toEqual([1, 2, 3]);
  });

  it('gives short copies their need and shares the rest equally', () => {
    const slots = waterFill([1, 10, 20], 9);
    expect(slots[0]).toBe(1);
    expect(slots[1]).toBeCloseTo(4, 9);
    expect(slots[2]).toBeCloseTo(4, 9);
    expect(slots.reduce((sum, slot) => sum + slot, 0)).toBeCloseTo(9, 9);
  });

  it('never hands out negative time', () => {
    expect(waterFill([1, 2], -5)).toEqual([0, 0]);
  });
});
