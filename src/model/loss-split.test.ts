import { describe, expect, it } from 'vitest';
import type { LossSample } from './loss-split.js';
import { LEAST_CLEAR_BYTES, notAnOverflow, splitRetransmissions } from './loss-split.js';

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
    // The queue builds over four stretches and overflows at the fifth, ten times: every loss where it stood.
    const stretches = Array.from({ length: 50 }, (_, i) => (i % 5 === 4 ? { rttMs: 45, lost: 3000 } : { rttMs: 40.2 + 0.4 * (i % 5), lost: 0 }));
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

  it("reads no queue from a few losses that merely happened to come where one stood: not beyond chance, all are the path's", () => {
    // 40 stretches, a queue standing in 12 (30% of the bytes); four of five losses came there. By rates the queue would
    // get most; by chance, four or more of five where 30% of the bytes went is 3%, above CROWDED_CHANCE.
    const stretches = Array.from({ length: 40 }, (_, i) => ({ rttMs: i < 12 ? 50 : 40.2, lost: [1, 4, 7, 10, 30].includes(i) ? 1448 : 0 }));
    expect(splitRetransmissions(samples(stretches))).toMatchObject({ pathBytes: 5 * 1448, queueBytes: 0, pathRateSeen: true });
  });

  it('with no loss in the clear and too few to crowd where the queue stood, does not say whose they were', () => {
    // A megabyte's one run of losses, at the top of its slow start.
    const stretches = Array.from({ length: 40 }, (_, i) => ({ rttMs: i < 20 ? 50 : 40.2, lost: i === 3 || i === 9 ? 1448 : 0 }));
    expect(splitRetransmissions(samples(stretches))).toMatchObject({ pathBytes: 0, queueBytes: 0, decided: false, peakQueueMs: 10 });
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

  describe('with what the kernel had in flight and its delivery rate', () => {
    // 50 Mb/s (6.25 MB/s) over 40 ms: the path holds 250 kB.
    const RATE = 6_250_000;
    /** Stretches of 50 kB each 10 ms, with the round trip, the bytes lost and (unless `withFlight` is false) what was in flight at each sample's end. */
    const flying = (stretches: readonly { rttMs: number; lost: number; inFlight: number; rate?: number }[], withFlight = true): LossSample[] => {
      const flight = (inFlightBytes: number, deliveryBytesPerSecond: number) => (withFlight ? { inFlightBytes, deliveryBytesPerSecond } : {});
      const out: LossSample[] = [{ tMs: 0, rttMs: 40, minRttMs: 40, bytesSent: 0, bytesRetrans: 0, ...flight(0, 0) }];
      let [sent, lost] = [0, 0];
      stretches.forEach((stretch, i) => {
        [sent, lost] = [sent + 50_000, lost + stretch.lost];
        out.push({
          tMs: 10 * (i + 1),
          rttMs: stretch.rttMs,
          minRttMs: 40,
          bytesSent: sent,
          bytesRetrans: lost,
          ...flight(stretch.inFlight, stretch.rate ?? RATE),
        });
      });
      return out;
    };

    it("a round trip lengthened by delayed ACKs, with a tenth of what the path holds in flight, is no queue: the losses are the path's", () => {
      // CUBIC held to 30 packets by 1% random loss; every fourth sample's smoothed RTT is 22 ms high (a 40 ms delayed ACK).
      const stretches = Array.from({ length: 40 }, (_, i) => ({
        rttMs: i % 4 === 3 ? 62 : 40.5,
        lost: i % 4 === 3 ? 1500 : 300,
        inFlight: 43_000,
        rate: 1_100_000,
      }));
      expect(splitRetransmissions(flying(stretches))).toMatchObject({ queueBytes: 0, pathBytes: 24_000, pathRateSeen: true });
      expect(splitRetransmissions(flying(stretches))?.peakQueueMs).toBe(0);
      // Read by the round trip alone, the same copy seems to stand a 22 ms queue.
      expect(splitRetransmissions(flying(stretches, false))?.peakQueueMs).toBeCloseTo(22, 9);
    });

    it("a queue in both the round trip and the flight is the copy's own: 5 ms above the least, 31 kB more out than the path holds", () => {
      // Once every 100 ms, ten times: losses only then (a look-back of 50 ms puts the five stretches before each with them).
      const stretches = Array.from({ length: 100 }, (_, i) =>
        i % 10 === 9 ? { rttMs: 45, lost: 3000, inFlight: 281_250 } : { rttMs: 40.5, lost: 0, inFlight: 250_000 },
      );
      const split = splitRetransmissions(flying(stretches));
      expect(split).toMatchObject({ queueBytes: 30_000, pathBytes: 0 });
      expect(split?.peakQueueMs).toBeCloseTo(5, 9);
    });

    it("a burst that overflowed the queue is the copy's, though the round trip shows it only as the flight has fallen and the losses are sent again in waves", () => {
      // As the lab's Windows 11 write with 16 credits did (100 Mb/s / 40 ms, 2026-11-28): a megabyte out at once, 40 ms
      // beyond what the path holds while the smoothed round trip still read 2; the round trip read the queue 70 ms
      // later, as the losses came back and cut what was in flight; the rest of them were sent again 40 ms after that.
      const clear = (count: number) => Array.from({ length: count }, () => ({ rttMs: 40.3, lost: 0, inFlight: 150_000 }));
      const burst = [
        ...Array.from({ length: 3 }, () => ({ rttMs: 42, lost: 0, inFlight: 500_000 })),
        ...Array.from({ length: 3 }, () => ({ rttMs: 42, lost: 0, inFlight: 200_000 })),
        { rttMs: 80, lost: 30_000, inFlight: 60_000 },
        { rttMs: 80, lost: 5_000, inFlight: 60_000 },
        { rttMs: 60, lost: 0, inFlight: 60_000 },
        { rttMs: 41, lost: 0, inFlight: 60_000 },
        { rttMs: 40.5, lost: 25_000, inFlight: 60_000 },
      ];
      // Three bursts: three of three recoveries where a seventh of the bytes went is beyond chance (CROWDED_CHANCE).
      const split = splitRetransmissions(flying([...clear(30), ...burst, ...clear(60), ...burst, ...clear(60), ...burst, ...clear(60)]));
      expect(split).toMatchObject({ queueBytes: 180_000, pathBytes: 0, pathRateSeen: true, decided: true });
      expect(split?.queueAtLossMs).toBeCloseTo(40, 9);
    });

    it("a sender losing all the time at a queue it keeps standing (BBR into an eighth of a BDP) is the copy's own: its losses are many events, not one recovery", () => {
      // 1.2 s standing a 5 ms queue and losing at every sample, then 0.8 s with none standing and nothing lost: as one
      // recovery, one loss event where 60% of the bytes went says nothing; as one each stretch, 120 do.
      const stretches = Array.from({ length: 200 }, (_, i) =>
        i < 120 ? { rttMs: 45, lost: 8000, inFlight: 281_250 } : { rttMs: 40.3, lost: 0, inFlight: 200_000 },
      );
      expect(splitRetransmissions(flying(stretches))).toMatchObject({ queueBytes: 960_000, pathBytes: 0, pathRateSeen: true, decided: true });
    });

    it("a megabyte's slow start overshooting an eighth of a BDP is the copy's own, its tail resent after a timeout with one packet in flight", () => {
      // As the lab's 1 MiB writes (50 Mb/s / 40 ms, a 31 kB queue, 2026-11-28): 650 packets out with no queue and
      // none lost, then 170 of 230 lost in the four stretches at the queue's top, then 300 ms on, the tail resent.
      const ramp = Array.from({ length: 13 }, (_, i) => ({ rttMs: 40.6, lost: 0, inFlight: 20_000 * (i + 1) }));
      const top = Array.from({ length: 4 }, () => ({ rttMs: 45.2, lost: 60_000, inFlight: 290_000 }));
      const idle = Array.from({ length: 30 }, () => ({ rttMs: 44.5, lost: 0, inFlight: 0 }));
      const samples = flying([...ramp, ...top, ...idle]);
      // The tail: nothing new, a packet and then three sent again, each once.
      let last = samples.at(-1) as LossSample;
      for (const resent of [1448, 4344]) {
        last = { ...last, tMs: (last.tMs ?? 0) + 40, bytesSent: last.bytesSent + resent, bytesRetrans: last.bytesRetrans + resent, inFlightBytes: resent };
        samples.push(last);
      }
      const split = splitRetransmissions(samples);
      expect(split).toMatchObject({ pathBytes: 0, queueBytes: 240_000 + 5792, decided: true });
    });

    it('a fading hop that loses a run of packets where a queue happened to stand, and as much in the clear, stays the path', () => {
      // 1% in runs of four: the queue's stretches lose a run more than their share, not ten times the clear rate.
      const stretches = Array.from({ length: 100 }, (_, i) =>
        i % 10 === 9
          ? { rttMs: 45, lost: i % 20 === 19 ? 4 * 1448 : 0, inFlight: 281_250 }
          : { rttMs: 40.5, lost: i % 9 === 0 ? 4 * 1448 : 0, inFlight: 150_000 },
      );
      const split = splitRetransmissions(flying(stretches));
      expect(split?.queueBytes).toBe(0);
      expect(split?.pathBytes).toBeGreaterThan(0);
    });

    it("a write a fading hop holds far below the line stands no queue, whatever its flight's jitter, where the line's rate is known", () => {
      // As the lab's write through 1% in runs of four did (50 Mb/s / 40 ms, 2026-11-28): about 34 kB in flight at its
      // own 0.85 MB/s, its round trip and its flight a little up now and then, and every loss at one of those moments.
      const held: LossSample[] = [{ tMs: 0, rttMs: 40.5, minRttMs: 40, bytesSent: 0, bytesRetrans: 0, inFlightBytes: 0, deliveryBytesPerSecond: 850_000 }];
      for (let i = 1; i <= 100; i += 1) {
        const up = i % 25 === 0;
        const previous = held[i - 1] as LossSample;
        held.push({
          tMs: 10 * i,
          rttMs: up ? 43 : 40.5,
          minRttMs: 40,
          bytesSent: previous.bytesSent + 8500,
          bytesRetrans: previous.bytesRetrans + (up ? 2896 : 0),
          inFlightBytes: up ? 37_000 : 34_000,
          deliveryBytesPerSecond: 850_000,
        });
      }
      // Against its own best rate, its flight stood 3.5 ms above what the path holds at every loss: its own queue.
      expect(splitRetransmissions(held)?.queueBytes).toBeGreaterThan(0);
      // The line carries 6.25 MB/s, and holds 250 kB over the round trip: no queue stood, and the losses are the path's.
      expect(splitRetransmissions(held, { lineBytesPerSecond: RATE })).toMatchObject({ queueBytes: 0, pathBytes: 4 * 2896, peakQueueMs: 0, decided: true });
      // A line slower than the copy's own delivery says nothing more than the copy did.
      expect(splitRetransmissions(held, { lineBytesPerSecond: 100_000 })).toEqual(splitRetransmissions(held));
    });

    it('leaves the flight out where a sample lacks it or no delivery was seen', () => {
      const stretches = Array.from({ length: 10 }, () => ({ rttMs: 80, lost: 2000, inFlight: 10_000, rate: 0 }));
      expect(splitRetransmissions(flying(stretches))).toMatchObject({ queueBytes: 20_000, pathRateSeen: false });
      // A known line does not stand in for a delivery never seen.
      expect(splitRetransmissions(flying(stretches), { lineBytesPerSecond: RATE })).toEqual(splitRetransmissions(flying(stretches)));
    });
  });

  it('gives the deepest queue at losses not put to the path', () => {
    const stretches = Array.from({ length: 40 }, (_, i) => ({ rttMs: i < 20 ? 50 : 40.2, lost: i === 3 || i === 9 ? 1448 : 0 }));
    expect(splitRetransmissions(samples(stretches))?.queueAtLossMs).toBe(10);
    // All the path's: none.
    expect(splitRetransmissions(samples(Array.from({ length: 40 }, () => ({ rttMs: 40.1, lost: 1000 }))))?.queueAtLossMs).toBe(0);
  });
});

describe('notAnOverflow', () => {
  it('holds where another write stood a queue half again deeper and a millisecond more', () => {
    expect(notAnOverflow(8.6, 15.8)).toBe(true);
    expect(notAnOverflow(5.4, 5.5)).toBe(false);
    expect(notAnOverflow(10, 15.9)).toBe(false);
    expect(notAnOverflow(10, 16)).toBe(true);
    // No queue at the losses: nothing to weigh.
    expect(notAnOverflow(0, 30)).toBe(false);
  });
});
