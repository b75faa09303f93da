import { describe, expect, it } from 'vitest';
import { PipefillInputError } from './errors.js';
import { modelScaledProjection } from './scaled-projection.js';

describe('modelScaledProjection', () => {
  it("scales the model's time by the file copy's measured-over-model ratio", () => {
    // 52 Mb/s / 75 ms, Windows 7 SMB2's read (WAN lab, 2026-11-23): the model 1.02 s for 1 MiB and 3.36 s for the
    // 0.01 directory set; the file copy 0.98 s. The full copy of the set took 3.07 s.
    const projection = modelScaledProjection(3.36, { seconds: 0.98, modelSeconds: 1.02 });
    expect(projection.scale).toBeCloseTo(0.98 / 1.02, 10);
    expect(projection.seconds).toBeCloseTo(3.228, 3);
    expect(Math.abs(projection.seconds - 3.07) / 3.07).toBeLessThan(0.15);
    // A whole file copy has no range of its own to carry.
    expect(projection.lowSeconds).toBe(projection.seconds);
    expect(projection.highSeconds).toBeNull();
  });

  it("carries a projected file copy's range over, never inside the figure", () => {
    const projection = modelScaledProjection(10, { seconds: 2, modelSeconds: 1, lowSeconds: 1.8, highSeconds: 2.5 });
    expect(projection).toEqual({ seconds: 20, scale: 2, lowSeconds: 18, highSeconds: 25 });
    expect(modelScaledProjection(10, { seconds: 2, modelSeconds: 1, lowSeconds: 2.2, highSeconds: 1.9 })).toMatchObject({ lowSeconds: 20, highSeconds: 20 });
    expect(modelScaledProjection(10, { seconds: 2, modelSeconds: 1, lowSeconds: 1.8, highSeconds: null }).highSeconds).toBeNull();
  });

  it('refuses times that are not positive and finite', () => {
    for (const bad of [0, -1, Number.NaN, Infinity]) {
      expect(() => modelScaledProjection(bad, { seconds: 1, modelSeconds: 1 })).toThrow(PipefillInputError);
      expect(() => modelScaledProjection(1, { seconds: bad, modelSeconds: 1 })).toThrow(PipefillInputError);
      expect(() => modelScaledProjection(1, { seconds: 1, modelSeconds: bad })).toThrow(PipefillInputError);
    }
  });
});
