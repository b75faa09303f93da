// A path whose packets are smaller than Ethernet's (a tunnel, PPPoE): the
// model's payload limit takes the probed MTU (issue 52).

import { describe, expect, it } from 'vitest';
import { lineRateOf, maxSegmentBytes, payloadEfficiency } from './link.js';
import { predict, validateLink } from './predict.js';

describe("a path MTU below Ethernet's", () => {
  it('carries less payload in each full frame on the line: WireGuard over IPv4 (1420 inside 1500)', () => {
    expect(maxSegmentBytes(true, 1420)).toBe(1368);
    expect(payloadEfficiency(true, 1420)).toBeCloseTo(1368 / 1514, 12);
    expect(payloadEfficiency(true)).toBeCloseTo(1448 / 1514, 12);
    // A larger MTU is a larger frame, as before.
    expect(payloadEfficiency(true, 9000)).toBeCloseTo(8948 / 9014, 12);
  });

  it("slows a copy the line paces by Ethernet's payload over the tunnel's", () => {
    const scenario = { client: 'pipefill-max', server: 'samba', op: 'read', workload: 'file:1GB' } as const;
    const link = { bandwidthBitsPerSecond: 50e6, rttMs: 40 };
    const ethernet = predict({ ...scenario, link }).seconds;
    const tunnel = predict({ ...scenario, link: { ...link, mtuBytes: 1420 } }).seconds;
    expect(tunnel / ethernet).toBeGreaterThan(1.05);
    expect(tunnel / ethernet).toBeLessThanOrEqual(1448 / 1368 + 1e-9);
  });

  it('takes a measured payload rate back to the line that carried it, so the model takes the headers off once', () => {
    // iperf3 through WireGuard on a 50 Mb/s line moves 50 x 1368 / 1514 = 45.2 Mb/s of data.
    const payload = 50e6 * (1368 / 1514);
    expect(lineRateOf(payload, 1420)).toBeCloseTo(50e6, 0);
    expect(lineRateOf(50e6 * (1448 / 1514))).toBeCloseTo(50e6, 0);
    // The model's payload on that line is what was measured: a copy the line paces is expected at iperf3's rate.
    const scenario = { client: 'pipefill-max', server: 'samba', op: 'read', workload: 'file:1GB' } as const;
    const seconds = predict({ ...scenario, link: { bandwidthBitsPerSecond: lineRateOf(payload, 1420), rttMs: 40, mtuBytes: 1420 } }).seconds;
    expect((1e9 * 8) / seconds / payload).toBeGreaterThan(0.97);
    expect((1e9 * 8) / seconds / payload).toBeLessThanOrEqual(1);
  });

  it('refuses an MTU that is not one', () => {
    for (const mtuBytes of [500, 1400.5, 70_000]) {
      expect(() => validateLink({ bandwidthBitsPerSecond: 50e6, rttMs: 40, mtuBytes })).toThrow(/path MTU/);
    }
  });
});
