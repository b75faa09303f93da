import { describe, expect, it } from 'vitest';
import { budgetSlot, projectSeconds, recentRate, settledRate, waterFill } from './settle.js';

/** Completions every `gapMs` of `bytes(index)` each, from t = 0. */
const completions = (count: number, gapMs: number, bytes: (index: number) => number) => {
  let total = 0;
  return Array.from({ length: count }, (_, index) => ({ tMs: (index + 1) * gapMs, totalBytes: (total += bytes(index)) }));
};

describe('settledRate', () => {
  it('settles on a steady rate after a slow-start ramp, and leaves the ramp out of the rate', () => {
    // 1 MiB requests, 20 ms round trips: 1, 2, 4 and 8 MiB in the first four (slow start), then one every 2 ms (10 MiB a round trip).
    const ramp = Array.from({ length: 4 }, (_, index) => ({ tMs: (index + 1) * 20, totalBytes: 2 ** 20 * (2 ** (index + 1) - 1) }));
    const lastRamp = ramp[ramp.length - 1] ?? { tMs: 0, totalBytes: 0 };
    const steady = completions(300, 2, () => 2 ** 20).map((event) => ({ tMs: lastRamp.tMs + event.tMs, totalBytes: lastRamp.totalBytes + event.totalBytes }));
    const result = settledRate({ completions: [...ramp, ...steady], fromMs: 0, rttMs: 20 });
    expect(result.settled).toBe(true);
    expect(result.bytesPerSecond / (2 ** 20 / 0.002)).toBeCloseTo(1, 1);
    expect(result.rampEndMs).toBeGreaterThanOrEqual(40);
  });

  it('is not settled while the rate still climbs, however smooth', () => {
    // Each gap shorter than the last: the rate rises steadily.
    let t = 0;
    let total = 0;
    const climbing = Array.from({ length: 400 }, (_, index) => ({ tMs: (t += 10 / (1 + index / 50)), totalBytes: (total += 65_536) }));
    expect(settledRate({ completions: climbing, fromMs: 0, rttMs: 1 }).settled).toBe(false);
  });

  it("settles a synchronous client's one read per round trip within a few seconds on a 75 ms path", () => {
    // XP: one 60 KiB read per 75 ms (plus a little jitter): 30 completions are 2.25 s.
    const xp = completions(30, 75, () => 61_440).map((event, index) => ({ ...event, tMs: event.tMs + (index % 3) }));
    const result = settledRate({ completions: xp, fromMs: 0, rttMs: 75 });
    expect(result.settled).toBe(true);
    expect(result.bytesPerSecond / (61_440 / 0.075)).toBeCloseTo(1, 2);
    // Fewer than sixteen completions: not yet, however regular.
    expect(settledRate({ completions: xp.slice(0, 12), fromMs: 0, rttMs: 75 }).settled).toBe(false);
  });

  it('needs a span of eight round trips after the ramp', () => {
    const quick = completions(100, 1, () => 65_536); // 100 ms of steady data on a 20 ms path: only five round trips
    expect(settledRate({ completions: quick, fromMs: 0, rttMs: 20 }).settled).toBe(false);
    expect(settledRate({ completions: completions(201, 1, () => 65_536), fromMs: 0, rttMs: 20 }).settled).toBe(true);
  });

  it('needs 200 ms after the ramp, however short the round trip', () => {
    // Loopback: eight round trips are under a millisecond; 50 ms of a steady small-files copy is not yet a rate.
    expect(settledRate({ completions: completions(100, 0.5, () => 1_048_576), fromMs: 0, rttMs: 0.08 }).settled).toBe(false);
    expect(settledRate({ completions: completions(500, 0.5, () => 1_048_576), fromMs: 0, rttMs: 0.08 }).settled).toBe(true);
  });

  it('is not settled when the rate swings between halves', () => {
    const fast = completions(100, 1, () => 65_536);
    const lastFast = fast[fast.length - 1] ?? { tMs: 0, totalBytes: 0 };
    const slow = completions(100, 2, () => 65_536).map((event) => ({ tMs: lastFast.tMs + event.tMs, totalBytes: lastFast.totalBytes + event.totalBytes }));
    const result = settledRate({ completions: [...fast, ...slow], fromMs: 0, rttMs: 1 });
    expect(result.settled).toBe(false);
  });

  it('counts only completions from the given start', () => {
    const before = completions(50, 1, () => 1e6);
    const after = completions(100, 10, () => 1e5).map((event) => ({ tMs: 1_000 + event.tMs, totalBytes: 50e6 + event.totalBytes }));
    const result = settledRate({ completions: [...before, ...after], fromMs: 1_000, rttMs: 1 });
    expect(result.bytesPerSecond).toBeCloseTo(1e7, -3);
  });

  it('gives nothing to go on before two completions', () => {
    expect(settledRate({ completions: [{ tMs: 5, totalBytes: 100 }], fromMs: 0, rttMs: 20 })).toMatchObject({ settled: false, bytesPerSecond: 0 });
  });
});

