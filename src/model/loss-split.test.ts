import { describe, expect, it } from 'vitest';
import type { LossSample } from './loss-split.js';
import { LEAST_CLEAR_BYTES, splitRetransmissions } from './loss-split.js';

/** Samples of a copy sending `perStretch` bytes between samples, the round trip and the bytes lost in each stretch given. */
function samples(stretches: readonly { rttMs: number; lost: number }[], perStretch = 100_000, minRttMs = 40): LossSample[] {
  const out: LossSample[] = [{ rttMs: minRttMs, minRttMs, bytesSent: 0, bytesRetrans: 0 }];
  let [sent, retrans] = [0, 0];
  for (const stretch of stretches) {
    sent += perStretch;
    retrans += stretch.lost;
    out.push({ rttMs: stretch.rttMs, minRttMs, bytesSent: sent, bytesRetrans: retrans });
  }
  return out;
}

describe('splitRetransmissions', () => {
  it('puts losses with no queue behind them on the path: a CUBIC sender held below the line by 1% random loss', () => {
    const split = splitRetransmissions(samples(Array.from({ length: 40 }, (_, i) => ({ rttMs: 40 + (i % 3) * 0.2, lost: 1000 }))));
    expect(split?.pathBytes).toBe(40_000);
    expect(split?.queueBytes).toBe(0);
  });

  it('puts losses that came at the fullest queue on the copy: a sender overflowing a 5 ms queue, nothing lost while it drained', () => {
    const stretches = Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? { rttMs: 45, lost: 3000 } : { rttMs: 40.5 + (i % 4), lost: 0 }));
    const split = splitRetransmissions(samples(stretches));
    expect(split?.queueBytes).toBe(30_000);
    expect(split?.pathBytes).toBe(0);
    expect(split?.peakQueueMs).toBe(5);
  });

  it('a queue standing half the time, the path losing 1% throughout: the path gets its rate over everything sent, the queue the rest', () => {
    // Blocks of five: clear stretches lose 1%; queued ones 1% from the path and 2% more from the overflow.
    const stretches = Array.from({ length: 40 }, (_, i) => (Math.floor(i / 5) % 2 === 0 ? { rttMs: 40.2, lost: 1000 } : { rttMs: 70, lost: 3000 }));
    const split = splitRetransmissions(samples(stretches));
    expect(split?.pathBytes).toBeCloseTo(40_000, 6);
    expect(split?.queueBytes).toBeCloseTo(40_000, 6);
    expect(split?.pathRateSeen).toBe(true);
  });

  it('a queue standing throughout: no rate for the path can be read, so every loss goes to the queue, and it says so', () => {
    const split = splitRetransmissions(samples(Array.from({ length: 10 }, () => ({ rttMs: 80, lost: 2000 }))));
    expect(split).toMatchObject({ queueBytes: 20_000, pathBytes: 0, pathRateSeen: false });
  });

  it('too little sent with no queue standing reads no path rate', () => {
    const stretches = [{ rttMs: 40, lost: 100 }, ...Array.from({ length: 10 }, () => ({ rttMs: 80, lost: 2000 }))];
    const split = splitRetransmissions(samples(stretches, LEAST_CLEAR_BYTES / 2));
    expect(split?.pathRateSeen).toBe(false);
    expect(split?.pathBytes).toBe(0);
  });

  it('needs two usable samples, and leaves out a sample that is not a number or is negative', () => {
    expect(splitRetransmissions([])).toBeUndefined();
    expect(splitRetransmissions([{ rttMs: 40, bytesSent: 0, bytesRetrans: 0 }])).toBeUndefined();
    const bad = [
      { rttMs: 40, bytesSent: 0, bytesRetrans: 0 },
      { rttMs: Number.NaN, bytesSent: 100_000, bytesRetrans: 500 },
      { rttMs: 40, bytesSent: -1, bytesRetrans: 0 },
      { rttMs: 40.1, bytesSent: 200_000, bytesRetrans: 1000 },
    ];
    expect(splitRetransmissions(bad)).toMatchObject({ pathBytes: 1000, queueBytes: 0 });
  });
});
