import { describe, expect, it } from 'vitest';
import { aggregateBeta, asCongestionControl, lineUtilisation } from './congestion.js';

const BDP = 125_000; // 50 Mb/s x 20 ms
const at = (congestion: 'reno' | 'cubic' | 'compound' | 'bbr', fraction: number, flows = 1) =>
  lineUtilisation({ congestion, bdpBytes: BDP, bufferBytes: BDP * fraction, segmentBytes: 1448, rttMs: 20, flows });

describe('lineUtilisation', () => {
  it("gives Reno's textbook 3/4 with no buffer at all", () => {
    // Closed form for linear growth, beta 0.5, B = 0: (3/8 W^2) / (W^2 / 2) = 0.75.
    expect(at('reno', 0)).toBeCloseTo(0.75, 2);
  });

  it('agrees with the closed form for linear growth at every buffer below the knee', () => {
    // U = W^2 (1 - b^2) / 2 / [(P - bW) P + (W^2 - P^2) / 2] with P = 1, W = 1 + B.
    const closed = (beta: number, buffer: number) => {
      const peak = 1 + buffer;
      return ((peak ** 2) * (1 - beta ** 2)) / 2 / ((1 - beta * peak) + (peak ** 2 - 1) / 2);
    };
    for (const fraction of [0, 1 / 8, 1 / 4, 1 / 2, 0.9]) expect(at('reno', fraction)).toBeCloseTo(closed(0.5, fraction), 2);
  });

  it('fills the line once beta x (BDP + buffer) reaches the BDP: Reno at 1 BDP, CUBIC from 3/7 BDP', () => {
    expect(at('reno', 1)).toBe(1);
    expect(at('reno', 0.99)).toBeLessThan(1);
    expect(at('cubic', 0.43)).toBe(1);
    expect(at('cubic', 0.4)).toBeLessThan(1);
  });

  it('ranks the algorithms by how gently they back off, and BBR is not held back', () => {
    expect(at('cubic', 1 / 8)).toBeGreaterThan(at('reno', 1 / 8));
    expect(at('compound', 1 / 8)).toBeCloseTo(at('reno', 1 / 8), 9);
    expect(at('bbr', 0)).toBe(1);
  });

  it('grows with the buffer', () => {
    const shares = [0, 1 / 8, 1 / 4, 1 / 2].map((fraction) => at('reno', fraction));
    for (let i = 1; i < shares.length; i++) expect(shares[i]).toBeGreaterThan(shares[i - 1] ?? 1);
  });

  it('lets several flows keep the line busier, as one of N backs off at a time', () => {
    expect(aggregateBeta(0.5, 4)).toBeCloseTo(0.875, 9);
    expect(at('reno', 0, 4)).toBeGreaterThan(at('reno', 0, 1));
    expect(at('reno', 1 / 4, 4)).toBe(1);
  });

  it('stays bounded on a path of 10 Gb/s and 600 ms', () => {
    const share = lineUtilisation({ congestion: 'reno', bdpBytes: 750e6, bufferBytes: 0, segmentBytes: 1448, rttMs: 600 });
    expect(share).toBeGreaterThan(0.7);
    expect(share).toBeLessThan(0.8);
  });
});

describe('asCongestionControl', () => {
  it('reads the names stacks report', () => {
    expect(asCongestionControl('bbr')).toBe('bbr');
    expect(asCongestionControl('Reno')).toBe('reno');
    expect(asCongestionControl('htcp')).toBe('cubic');
  });
});