describe('projectSeconds', () => {
  it('adds the remaining bytes at the rate and the metadata owed, with the interval from the rate', () => {
    const projection = projectSeconds({
      measuredSeconds: 2,
      remainingBytes: 8e6,
      remainingMetadataSeconds: 0.5,
      rate: { bytesPerSecond: 1e6, relativeHalfWidth: 0.05 },
    });
    expect(projection.seconds).toBeCloseTo(10.5, 6);
    expect(projection.lowSeconds).toBeCloseTo(2.5 + 8 / 1.05, 6);
    expect(projection.highSeconds).toBeCloseTo(2.5 + 8 / 0.95, 6);
  });

  it('is the measured time when nothing remains', () => {
    expect(
      projectSeconds({ measuredSeconds: 3, remainingBytes: 0, remainingMetadataSeconds: 0, rate: { bytesPerSecond: 0, relativeHalfWidth: Infinity } }).seconds,
    ).toBe(3);
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

describe('budgetSlot', () => {
  it('gives the first copy its minimum and its water-filled share of the rest', () => {
    // Minimums 1 + 1 + 1 leave 6 of 9; needs beyond them 0, 4, 9: the first needs nothing more, the others 3 each.
    expect(budgetSlot([1, 5, 10], [1, 1, 1], 9)).toBeCloseTo(1, 9);
    expect(budgetSlot([5, 1, 10], [1, 1, 1], 9)).toBeCloseTo(1 + 3, 9);
  });

  it('scales every minimum down alike when even they do not fit', () => {
    expect(budgetSlot([10, 10], [4, 2], 3)).toBeCloseTo(2, 9);
    expect(budgetSlot([10], [0], 0)).toBe(0);
  });
});

describe('recentRate', () => {
  it('reads a copy stopped inside its ramp over its last stretch, nearer the rate to come than the whole average', () => {
    // Slow start on a 75 ms path: 64 KiB, then 128, 256 and 512 KiB per round trip, delivered as 32 KiB completions.
    let total = 0;
    const events = [64, 128, 256, 512, 512].flatMap((kib, round) =>
      Array.from({ length: kib / 32 }, (_, index) => ({ tMs: round * 75 + ((index + 1) * 75 * 32) / kib, totalBytes: (total += 32 * 1024) })),
    );
    const recent = recentRate({ completions: events, fromMs: 0, rttMs: 75 });
    const average = (total * 1000) / 375;
    expect(recent.bytesPerSecond).toBeGreaterThan(average);
    expect(recent.bytesPerSecond).toBeCloseTo((1024 * 1024 * 1000) / 150, -4);
    expect(recent.completions).toBeGreaterThanOrEqual(4);
  });

  it('needs two round trips and two completion gaps', () => {
    const few = [
      { tMs: 10, totalBytes: 1 },
      { tMs: 300, totalBytes: 3 },
    ];
    expect(recentRate({ completions: few, fromMs: 0, rttMs: 75 })).toEqual({ bytesPerSecond: 0, completions: 0 });
    const short = Array.from({ length: 8 }, (_, index) => ({ tMs: index * 10, totalBytes: (index + 1) * 1000 }));
    expect(recentRate({ completions: short, fromMs: 0, rttMs: 75 }).bytesPerSecond).toBe(0);
  });
});
