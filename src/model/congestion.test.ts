import { describe, expect, it } from 'vitest';
import { aggregateBeta, asCongestionControl, idleRestartRtts, lineUtilisation, shallowQueueRamp } from './congestion.js';

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
      return (peak ** 2 * (1 - beta ** 2)) / 2 / (1 - beta * peak + (peak ** 2 - 1) / 2);
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

describe('shallowQueueRamp', () => {
  const SEGMENTS_24_MIB = (24 * 2 ** 20) / 1448;
  const ramp = (
    congestion: 'reno' | 'cubic' | 'bbr',
    fraction: number,
    extra: { flows?: number; totalSegments?: number; initialWindowSegments?: number } = {},
  ) =>
    shallowQueueRamp({
      congestion,
      bdpBytes: BDP,
      bufferBytes: BDP * fraction,
      segmentBytes: 1448,
      rttMs: 20,
      initialWindowSegments: 10,
      totalSegments: SEGMENTS_24_MIB,
      ...extra,
    });

  it('leaves slow start in the first round that sends more than twice the queue, as the lab showed at 1/8 BDP', () => {
    // 86 segments of pipe, 10.8 of queue: rounds of 10, 20, 40; the third overflows. CUBIC came down to 29-30 in the lab.
    expect(ramp('cubic', 1 / 8)).toMatchObject({ exit: 'loss', exitWindowSegments: 40, resumeWindowSegments: 28 });
    expect(ramp('reno', 1 / 8)).toMatchObject({ exit: 'loss', exitWindowSegments: 40, resumeWindowSegments: 20 });
    // 21.6 segments of queue: the round of 40 fits, the round of 80 does not.
    expect(ramp('reno', 1 / 4)).toMatchObject({ exit: 'loss', exitWindowSegments: 80, resumeWindowSegments: 40 });
  });

  it('costs line time: the ramp delivers less than the line could in the same time', () => {
    for (const congestion of ['cubic', 'reno'] as const) {
      const shallow = ramp(congestion, 1 / 8);
      expect(shallow && shallow.lineSeconds / shallow.seconds).toBeLessThan(
        lineUtilisation({ congestion, bdpBytes: BDP, bufferBytes: BDP / 8, segmentBytes: 1448, rttMs: 20 }),
      );
    }
  });

  it('is absent where slow start reaches P + B first, and for BBR', () => {
    expect(ramp('reno', 1)).toBeUndefined();
    expect(ramp('reno', 1 / 2)).toBeUndefined();
    expect(ramp('bbr', 1 / 8)).toBeUndefined();
  });

  it("takes HyStart's exit without a loss when the queue is deeper than half the pipe (Linux CUBIC)", () => {
    // At 1 BDP the round of 80 carries P/2 = 43 ACKs in half an RTT: exit at 80 + 43 in the next round, before its queue overflows.
    const deep = ramp('cubic', 1);
    expect(deep?.exit).toBe('hystart');
    expect(deep?.exitWindowSegments).toBeCloseTo(80 + BDP / 1448 / 2, 6);
    expect(deep?.resumeWindowSegments).toBe(deep?.exitWindowSegments);
  });

  it('stops with a transfer shorter than the ramp, and starts from the first window given', () => {
    const short = ramp('cubic', 1 / 8, { totalSegments: 100 });
    const whole = ramp('cubic', 1 / 8);
    expect(short && whole && short.seconds).toBeLessThan(whole?.seconds ?? 0);
    // From 4 segments: rounds of 4, 8, 16, 32; 32 is the first above 2 x 10.8.
    expect(ramp('reno', 1 / 8, { initialWindowSegments: 4 })?.exitWindowSegments).toBe(32);
  });
});

describe('asCongestionControl', () => {
  it('reads the names stacks report', () => {
    expect(asCongestionControl('bbr')).toBe('bbr');
    expect(asCongestionControl('Reno')).toBe('reno');
    expect(asCongestionControl('htcp')).toBe('cubic');
  });
});

describe('idleRestartRtts', () => {
  it("costs a pacing sender part of a round trip after idle, by the model's name for it, and a loss-based one nothing", () => {
    expect(idleRestartRtts('bbr')).toBeGreaterThan(0);
    // A kernel's own name for a later BBR: paced as BBR is, so restarted as BBR is.
    expect(idleRestartRtts('bbr2')).toBe(idleRestartRtts('bbr'));
    expect(idleRestartRtts('cubic')).toBe(0);
    expect(idleRestartRtts('reno')).toBe(0);
  });
});
