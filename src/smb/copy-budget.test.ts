import { describe, expect, it } from 'vitest';
import { dataPhase } from './copy-budget.js';

const MB = 1e6;

describe('dataPhase', () => {
  it('takes a settled rate as given and puts what the files took beyond it into their wait', () => {
    const phase = dataPhase(
      [
        { bytes: 2 * MB, seconds: 0.5 },
        { bytes: 4 * MB, seconds: 0.9 },
      ],
      { bytesPerSecond: 5 * MB, relativeHalfWidth: 0.03 },
    );
    expect(phase.bytesPerSecond).toBe(5 * MB);
    expect(phase.waitSeconds).toBeCloseTo(0.1);
    expect(phase.relativeHalfWidth).toBe(0.03);
  });

  it('fits a line through whole files without one: rate from the slope, wait from the intercept', () => {
    const phase = dataPhase([
      { bytes: 1 * MB, seconds: 0.3 },
      { bytes: 5 * MB, seconds: 1.1 },
    ]);
    expect(phase.bytesPerSecond).toBeCloseTo(5 * MB);
    expect(phase.waitSeconds).toBeCloseTo(0.1);
  });

  it('with one point, bytes over seconds and no wait', () => {
    expect(dataPhase([{ bytes: 3 * MB, seconds: 1 }])).toEqual({ bytesPerSecond: 3 * MB, waitSeconds: 0, relativeHalfWidth: Infinity });
  });
});
