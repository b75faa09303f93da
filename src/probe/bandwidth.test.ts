import { describe, expect, it } from 'vitest';
import { PipefillError } from '../model/errors.js';
import { parseIperfJson, steadyRate } from './bandwidth.js';
import type { ReadSpan } from './read-rate.js';
import { ArrivalLog, steadyReadRate } from './read-rate.js';

describe('parseIperfJson', () => {
  it('reads the received rate, retransmits and congestion control', () => {
    const text = JSON.stringify({
      end: {
        sum_received: { bits_per_second: 144.2e6, seconds: 5.0, bytes: 90e6 },
        sum_sent: { retransmits: 62, bytes: 90.5e6 },
        sender_tcp_congestion: 'bbr',
      },
    });
    const result = parseIperfJson(text, true);
    expect(result).toMatchObject({ mbps: 144.2, method: 'iperf3', direction: 'download', seconds: 5, retransmits: 62, congestion: 'bbr' });
    expect(result.lossPercent).toBeCloseTo((62 / (90.5e6 / 1448)) * 100, 6);
  });

  it("passes on iperf3's own error", () => {
    expect(() => parseIperfJson(JSON.stringify({ error: 'unable to connect to server: Connection refused' }), false)).toThrow(/Connection refused/);
    expect(() => parseIperfJson('not json', false)).toThrow(PipefillError);
  });
});

describe('steadyRate', () => {
  // 0.1 s intervals as a 2 s test at 52 Mb/s / 75 ms delivered them on the WAN lab (2026-11-23): slow start,
  // the overshoot's recovery (a burst at twice the line, then near nothing), then the line's rate.
  const lab = [3, 3, 9, 22, 46, 50, 18, 14, 98, 39, 12, 120, 50, 50, 50, 50, 50, 50, 48, 50];
  const intervals = (rates: readonly number[]) => rates.map((mbps, index) => ({ start: index / 10, end: (index + 1) / 10, bitsPerSecond: mbps * 1e6 }));

  it("is the median of the second half's intervals, which the recovery's bursts do not move", () => {
    expect(steadyRate(intervals(lab))).toBe(50e6);
    // The same test's mean is 20% low.
    const mean = lab.reduce((sum, mbps) => sum + mbps, 0) / lab.length;
    expect(mean).toBeLessThan(42);
  });

  it('needs five intervals in the second half', () => {
    expect(steadyRate(intervals([10, 20, 30, 40, 50, 50, 50, 50]))).toBeUndefined();
    expect(steadyRate(intervals([10, 20, 30, 40, 50, 50, 50, 50, 50, 50]))).toBe(50e6);
    expect(steadyRate([])).toBeUndefined();
  });

  it('leaves out intervals that carry no time or no number', () => {
    const rates = [
      ...intervals(lab),
      { start: 2, end: 2, bitsPerSecond: 1e12 },
      { start: 1.5, end: 1.6, bitsPerSecond: Number.NaN },
      ...Array.from({ length: 12 }, () => ({ start: '1.7' as unknown as number, end: 1.8, bitsPerSecond: 1e12 })),
    ];
    expect(steadyRate(rates)).toBe(50e6);
  });
});

describe('parseIperfJson, steady', () => {
  const interval = (start: number, mbps: number, omitted = false) => ({ sum: { start, end: start + 0.1, bits_per_second: mbps * 1e6, omitted } });
  const end = { sum_received: { bits_per_second: 41.6e6, seconds: 2, bytes: 10.4e6 }, sum_sent: { retransmits: 40, bytes: 10.5e6 } };

  it("reads the intervals' steady rate when asked, and says so", () => {
    const rates = [3, 3, 9, 22, 46, 50, 18, 14, 98, 39, 12, 120, 50, 50, 50, 50, 50, 50, 48, 50];
    const text = JSON.stringify({ intervals: rates.map((mbps, index) => interval(index / 10, mbps)), end });
    expect(parseIperfJson(text, true, 'steady')).toMatchObject({ mbps: 50, estimate: 'steady', seconds: 2 });
    expect(parseIperfJson(text, true)).toMatchObject({ mbps: 41.6, estimate: 'mean' });
  });

  it("falls back to iperf3's mean without enough intervals, and skips omitted ones", () => {
    const text = JSON.stringify({ intervals: [interval(0, 500, true), interval(0.1, 40), interval(0.2, 41)], end });
    expect(parseIperfJson(text, true, 'steady')).toMatchObject({ mbps: 41.6, estimate: 'mean' });
  });
});

