import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from './copy-test.js';
import { copyFraction, throttleProgress } from './progress.js';

describe('progress', () => {
  it('places each phase of a test copy in order, from 0 to 1', () => {
    expect(copyFraction('connect', 0, 0)).toBe(0);
    expect(copyFraction('copy', 0, 100)).toBeGreaterThan(copyFraction('prepare', 50, 100));
    expect(copyFraction('copy', 100, 100)).toBeLessThanOrEqual(copyFraction('verify', 0, 100));
    expect(copyFraction('clean-up', 1, 1)).toBe(1);
  });

  it('passes step changes and finished steps, and at most one event per interval otherwise', () => {
    let clock = 0;
    const seen: ProgressEvent[] = [];
    const throttled = throttleProgress(
      (event) => seen.push(event),
      100,
      () => clock,
    );
    const event = (step: string, bytes: number): ProgressEvent => ({ step, bytes, totalBytes: 100 });
    throttled(event('copy', 1));
    for (let bytes = 2; bytes < 50; bytes++) {
      clock += 1;
      throttled(event('copy', bytes));
    }
    expect(seen.map((e) => e.bytes)).toEqual([1]);
    clock += 100;
    throttled(event('copy', 60));
    throttled(event('copy', 100));
    throttled(event('verify', 1));
    expect(seen.map((e) => `${e.step} ${e.bytes}`)).toEqual(['copy 1', 'copy 60', 'copy 100', 'verify 1']);
  });
});
