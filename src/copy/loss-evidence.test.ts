import { describe, expect, it } from 'vitest';
import { lossSampleOf, watchLosses, withLossSplit, withRunLossReading } from './loss-evidence.js';

describe("a write's losses split in its TCP evidence", () => {
  const tcp = { retransmittedFraction: 0.02 };
  // 1 MB sent in 40 stretches; 20 kB sent again: the first half with no queue standing, losing 1%, the second with a
  // 30 ms queue, losing 3% (enough losses crowd there for the split by rates to be read).
  const samples = [
    { rttMs: 40, minRttMs: 40, bytesSent: 0, bytesRetrans: 0 },
    ...Array.from({ length: 40 }, (_, i) => ({
      rttMs: i < 20 ? 40.2 : 70,
      minRttMs: 40,
      bytesSent: 25_000 * (i + 1),
      bytesRetrans: i < 20 ? 250 * (i + 1) : 5_000 + 750 * (i - 19),
    })),
  ];

  it('adds the shares of the bytes sent that went again for each cause, and the highest the queue stood', () => {
    const split = withLossSplit(tcp, samples);
    expect(split).toMatchObject({ retransmittedFraction: 0.02, peakQueueMs: 30 });
    expect(split?.lossOnPathFraction).toBeCloseTo(0.01, 12);
    expect(split?.lossAtQueueFraction).toBeCloseTo(0.01, 12);
  });

  it('leaves the evidence as it was with no samples, too few, or nothing sent', () => {
    expect(withLossSplit(tcp, undefined)).toBe(tcp);
    expect(withLossSplit(tcp, samples.slice(0, 1))).toBe(tcp);
    const start = { rttMs: 40, minRttMs: 40, bytesSent: 0, bytesRetrans: 0 };
    expect(withLossSplit(tcp, [start, start])).toBe(tcp);
    expect(withLossSplit(undefined, samples)).toBeUndefined();
  });

  it("leaves the path's share out where the copy never sent without a queue standing: its rate could not be read", () => {
    const standing = [
      { rttMs: 40, minRttMs: 40, bytesSent: 0, bytesRetrans: 0 },
      { rttMs: 70, minRttMs: 40, bytesSent: 500_000, bytesRetrans: 5_000 },
      { rttMs: 70, minRttMs: 40, bytesSent: 1_000_000, bytesRetrans: 20_000 },
    ];
    expect(withLossSplit(tcp, standing)).toEqual({ retransmittedFraction: 0.02, lossAtQueueFraction: 0.02, peakQueueMs: 30, queueAtLossMs: 30 });
  });

  it('gives the queue the copy stood but no shares where its losses were too few to say whose', () => {
    const few = [
      { rttMs: 40, minRttMs: 40, bytesSent: 0, bytesRetrans: 0 },
      ...Array.from({ length: 40 }, (_, i) => ({ rttMs: i < 20 ? 56 : 40.2, minRttMs: 40, bytesSent: 25_000 * (i + 1), bytesRetrans: i < 3 ? 0 : 7_240 })),
    ];
    expect(withLossSplit({ retransmittedFraction: 0.007 }, few)).toEqual({
      retransmittedFraction: 0.007,
      peakQueueMs: 16,
      lossUnsplitFraction: 7_240 / 1_000_000,
      queueAtLossMs: 16,
    });
  });

  describe('read across the run', () => {
    const write = (tcp: Record<string, number>) => ({
      profile: 'win11-24h2' as const,
      op: 'write' as const,
      workload: 'file:1MiB',
      seconds: 1,
      bytes: 1,
      throughputMbps: 1,
      tcp,
    });
    it("puts to the path a write's losses that came with a queue well below the deepest another write stood: the queue had room", () => {
      // The person's write lost 1.1% too few to say whose, at a 8.6 ms queue; Pipefill's own stood 15.8 ms and lost nothing.
      const mine = write({ retransmittedFraction: 0.011, peakQueueMs: 8.6, lossUnsplitFraction: 0.011, queueAtLossMs: 8.6 });
      const other = write({ retransmittedFraction: 0, peakQueueMs: 15.8, lossAtQueueFraction: 0, lossOnPathFraction: 0 });
      const [revised, kept] = withRunLossReading([mine, other]);
      expect(revised?.tcp).toEqual({ retransmittedFraction: 0.011, peakQueueMs: 8.6, queueAtLossMs: 8.6, lossAtQueueFraction: 0, lossOnPathFraction: 0.011 });
      expect(kept).toBe(other);
    });

    it('leaves them where every write of the run overflowed the same queue (a drop-tail queue overflows at one depth)', () => {
      const bbr = [
        write({ retransmittedFraction: 0.2, peakQueueMs: 5.4, lossAtQueueFraction: 0.2, lossOnPathFraction: 0, queueAtLossMs: 5.4 }),
        write({ retransmittedFraction: 0.25, peakQueueMs: 5.5, lossAtQueueFraction: 0.23, lossOnPathFraction: 0.02, queueAtLossMs: 5.5 }),
      ];
      expect(withRunLossReading(bbr)).toEqual(bbr);
    });

    it("reads no queue from a read: its round trip is not a write's", () => {
      const mine = write({ retransmittedFraction: 0.011, peakQueueMs: 8.6, lossUnsplitFraction: 0.011, queueAtLossMs: 8.6 });
      const read = { ...write({ peakQueueMs: 40 }), op: 'read' as const };
      expect(withRunLossReading([mine, read])[0]).toBe(mine);
    });
  });

  it('reads a sample as the split takes it: no byte count or round trip, no sample; no bytes_retrans yet (ss leaves it out), none sent again', () => {
    expect(lossSampleOf({ rttMs: 40, bytesSent: 5000 })).toEqual({ rttMs: 40, bytesSent: 5000, bytesRetrans: 0 });
    expect(lossSampleOf({ rttMs: 40, minRttMs: 39.5, bytesSent: 5000, bytesRetrans: 20 })).toEqual({
      rttMs: 40,
      minRttMs: 39.5,
      bytesSent: 5000,
      bytesRetrans: 20,
    });
    expect(lossSampleOf({ bytesSent: 5000 })).toBeUndefined();
    expect(lossSampleOf({ rttMs: 40 })).toBeUndefined();
    expect(lossSampleOf(undefined)).toBeUndefined();
  });

  it('runs no watch beside a copy off Linux, where neither the kernel nor ss can say anything', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform');
    Object.defineProperty(process, 'platform', { value: 'darwin' });
    try {
      const connection = { kernelSample: () => undefined, endpoints: { localAddress: '', localPort: 50_000, remoteAddress: '', remotePort: 445 } };
      expect(watchLosses(connection)).toBeUndefined();
    } finally {
      if (platform) Object.defineProperty(process, 'platform', platform);
    }
  });
});
