import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProgressEvent } from '../contract/copy-test.js';
import { HEARTBEAT_MS, RunProgress } from './run-progress.js';

describe('RunProgress', () => {
  afterEach(() => vi.useRealTimers());

  it('moves with the work, never back, and ends at 100% with done', () => {
    const events: ProgressEvent[] = [];
    const progress = new RunProgress(
      (event) => events.push(event),
      () => undefined,
    );
    progress.report('probe', 0);
    progress.report("the hosts' calibration", 0, 0.5);
    // Four copies: steps 1-4, then the read-backs (5) and the check (6), of 7.
    progress.plan(4);
    progress.report('copy 1', 1);
    progress.report('copy 1: copy', 1, 0.5, { bytes: 50, totalBytes: 100 });
    progress.report('copy 2', 2);
    progress.report('copy 1 again, late', 1, 0.2);
    progress.report('reading back', progress.readBackStep);
    progress.report('the signing check', progress.checkStep);
    progress.done();
    const fractions = events.map((event) => event.fraction ?? NaN);
    expect(fractions.every((fraction, index) => index === 0 || fraction >= (fractions[index - 1] ?? 0))).toBe(true);
    expect(events.find((event) => event.step === 'copy 2')?.fraction).toBeCloseTo(2 / 7);
    expect(events.find((event) => event.step === 'copy 1 again, late')?.fraction).toBeCloseTo(2 / 7);
    expect(events.find((event) => event.step === 'the signing check')?.fraction).toBeCloseTo(6 / 7);
    expect(events.at(-1)).toEqual({ step: 'done', bytes: 0, totalBytes: 0, fraction: 1 });
  });

  it('repeats a quiet step every half second with the budget brought up to date, and stops with the run', () => {
    vi.useFakeTimers();
    const events: ProgressEvent[] = [];
    let elapsedSeconds = 0;
    const progress = new RunProgress(
      (event) => events.push(event),
      () => ({ seconds: 20, elapsedSeconds }),
    );
    progress.report('probe', 0);
    elapsedSeconds = 1.5;
    vi.advanceTimersByTime(3 * HEARTBEAT_MS);
    expect(events.map((event) => [event.step, event.budget?.elapsedSeconds])).toEqual([
      ['probe', 0],
      ['probe', 1.5],
      ['probe', 1.5],
      ['probe', 1.5],
    ]);
    progress.stop();
    vi.advanceTimersByTime(10 * HEARTBEAT_MS);
    expect(events).toHaveLength(4);
  });
});