describe('the SMB read fallback: the rate between first and last replies', () => {
  it('leaves out the first read (the ramp) and the gaps between reads', () => {
    // 100 Mb/s of payload: 16 MiB takes 1342 ms from first to last reply; each read starts one 40 ms round trip after the last.
    const mib16 = 16 * 1024 * 1024;
    const reply = 1024 * 1024;
    const lineMs = (((mib16 - reply) * 8) / 100e6) * 1000;
    const spans: ReadSpan[] = [0, 1, 2].map((index) => {
      const firstMs = index * (lineMs + 40) + (index === 0 ? 0 : 300);
      return { firstMs, lastMs: firstMs + lineMs + (index === 0 ? 300 : 0), firstBytes: reply, bytes: mib16 };
    });
    expect(steadyReadRate(spans)).toBeCloseTo(100e6, -3);
  });

  it('takes a single read whole, from its first reply to its last', () => {
    expect(steadyReadRate([{ firstMs: 0, lastMs: 1600, firstBytes: 1e6, bytes: 21e6 }])).toBeCloseTo(100e6, -3);
  });

  it('says nothing where the spans say nothing', () => {
    expect(steadyReadRate([])).toBeUndefined();
    expect(steadyReadRate([{ firstMs: 5, lastMs: 5, firstBytes: 10, bytes: 10 }])).toBeUndefined();
  });
});

describe('two readers: the stream of replies from a moment on', () => {
  it('reads the rate from the second reply after that moment to the last: the first may come late', () => {
    const reply = 4 * 1048576;
    // As the lab's 155 Mb/s, 150 ms link: before the moment, the first read; after it, a 4 MiB reply every 224 ms,
    // the first of them taken in 150 ms late while the second reader started.
    const log = new ArrivalLog();
    log.add(100, reply);
    const arrivals = [6435, 6509, 6734, 6958, 7182, 7406, 7631, 7855];
    for (const ms of arrivals) log.add(ms, reply);
    expect((log.rateSince(5902) ?? 0) / 1e6).toBeCloseTo((6 * reply * 8) / 1.346 / 1e6, 6);
    expect(Math.abs((log.rateSince(5902) ?? 0) / ((reply * 8) / 0.224) - 1)).toBeLessThan(0.01);
    expect(log.bytes).toBe(9 * reply);
    expect(new ArrivalLog().rateSince(0)).toBeUndefined();
  });
});

describe('several connections: the slope of the replies over a window', () => {
  const reply = 256 * 1024;
  /** A 600 Mb/s stream of 256 KiB replies from 0 to `endMs`, with the replies of one 60 ms stall taken in together at its end. */
  const stream = (stallFromMs: number, endMs: number): ArrivalLog => {
    const log = new ArrivalLog();
    const gapMs = (reply * 8) / 600e6 / 1e-3;
    for (let ms = gapMs; ms <= endMs; ms += gapMs) log.add(ms > stallFromMs && ms < stallFromMs + 60 ? stallFromMs + 60 : ms, reply);
    return log;
  };

  it("reads the line within 1% where a stall at the window's start bunches replies that the ends would count as fast", () => {
    const log = stream(1990, 4000);
    expect(Math.abs((log.slopeBetween(1990, 4000) ?? 0) / 600e6 - 1)).toBeLessThan(0.01);
    // From the ends, the same window reads several per cent fast.
    expect((log.rateBetween(1990, 4000) ?? 0) / 600e6).toBeGreaterThan(1.02);
  });

  it("stops at the window's end and needs three replies", () => {
    const log = stream(Infinity, 4000);
    expect(Math.abs((log.slopeBetween(2000, 3000) ?? 0) / 600e6 - 1)).toBeLessThan(0.001);
    expect(log.slopeBetween(3999, 4000)).toBeUndefined();
  });
});
