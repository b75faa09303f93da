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

  it("looks a round trip back from each retransmission: a loss at the top of a queue that swings within one is the queue's, sent again once it drained", () => {
    // Every 10 ms on a 40 ms path: the queue stands 5 ms for a moment, drains, and the loss is sent again 40 ms later.
    const cycle = (t0: number, sent0: number, lost0: number): LossSample[] => [
      { tMs: t0, rttMs: 45, minRttMs: 40, bytesSent: sent0 + 60_000, bytesRetrans: lost0 },
      ...[10, 20, 30].map((dt, i) => ({ tMs: t0 + dt, rttMs: 40.2, minRttMs: 40, bytesSent: sent0 + 60_000 * (i + 2), bytesRetrans: lost0 })),
      { tMs: t0 + 40, rttMs: 40.2, minRttMs: 40, bytesSent: sent0 + 300_000, bytesRetrans: lost0 + 3000 },
    ];
    const samples = [
      { tMs: -10, rttMs: 40, minRttMs: 40, bytesSent: 0, bytesRetrans: 0 },
      ...[0, 1, 2, 3].flatMap((k) => cycle(50 * k, 300_000 * k, 3000 * k)),
    ];
    expect(splitRetransmissions(samples)).toMatchObject({ queueBytes: 12_000, pathBytes: 0 });
    // Without their times, each stretch is weighed at its own two samples: the same losses look like the path's.
    const untimed = samples.map((sample) => ({
      rttMs: sample.rttMs,
      minRttMs: 40,
      bytesSent: sample.bytesSent,
      bytesRetrans: sample.bytesRetrans,
    }));
    expect(splitRetransmissions(untimed)?.pathBytes).toBe(12_000);
  });

  it("takes no queue from a round trip the copy did not drive: the kernel's smoothed RTT before its first bytes is the last transfer's", () => {
    // The connection's last transfer left its smoothed RTT at 57 ms; this copy, held below the line by random loss, stands no queue.
    const stale = { tMs: 0, rttMs: 57.3, minRttMs: 40, bytesSent: 5_000_000, bytesRetrans: 40_000 };
    const fresh = Array.from({ length: 20 }, (_, i) => ({
      tMs: 10 * (i + 1),
      rttMs: 40.3,
      minRttMs: 40,
      bytesSent: 5_000_000 + 50_000 * (i + 1),
      bytesRetrans: 40_000 + 500 * (i + 1),
    }));
    expect(splitRetransmissions([stale, ...fresh])).toMatchObject({ pathBytes: 10_000, queueBytes: 0, peakQueueMs: expect.closeTo(0.3, 9) as unknown });
  });
});
