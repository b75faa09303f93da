import { describe, expect, it } from 'vitest';
import { CopyBudget, dataPhase } from './copy-budget.js';

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

describe('CopyBudget with whole files (a directory set read source)', () => {
  const run = (msPerFile: number, options: { minSpanMs?: number; maxSeconds?: number }) => {
    let now = 0;
    const budget = new CopyBudget(() => now, { rttMs: 0.08, maxSeconds: options.maxSeconds ?? 10, wholeFiles: 2, ...options });
    let files = 0;
    for (; files < 15 && budget.mayStartNext(); files++) {
      budget.beginData();
      now += msPerFile;
      budget.fileDone({ fullBytes: 3.5 * MB, movedBytes: 3.5 * MB, seconds: msPerFile / 1000, dataSeconds: msPerFile / 1000 });
    }
    return files;
  };

  it('stops after two whole files where they took long enough', () => {
    expect(run(300, { minSpanMs: 200 })).toBe(2);
  });

  it('goes on with whole files on a fast path until the settle span has passed, or all are moved', () => {
    // An idle loopback: 3 ms a file. Two files were 5-8 ms of copying, projected at 1.4-1.5x the model.
    expect(run(3, { minSpanMs: 200 })).toBe(15);
    expect(run(30, { minSpanMs: 200 })).toBe(7);
    expect(run(3, {})).toBe(2);
  });

  it('never beyond its slot', () => {
    expect(run(30, { minSpanMs: 200, maxSeconds: 0.1 })).toBe(4);
  });
});

describe('CopyBudget stopping a file part-way', () => {
  // A lossy hop's pace: 400 KB/s, 1 MB requests completing every 2.5 s, a 10 s slot.
  const atPace = (inFlightBytes: number) => {
    let now = 0;
    const budget = new CopyBudget(() => now, { rttMs: 40, maxSeconds: 10 });
    budget.mayStartNext();
    budget.beginData();
    for (let completed = 1; completed <= 2; completed++) {
      now = completed * 2500;
      budget.noteTotal(completed * MB);
    }
    now = 6000;
    return budget.shouldStopData(inFlightBytes);
  };

  it('stops issuing where what is in flight would arrive after the slot', () => {
    // 2 MB in flight at 400 KB/s arrive 5 s on: past the 10 s slot from 6 s.
    expect(atPace(2 * MB)).toBe(true);
  });

  it('goes on where it arrives within the slot, or nothing is in flight', () => {
    expect(atPace(1 * MB)).toBe(false);
    expect(atPace(0)).toBe(false);
  });
});
