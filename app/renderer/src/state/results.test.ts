import { describe, expect, it } from 'vitest';
import type { Report } from '../../../../src/contract/report.js';
import { binaryLogTicks, headlineFinding, pipeFor, resultRows } from './results.js';

const finding = {
  profile: 'xp-smb1' as const,
  op: 'read' as const,
  workload: 'file:4MiB',
  measuredSeconds: 3.8,
  expectedSeconds: 2.9,
  expectedLimitedBy: 'copy-pipeline' as const,
  efficiency: 0.76,
  verdict: 'as-expected' as const,
  limitedBy: 'copy-pipeline' as const,
  explainedSeconds: 3.5,
  measuredMbps: 8.8,
  inFlightBytes: 36_000,
  sentence: 'One 60 KiB request per round trip.',
};

const report = {
  options: { server: 'samba', profiles: ['xp-smb1'], quick: true, fileBytes: 4 * 1024 * 1024, dirsetScale: 0.01 },
  probes: { rtt: { medianMs: 32 }, bandwidth: { mbps: 155 } },
  copyTests: [
    {
      emulation: 'SMB1 is not spoken: …',
      negotiated: {
        dialect: '2.1',
        maxReadSize: 65536,
        maxWriteSize: 65536,
        creditsGrantedMax: 130,
        signing: 'HMAC-SHA256',
        encryption: null,
        signingRequiredBy: 'server',
      },
    },
  ],
  diagnosis: { headline: 'xp-smb1 read of file:4MiB: One 60 KiB request per round trip.', findings: [finding] },
} as unknown as Report;

describe('results', () => {
  it('has a row per finding, with the emulation note of its copy', () => {
    const [row] = resultRows(report);
    expect(row?.label).toBe('Windows XP, large file read');
    expect(row?.longLabel).toBe('Windows XP, SMB1: read, large file (4 MiB)');
    expect(row?.emulation).toMatch(/not spoken/);
    expect(row?.negotiated).toBe('SMB 2.1, signed HMAC-SHA256, 130 credits');
  });

  it("draws XP's pipe: a 60 KiB pipeline against a 620 KB BDP, the pipeline limiting", () => {
    const pipe = pipeFor(report, finding);
    if (!pipe) throw new Error('no pipe');
    expect(pipe.bdpBytes).toBeCloseTo((155e6 / 8) * 0.032, 0);
    const limiting = pipe.bars.filter((bar) => bar.limiting);
    expect(limiting.map((bar) => bar.layer)).toEqual(['Copy pipeline']);
    expect(limiting[0]?.bytesInFlight).toBe(60 * 1024);
    expect(pipe.bandwidthLimits).toBe(false);
  });

  it('draws no pipe, rather than failing, for a workload this Pipefill does not know', () => {
    expect(pipeFor(report, { ...finding, workload: 'tr9999-future-set' })).toBeUndefined();
  });

  it('keys every row uniquely, even two findings of the same name', () => {
    const twice = { ...report, diagnosis: { ...report.diagnosis, findings: [finding, finding] } };
    const keys = resultRows(twice).map((row) => row.key);
    expect(new Set(keys).size).toBe(2);
  });

  it('opens on the headline finding', () => {
    expect(headlineFinding(report)).toBe(finding);
  });
});

describe('the pipe chart axis', () => {
  it('ticks at powers of two, at most eight, spanning the values', () => {
    const ticks = binaryLogTicks(492_000, 300_000_000);
    expect(ticks.length).toBeLessThanOrEqual(8);
    expect(ticks[0]).toBeLessThanOrEqual(492_000);
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(300_000_000);
    for (const tick of ticks) expect(Number.isInteger(Math.log2(tick))).toBe(true);
    expect(binaryLogTicks(0, 10)).toEqual([]);
    expect(binaryLogTicks(1024, Number.POSITIVE_INFINITY)).toEqual([]);
  });
});
