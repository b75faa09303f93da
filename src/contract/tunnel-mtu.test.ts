// The probed path MTU in the report's model link and the verdict (issue 52).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from './report.js';
import { modelLinkOf, probedLineOf, ReportSchema, tunnelMtuOf } from './report.js';
import { buildVerdict } from '../presentation/verdict.js';
import { recommendFromInput } from './recommend.js';

const fixture = (name: string): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL(`../report/fixtures/${name}.json`, import.meta.url), 'utf8')));
const withMtu = (report: Report, mtuBytes: number): Report => ({
  ...report,
  verdict: undefined,
  advice: undefined,
  probes: { ...report.probes, path: { mtuBytes } },
});

describe('the path MTU in the report', () => {
  const lab = fixture('lab-52mbit-75ms');

  it("reaches the model's link below Ethernet's, and only there", () => {
    expect(modelLinkOf(withMtu(lab, 1420)).mtuBytes).toBe(1420);
    expect(modelLinkOf(withMtu(lab, 1500)).mtuBytes).toBeUndefined();
    expect(modelLinkOf(withMtu(lab, 65_536)).mtuBytes).toBeUndefined();
    expect(tunnelMtuOf(lab.probes)).toEqual({});
  });

  it("is said on the verdict's path line, with what it takes from each packet", () => {
    const report = withMtu(lab, 1420);
    const verdict = buildVerdict(report, recommendFromInput({ report }));
    expect(verdict.lines[1]).toMatch(/, 1420-byte packets \(a tunnel or PPPoE: 5\.5% less data a packet than Ethernet's\)/);
    expect(buildVerdict(lab, recommendFromInput({ report: lab })).lines[1]).not.toMatch(/-byte packets/);
  });

  it("puts the packets' headers back on the probe's payload rate for the model's line, the tunnel's where there is one", () => {
    const probes = { ...lab.probes, bandwidth: { ...lab.probes.bandwidth, mbps: 45.2 } };
    expect(probedLineOf(probes) / 1e6).toBeCloseTo((45.2 * 1514) / 1448, 6);
    expect(probedLineOf({ ...probes, path: { mtuBytes: 1420 } }) / 1e6).toBeCloseTo((45.2 * 1514) / 1368, 6);
  });

  it('is refused where it is not a packet size', () => {
    expect(() => ReportSchema.parse(withMtu(lab, 100))).toThrow();
  });
});
