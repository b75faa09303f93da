// Retransmissions in the verdict (issue 48): named where they cost the
// person's copy time beyond the model, with where they came from.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from './report.js';
import { ReportSchema } from './report.js';
import { retransmissionsOf } from './retransmissions.js';
import { buildVerdict } from '../presentation/verdict.js';
import { recommendFromInput } from './recommend.js';
import { ticketSummary } from '../presentation/summary.js';

const fixture = (name: string): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL(`../report/fixtures/${name}.json`, import.meta.url), 'utf8')));

/** The report with one of the client's copies slower than the model by `overSeconds`, its retransmissions as given. */
function withSlowCopy(report: Report, op: 'read' | 'write', kind: 'file:' | 'tr3869-dirset', fraction: number, overSeconds: number): Report {
  const client = report.options.client ?? 'win11-24h2';
  const mine = (test: { profile: string; op: string; workload: string }) => test.profile === client && test.op === op && test.workload.startsWith(kind);
  return {
    ...report,
    verdict: undefined,
    advice: undefined,
    copyTests: report.copyTests.map((test) => (mine(test) ? { ...test, tcp: { ...test.tcp, retransmittedFraction: fraction } } : test)),
    diagnosis: {
      ...report.diagnosis,
      findings: report.diagnosis.findings.map((finding) =>
        mine(finding) ? { ...finding, measuredSeconds: finding.expectedSeconds + overSeconds, verdict: 'slower-than-expected' as const } : finding,
      ),
    },
  };
}

describe('retransmissions in the verdict', () => {
  const credits16 = fixture('lab-100mbit-40ms-credits16');

  it("names none where the copy kept to the model (the demo's 2.5% on a write that matched it)", () => {
    expect(credits16.copyTests.some((test) => (test.tcp?.retransmittedFraction ?? 0) > 0.02)).toBe(true);
    expect(retransmissionsOf(credits16, 'win11-24h2')).toBeUndefined();
  });

  it("names its own queue where every setting lets the copy keep more than the line holds (16 credits: 1 MiB beside the line's 500 KB)", () => {
    const report = withSlowCopy(credits16, 'write', 'file:', 0.107, 1.2);
    const found = retransmissionsOf(report, 'win11-24h2');
    expect(found).toMatchObject({ op: 'write', workload: 'file', source: 'own-queue' });
    expect(found?.sentence).toMatch(/^TCP sent 11% of the large-file write's bytes again, and the copy took 1\.2 s longer than the model: the copy overflowed/);
  });

  it('names loss on the path where a layer holds the copy below the line, in the verdict and the ticket', () => {
    // XP on the 52 Mb/s, 75 ms lab link reads one 60 KiB request at a time: far under the line's 490 KB.
    const client = 'xp-smb1';
    const report = fixture('lab-52mbit-75ms');
    const slow = withSlowCopy({ ...report, options: { ...report.options, client } }, 'read', 'file:', 0.04, 2);
    const found = retransmissionsOf(slow, client);
    expect(found).toMatchObject({ source: 'path', fraction: 0.04 });
    const verdict = buildVerdict(slow, recommendFromInput({ report: slow }));
    expect(verdict.retransmissions).toEqual(found);
    expect(verdict.lines.join('\n')).toContain(found?.sentence);
    expect(ticketSummary({ ...slow, verdict })).toContain('packets were lost on the path itself');
  });

  it('names none for a share on this machine: there is no path to lose packets on', () => {
    const report = withSlowCopy(credits16, 'write', 'file:', 0.107, 1.2);
    expect(retransmissionsOf({ ...report, crypto: { rates: {}, serverOnThisMachine: true } }, 'win11-24h2')).toBeUndefined();
  });
});
