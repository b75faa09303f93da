import { describe, expect, it } from 'vitest';
import { deliveryRate, MAX_GROWTH_PER_STEP, selfSizedDepth } from './self-sizing.js';

const MIB = 2 ** 20;

/** A pipeline of `depth` chunks on a path of `rttSeconds` and `bytesPerSecond`: each chunk takes a round trip plus its own serialisation. */
const pipeRate = (depth: number, chunkBytes: number, rttSeconds: number, bytesPerSecond: number) =>
  Math.min(bytesPerSecond, (depth * chunkBytes) / (rttSeconds + chunkBytes / bytesPerSecond));

/** Rounds of self-sizing on a modelled path, from the least depth; the depths it ran. */
function grow(rttSeconds: number, bytesPerSecond: number, chunkBytes = 2 * MIB, maxDepth = 16): number[] {
  const depths = [4];
  let best = 0;
  for (let round = 0; round < 20; round += 1) {
    const depth = depths[depths.length - 1] ?? 4;
    best = Math.max(best, pipeRate(depth, chunkBytes, rttSeconds, bytesPerSecond));
    const next = selfSizedDepth({ depth, minDepth: 4, maxDepth, bdpMultiple: 2, chunkBytes, bestBytesPerSecond: best, minRttSeconds: rttSeconds });
    if (next === depth) break;
    depths.push(next);
  }
  return depths;
}

describe('selfSizedDepth', () => {
  it('stays at its least depth on a short path (loopback: the whole BDP is well under one chunk)', () => {
    expect(grow(100e-6, 1.5e9)).toEqual([4]);
    // A branch link's BDP (52 Mb/s x 75 ms = 0.49 MB) is filled by 4 x 2 MiB too.
    expect(grow(0.075, 52e6 / 8)).toEqual([4]);
  });

  it('deepens on a long fat path until the path sets the rate, at most doubling per round', () => {
    // 1 Gb/s x 100 ms: a 12.5 MB BDP, six 2 MiB chunks; twice that is 12 chunks.
    const depths = grow(0.1, 1e9 / 8, 2 * MIB, 64);
    expect(depths[0]).toBe(4);
    for (let index = 1; index < depths.length; index += 1) expect(depths[index] ?? 0).toBeLessThanOrEqual((depths[index - 1] ?? 0) * MAX_GROWTH_PER_STEP);
    const last = depths[depths.length - 1] ?? 0;
    expect(pipeRate(last, 2 * MIB, 0.1, 1e9 / 8)).toBe(1e9 / 8);
    expect(last).toBeLessThanOrEqual(Math.ceil((2 * 0.1 * 1e9) / 8 / (2 * MIB)));
    expect(depths.length).toBeLessThanOrEqual(4);
  });

  it('never passes its budget, and never shrinks', () => {
    expect(grow(0.25, 1e9 / 8, 2 * MIB, 16).at(-1)).toBe(16);
    expect(selfSizedDepth({ depth: 12, minDepth: 4, maxDepth: 16, bdpMultiple: 2, chunkBytes: 2 * MIB, bestBytesPerSecond: 1e6, minRttSeconds: 0.001 })).toBe(
      12,
    );
  });

  it('holds its depth when it has nothing to go on', () => {
    const base = { depth: 4, minDepth: 4, maxDepth: 16, bdpMultiple: 2, chunkBytes: 2 * MIB };
    expect(selfSizedDepth({ ...base, bestBytesPerSecond: 0, minRttSeconds: 0.1 })).toBe(4);
    expect(selfSizedDepth({ ...base, bestBytesPerSecond: 1e9, minRttSeconds: Number.NaN })).toBe(4);
    expect(selfSizedDepth({ ...base, maxDepth: 2, bestBytesPerSecond: 1e9, minRttSeconds: 0.1 })).toBe(2);
  });
});

describe('deliveryRate', () => {
  it('is the bytes delivered while a chunk was in flight over its time in flight', () => {
    expect(deliveryRate(10 * MIB, 1_000, 18 * MIB, 1_100)).toBeCloseTo((8 * MIB) / 0.1);
    expect(deliveryRate(0, 5, 100, 5)).toBe(0);
  });
});
