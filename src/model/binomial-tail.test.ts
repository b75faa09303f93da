import { describe, expect, it } from 'vitest';
import { binomialTailAtLeast } from './binomial-tail.js';

describe('binomialTailAtLeast', () => {
  it('sums what a small case gives by hand', () => {
    // Five fair coins: at least 4 heads is (5 + 1) / 32.
    expect(binomialTailAtLeast(4, 5, 0.5)).toBeCloseTo(6 / 32, 12);
    // Five losses, each with a 10% chance of falling where a queue stood: one or more there is 1 - 0.9^5.
    expect(binomialTailAtLeast(1, 5, 0.1)).toBeCloseTo(1 - 0.9 ** 5, 12);
    expect(binomialTailAtLeast(5, 5, 0.1)).toBeCloseTo(1e-5, 15);
  });

  it('holds its edges: nothing asked, more than there were, and certain or impossible draws', () => {
    expect(binomialTailAtLeast(0, 10, 0.3)).toBe(1);
    expect(binomialTailAtLeast(11, 10, 0.3)).toBe(0);
    expect(binomialTailAtLeast(3, 10, 0)).toBe(0);
    expect(binomialTailAtLeast(3, 10, 1)).toBe(1);
  });

  it('neither underflows nor overflows over thousands of events', () => {
    // 5000 events at one half: at least half of them is a little over one half.
    expect(binomialTailAtLeast(2500, 5000, 0.5)).toBeCloseTo(0.5 + 0.5 * 0.011283, 4);
    // Every one of 3000 events where a queue stood 90% of the time: 0.9^3000, far below any bound but not NaN.
    const all = binomialTailAtLeast(3000, 3000, 0.9);
    expect(all).toBeGreaterThanOrEqual(0);
    expect(all).toBeLessThan(1e-100);
  });

  it('refuses what is not a count or a chance', () => {
    expect(() => binomialTailAtLeast(1.5, 5, 0.5)).toThrow(RangeError);
    expect(() => binomialTailAtLeast(1, 5, Number.NaN)).toThrow(RangeError);
    expect(() => binomialTailAtLeast(1, -1, 0.5)).toThrow(RangeError);
  });
});
