// A copy against the model: expected for the server as the copy found it.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ReportSchema } from '../contract/report.js';
import { DEFAULT_ENGINE_STACK } from '../model/diagnosis.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { findingOf } from './findings.js';

const report = ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-100mbit-40ms-credits16.json', import.meta.url), 'utf8')));

describe('findingOf', () => {
  it("expects a copy at the credits the server granted it, not a default server's: a held-back copy is not green by a default's yardstick", () => {
    // The lab's Samba with smb2 max credits = 16 (100 Mb/s, 40 ms): Windows 11's large-file write, one 1 MiB write at a time.
    const write = report.copyTests.find((test) => test.profile === 'win11-24h2' && test.op === 'write' && test.workload.startsWith('file:'));
    if (!write) throw new Error('the fixture has no Windows 11 file write');
    expect(write.negotiated.creditsGrantedMax).toBeLessThanOrEqual(16);
    const link = { bandwidthBitsPerSecond: report.probes.bandwidth.mbps * 1e6, rttMs: report.probes.rtt.medianMs };
    const finding = findingOf(write, SERVER_PROFILES.samba, link, DEFAULT_ENGINE_STACK, false, false);
    const unheld = findingOf(
      { ...write, negotiated: { ...write.negotiated, creditsGrantedMax: 8192 } },
      SERVER_PROFILES.samba,
      link,
      DEFAULT_ENGINE_STACK,
      false,
      false,
    );
    // A server granting its default expects the same copy much sooner: 16 credits cost it time the model knows.
    expect(unheld.expectedSeconds).toBeLessThan(finding.expectedSeconds * 0.9);
    // As seen, the model expects the time the copy took, within the green band.
    expect(finding.verdict).toBe('as-expected');
    expect(Math.abs(write.seconds / finding.expectedSeconds - 1)).toBeLessThan(0.15);
  });
});
