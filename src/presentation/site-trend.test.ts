import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from '../contract/report.js';
import { ReportSchema } from '../contract/report.js';
import { changesBetween, siteTrend } from './site-trend.js';
import { runColumns } from '../contract/history.js';
import { generationKeyLabel } from './test-labels.js';

const fixture = (name: string): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL(`../report/fixtures/${name}.json`, import.meta.url), 'utf8')));

describe('what changed at a site', () => {
  it('says what changed in words, and leaves out what is only noise', () => {
    const before = fixture('lab-52mbit-75ms');
    const after = fixture('lab-155mbit-32ms');
    const changes = changesBetween(before, after);
    // Rates as everything else prints them (formatRate), not a float's digits.
    expect(changes).toContain('bandwidth now 150 Mb/s, was 51.7 Mb/s');
    expect(changes).toContain(`round trip now ${after.probes.rtt.medianMs.toFixed(1)} ms, was ${before.probes.rtt.medianMs.toFixed(1)}`);
    // Each copy by its plain name, its rate as copy dialogs show it.
    expect(
      changes.some((change) =>
        /^[A-Z][\w ./()-]+, (large file|small files) (read|write): \d+\.\dx (faster|slower) than the run before \([\d.]+ [kMG]B\/s \([\d.]+ [kMG]b\/s\), was /.test(
          change,
        ),
      ),
    ).toBe(true);
    expect(changes.join('\n')).not.toMatch(/\b(win\d+|xp)-smb\d|pipefill-max|tr3869/);
    expect(changesBetween(before, before)).toEqual([]);

    // A server that went from 16 credits to 512 is news; 8320 against 8448 is a session's ramp.
    const withCredits = (report: Report, credits: number): Report => ({
      ...report,
      copyTests: report.copyTests.map((test) => ({ ...test, negotiated: { ...test.negotiated, creditsGrantedMax: credits } })),
    });
    expect(changesBetween(withCredits(before, 16), withCredits(before, 512))).toEqual(['credits now 512, was 16']);
    expect(changesBetween(withCredits(before, 8320), withCredits(before, 8448))).toEqual([]);
  });
});

describe('like with like (issue 48: a quick run after a default run is not a regression)', () => {
  /** The same report as a --quick run would make it: every copy smaller, and slower per byte (its ramp weighs more). */
  const quickOf = (report: Report): Report => ({
    ...report,
    startedAt: '2026-11-27T10:00:00.000Z',
    diagnosis: {
      ...report.diagnosis,
      findings: report.diagnosis.findings.map((finding) => ({
        ...finding,
        workload: finding.workload.startsWith('file:') ? 'file:256KiB' : 'tr3869-dirset:0.005',
        measuredMbps: finding.measuredMbps / 5.4,
      })),
    },
  });

  it('compares no rate nor limit between copies of other sizes, and says why', () => {
    const before = fixture('lab-52mbit-75ms');
    const changes = changesBetween(before, quickOf(before));
    expect(changes.join('\n')).not.toMatch(/faster|slower than the run before|limited by/);
    expect(changes).toContain(
      'Copies of other sizes than the run before (a --quick run beside a default one, or another budget) are not compared: a smaller copy spends more of its time starting.',
    );
  });

  it('compares files of other sizes by their rate once under way (the rate a 1 GB file settles at), and only a change of it', () => {
    const before = fixture('lab-100mbit-40ms-credits16');
    const resized = (report: Report, workload: string, perByte: number): Report => ({
      ...report,
      startedAt: '2026-11-27T10:00:00.000Z',
      copyTests: report.copyTests.map((test) => (test.workload.startsWith('file:') ? { ...test, workload } : test)),
      diagnosis: {
        ...report.diagnosis,
        findings: report.diagnosis.findings.map((finding) =>
          finding.workload.startsWith('file:') ? { ...finding, workload, measuredMbps: finding.measuredMbps / perByte } : finding,
        ),
      },
    });
    // A quick run's shorter file: its whole-copy rates lower (its ramp weighs more), its timelines the same.
    expect(changesBetween(before, resized(before, 'file:9MiB', 1.6))).toEqual([]);
    // The same run, its write twice as slow once under way: that is news, whatever the sizes.
    const slower = resized(before, 'file:9MiB', 1);
    const halved = {
      ...slower,
      copyTests: slower.copyTests.map((test) =>
        test.op === 'write' && test.workload === 'file:9MiB'
          ? { ...test, timeline: test.timeline.map((bucket) => ({ ...bucket, bytes: bucket.bytes / 2 })) }
          : test,
      ),
    };
    expect(changesBetween(before, halved).join('\n')).toMatch(/large file write: 2\.0x slower than the run before/);
  });

  it("compares no folder a quick run projected from its file copy with one a run copied, and says why (the demo's '1.4x faster')", () => {
    const before = fixture('lab-100mbit-40ms-credits16');
    const folder = (workload: string) => workload.startsWith('tr3869');
    // The same run as a quick run makes it: its folders not copied, projected from the file copies, their rates 1.4x.
    const quick: Report = {
      ...before,
      startedAt: '2026-11-27T10:00:00.000Z',
      copyTests: before.copyTests.map((test) =>
        folder(test.workload)
          ? {
              ...test,
              projected: {
                stoppedBy: 'not-run' as const,
                measuredBytes: 0,
                measuredSeconds: 0,
                filesTouched: 0,
                rateMbps: 0,
                rateFrom: 'model-scaled' as const,
                rateRelativeHalfWidth: null,
                lowSeconds: test.seconds / 1.4,
                highSeconds: null,
              },
            }
          : test,
      ),
      diagnosis: {
        ...before.diagnosis,
        findings: before.diagnosis.findings.map((finding) =>
          folder(finding.workload)
            ? { ...finding, projected: true, measuredSeconds: finding.measuredSeconds / 1.4, measuredMbps: finding.measuredMbps * 1.4 }
            : finding,
        ),
      },
    };
    const changes = changesBetween(before, quick);
    expect(changes.join('\n')).not.toMatch(/small files (read|write): [\d.]+x (faster|slower)/);
    expect(changes).toContain(
      "Folders one of the two runs did not copy on their own (a --quick run projects them from its file copies) are not compared with folders the other copied: that would put the model's projection against a measurement.",
    );
    // Two quick runs project alike: their folders compare, a change of the file copies under them included.
    expect(changesBetween(quick, { ...quick, startedAt: '2026-11-28T10:00:00.000Z' })).toEqual([]);
    // The trend draws the projection as a line of its own, said so, not as the copied folder's line rising.
    const [key, measure] = Object.entries(runColumns({ kind: 'assessment', report: quick }).generations).find(([name]) => name.endsWith(' dirset')) ?? [];
    expect(measure?.workload).toMatch(/^tr3869-dirset:[\d.]+\+projected$/);
    expect(generationKeyLabel(`${key} ${measure?.workload}`)).toMatch(
      /, small files (read|write), \d+ files in \d+ folders?, [\d.]+ [kMG]B, projected from the file copy$/,
    );
    expect(generationKeyLabel(`${key} ${runColumns({ kind: 'assessment', report: before }).generations[key ?? '']?.workload}`)).not.toMatch(/projected/);
  });

  it('draws a line per sample size, so a quick run starts a line of its own instead of a falling one', () => {
    const runs = [
      { id: 1, kind: 'assessment' as const, startedAt: '2026-11-26T10:00:00.000Z', peakMbps: null, readinessMet: null, headline: '' },
      { id: 2, kind: 'assessment' as const, startedAt: '2026-11-27T10:00:00.000Z', peakMbps: null, readinessMet: null, headline: '' },
      { id: 3, kind: 'assessment' as const, startedAt: '2026-11-28T10:00:00.000Z', peakMbps: null, readinessMet: null, headline: '' },
    ];
    const generation = 'win11-24h2 write file';
    const trend = siteTrend({
      site: '//fs01/share',
      runs,
      generationRates: [
        { runId: 1, generation, workload: 'file:15MiB', mbps: 40 },
        { runId: 2, generation, workload: 'file:1MiB', mbps: 7.4 },
        { runId: 3, generation, workload: 'file:15MiB', mbps: 41 },
      ],
      lastTwoAssessments: [],
      unreadable: 0,
    });
    expect(trend.generations).toEqual({
      [`${generation} file:15MiB`]: [
        { id: 1, startedAt: runs[0]?.startedAt, value: 40 },
        { id: 3, startedAt: runs[2]?.startedAt, value: 41 },
      ],
      [`${generation} file:1MiB`]: [{ id: 2, startedAt: runs[1]?.startedAt, value: 7.4 }],
    });
  });
});
