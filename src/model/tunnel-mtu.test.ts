// A path whose packets are smaller than Ethernet's (a tunnel, PPPoE): the
// model's payload limit takes the probed MTU (issue 52).

import { describe, expect, it } from 'vitest';
import { maxSegmentBytes, payloadEfficiency } from './link.js';
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

  it('refuses an MTU that is not one', () => {
    for (const mtuBytes of [500, 1400.5, 70_000]) {
      expect(() => validateLink({ bandwidthBitsPerSecond: 50e6, rttMs: 40, mtuBytes })).toThrow(/path MTU/);
    }
  });
});
