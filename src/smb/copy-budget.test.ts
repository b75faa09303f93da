import { describe, expect, it } from 'vitest';
import { dataPhase, projectFromFileCopy } from './copy-budget.js';

const MB = 1e6;

describe('dataPhase', () => {
  it('takes a settled rate as given and puts what the files took beyond it into their wait', () => {
    const phase = dataPhase([{ bytes: 2 * MB, seconds: 0.5 }, { bytes: 4 * MB, seconds: 0.9 }], { bytesPerSecond: 5 * MB, relativeHalfWidth: 0.03 });
    expect(phase.bytesPerSecond).toBe(5 * MB);
    expect(phase.waitSeconds).toBeCloseTo(0.1);
    expect(phase.relativeHalfWidth).toBe(0.03);
  });

  it('fits a line through whole files without one: rate from the slope, wait from the intercept', () => {
    const phase = dataPhase([{ bytes: 1 * MB, seconds: 0.3 }, { bytes: 5 * MB, seconds: 1.1 }]);
    expect(phase.bytesPerSecond).toBeCloseTo(5 * MB);
    expect(phase.waitSeconds).toBeCloseTo(0.1);
  });

  it('with one point, bytes over seconds and no wait', () => {
    expect(dataPhase([{ bytes: 3 * MB, seconds: 1 }])).toEqual({ bytesPerSecond: 3 * MB, waitSeconds: 0, relativeHalfWidth: Infinity });
  });
});

describe('projectFromFileCopy', () => {
  it('gives every file the round trips and wait of the file copy, every folder its round trips, and the bytes at its rate', () => {
    const workload = { files: [{ bytes: 50_000 }, { bytes: 5 * MB }, { bytes: 5 * MB }], folders: 2 };
    // The file copy: 0.7 s of round trips around its file, 8 MB of data in 1.7 s at a settled 5 MB/s (so a 0.1 s wait).
    const hint = { dataBytes: 8 * MB, dataSeconds: 1.7, metadataSeconds: 0.7, afterRamp: { bytesPerSecond: 5 * MB, relativeHalfWidth: 0.04 } };
    const { projection, bytesPerSecond, relativeHalfWidth } = projectFromFileCopy(workload, hint, 0.225);
    expect(bytesPerSecond).toBe(5 * MB);
    expect(relativeHalfWidth).toBe(0.04);
    expect(projection.seconds).toBeCloseTo(3 * (0.7 + 0.1) + 2 * 0.225 + 10.05 / 5);
    expect(projection.lowSeconds).toBeLessThan(projection.seconds);
    expect(projection.highSeconds).toBeGreaterThan(projection.seconds);
  });

  it("without a settled rate, the file copy's bytes over its data time, and no range to claim", () => {
    const { projection } = projectFromFileCopy({ files: [{ bytes: 2 * MB }], folders: 0 }, { dataBytes: 1 * MB, dataSeconds: 0.5, metadataSeconds: 0.2 }, 0.1);
    expect(projection.seconds).toBeCloseTo(0.2 + 1);
    expect(projection.highSeconds).toBe(Infinity);
  });
});
