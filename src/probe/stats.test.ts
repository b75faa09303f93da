import { describe, expect, it } from 'vitest';
import { summarizeLatency } from './stats.js';

describe('summarizeLatency', () => {
  it('reports min, median, p95 and jitter', () => {
    const stats = summarizeLatency([32, 33, 31, 40, 32, 32, 33, 32, 31, 34]);
    expect(stats.samples).toBe(10);
    expect(stats.minMs).toBe(31);
    expect(stats.medianMs).toBe(32);
    expect(stats.p95Ms).toBeCloseTo(37.3, 5);
    // |33-32|+|31-33|+|40-31|+|32-40|+0+|33-32|+|32-33|+|31-32|+|34-31| = 26, over 9 gaps.
    expect(stats.jitterMs).toBeCloseTo(26 / 9, 9);
  });

  it('has no jitter with one sample, and refuses none', () => {
    expect(summarizeLatency([5]).jitterMs).toBe(0);
    expect(() => summarizeLatency([])).toThrow(/No latency samples/);
  });
});
