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

/**
 * The report with one of the client's copies slower than the model by
 * `overSeconds` (none: as expected), its retransmissions as given, and where
 * given the split of them the copy watched (src/model/loss-split.ts).
 */
function withSlowCopy(
  report: Report,
  op: 'read' | 'write',
  kind: 'file:' | 'tr3869-dirset',
  fraction: number,
  overSeconds: number,
  split?: { lossOnPathFraction?: number; lossAtQueueFraction: number; peakQueueMs: number },
): Report {
  const client = report.options.client ?? 'win11-24h2';
  const mine = (test: { profile: string; op: string; workload: string }) => test.profile === client && test.op === op && test.workload.startsWith(kind);
  return {
    ...report,
    verdict: undefined,
    advice: undefined,
    copyTests: report.copyTests.map((test) => (mine(test) ? { ...test, tcp: { ...test.tcp, retransmittedFraction: fraction, ...split } } : test)),
    diagnosis: {
      ...report.diagnosis,
      findings: report.diagnosis.findings.map((finding) =>
        mine(finding)
          ? {
              ...finding,
              measuredSeconds: finding.expectedSeconds + overSeconds,
              verdict: overSeconds > 0 ? ('slower-than-expected' as const) : ('as-expected' as const),
            }
          : finding,
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
    expect(found?.sentence).toMatch(
      /^The copy overflowed the line's queue itself: TCP sent 11% of the large-file write's bytes again, and the copy took 1\.2 s longer than the model;/,
    );
  });

  it('names loss on the path where a layer holds the copy below the line, in the verdict and the ticket', () => {
    // XP on the 52 Mb/s, 75 ms lab link writes one 60 KiB request at a time: far under the line's 490 KB.
    const client = 'xp-smb1';
    const report = fixture('lab-52mbit-75ms');
    const slow = withSlowCopy({ ...report, options: { ...report.options, client } }, 'write', 'file:', 0.04, 2);
    const found = retransmissionsOf(slow, client);
    expect(found).toMatchObject({ source: 'path', fraction: 0.04 });
    const verdict = buildVerdict(slow, recommendFromInput({ report: slow }));
    expect(verdict.retransmissions).toEqual(found);
    expect(verdict.lines.join('\n')).toContain(found?.sentence);
    expect(ticketSummary({ ...slow, verdict })).toContain('The path itself lost packets');
  });

  it('tells a packet-loss limit once: where the retransmissions are of the same copy, their sentence is its cause', () => {
    const client = 'xp-smb1';
    const report = fixture('lab-52mbit-75ms');
    const slow = withSlowCopy({ ...report, options: { ...report.options, client } }, 'write', 'file:', 0.0108, 60);
    const why = 'The copy ran 2.0x slower than the limits the model knows allow, with 1.1% of its bytes sent again: packet loss is one cause.';
    const lossy: Report = {
      ...slow,
      diagnosis: {
        ...slow.diagnosis,
        findings: slow.diagnosis.findings.map((finding) =>
          finding.profile === client && finding.op === 'write' && finding.workload.startsWith('file:')
            ? { ...finding, limitedBy: 'packet-loss', why, beyondModel: true }
            : finding,
        ),
      },
    };
    const verdict = buildVerdict(lossy, recommendFromInput({ report: lossy }));
    expect(verdict.limit).toMatchObject({ layer: 'packet-loss', op: 'write', workload: 'file' });
    expect(verdict.lines[2]).toMatch(
      /^What holds them back: Packet loss, costing .+? on the large-file write\. The path itself lost packets: TCP sent 1\.1% of/,
    );
    expect(verdict.lines[2]).not.toContain('packet loss is one cause');
  });

  it("recommends on the report's path with its loss: no change is promised more than the loss lets through", () => {
    const report = fixture('lab-100mbit-40ms-credits16');
    const lossy = {
      ...report,
      pathModel: { ...(report.pathModel ?? { bandwidthBitsPerSecond: 96e6, rttMs: 40, bandwidthFrom: 'probe' as const }), lossRate: 0.01 },
    };
    expect(recommendFromInput({ report }).link.lossRate).toBe(0);
    expect(recommendFromInput({ report: lossy }).link.lossRate).toBe(0.01);
    // 16 credits hold the clean path's large-file read; through 1% loss one connection reaches far less than they allow.
    const credits = (result: ReturnType<typeof recommendFromInput>) => result.recommendations.find((rec) => rec.knob.includes('credits'));
    expect(credits(recommendFromInput({ report }))).toBeDefined();
    expect(credits(recommendFromInput({ report: lossy }))).toBeUndefined();
  });

  it('names none for a share on this machine: there is no path to lose packets on', () => {
    const report = withSlowCopy(credits16, 'write', 'file:', 0.107, 1.2);
    expect(retransmissionsOf({ ...report, crypto: { rates: {}, serverOnThisMachine: true } }, 'win11-24h2')).toBeUndefined();
  });

  it("never names a read: its data is the server's to send again, and what this machine sent again were its requests", () => {
    expect(retransmissionsOf(withSlowCopy(credits16, 'read', 'file:', 0.2, 3), 'win11-24h2')).toBeUndefined();
  });

  describe('where the round trip at each loss was watched', () => {
    it("names the path's loss from a quarter of a percent, though the copy kept to the model (whose line the same loss held)", () => {
      const report = withSlowCopy(credits16, 'write', 'file:', 0.009, 0, { lossOnPathFraction: 0.008, lossAtQueueFraction: 0.001, peakQueueMs: 31 });
      const found = retransmissionsOf(report, 'win11-24h2');
      expect(found).toMatchObject({ op: 'write', source: 'path', pathFraction: 0.008, queueFraction: 0.001, overSeconds: 0 });
      expect(found?.sentence).toBe(
        "The path itself lost packets: TCP sent 0.9% of the large-file write's bytes again, 0.8% for losses with no queue behind them. That is a lossy hop (Wi-Fi, DSL, a faulty cable or port), not congestion, and it holds TCP below the line: the rates here are what TCP reached through it. Fix that hop (look for errors on the interfaces along the way).",
      );
      // Even where the copy would have passed for its own queue's (16 credits let it keep more than the line holds).
      expect(
        retransmissionsOf(
          withSlowCopy(credits16, 'write', 'file:', 0.003, 0, { lossOnPathFraction: 0.002, lossAtQueueFraction: 0.001, peakQueueMs: 5 }),
          'win11-24h2',
        ),
      ).toBeUndefined();
    });

    it('says what fixing the hop buys, where the line was measured apart from the loss (several iperf3 streams), and only there', () => {
      const watched = withSlowCopy(credits16, 'write', 'file:', 0.011, 0, { lossOnPathFraction: 0.011, lossAtQueueFraction: 0, peakQueueMs: 2 });
      const path = watched.pathModel ?? { bandwidthBitsPerSecond: 96e6, rttMs: 40, bandwidthFrom: 'probe' as const };
      const lossy: Report = { ...watched, pathModel: { ...path, lossRate: 0.011 } };
      expect(retransmissionsOf(lossy, 'win11-24h2')?.sentence).not.toMatch(/Fixed,/);
      const measured: Report = {
        ...lossy,
        probes: { ...lossy.probes, bandwidth: { ...lossy.probes.bandwidth, parallel: { streams: 16, mbps: 92, seconds: 2 } } },
        pathModel: { ...path, lossRate: 0.011, bandwidthFrom: 'streams' },
      };
      // Mathis at 1.1% and 40 ms holds the one connection near 3.3 Mb/s: 40 min for a gigabyte. Without the loss, the
      // model of the path as it is: about 2 min.
      const sentence = retransmissionsOf(measured, 'win11-24h2')?.sentence ?? '';
      const [, fixed, now] = /Fixed, writing a 1 GB file takes (\d+) min \d+ s instead of (\d+) min \d+ s\.$/.exec(sentence) ?? [];
      expect(Number(fixed)).toBeLessThan(4);
      expect(Number(now)).toBeGreaterThan(30);
      expect(buildVerdict(measured, recommendFromInput({ report: measured })).lines[1]).toMatch(
        /the line is .+ \(iperf3 on 16 streams at once: the loss holds each one back\)/,
      );
      // Where the sixteen moved no more than the probe's one stream, that stream was not held by the loss (a BBR
      // sender: lab, 48.1 Mb/s on one stream, 43.5 on sixteen): the line is the probe's, measured apart from the loss
      // all the same. Before, the default run of a share said no effect and the quick run of it a minute later did.
      const oneStream: Report = {
        ...lossy,
        probes: { ...lossy.probes, bandwidth: { ...lossy.probes.bandwidth, parallel: { streams: 16, mbps: 43.5, seconds: 2 } } },
      };
      expect(oneStream.pathModel?.bandwidthFrom).not.toBe('streams');
      expect(retransmissionsOf(oneStream, 'win11-24h2')?.sentence).toMatch(/Fixed, writing a 1 GB file takes \d+ min \d+ s instead of \d+ min \d+ s\.$/);
      expect(buildVerdict(oneStream, recommendFromInput({ report: oneStream })).lines[1]).not.toMatch(/streams at once/);
    });

    it("quotes the path's loss as the model took it, the run's writes together: one figure in the paragraph", () => {
      // Lab, 1%: the loss layer said "packet loss of 0.75%" (the run's writes pooled) and this paragraph "1.0% for
      // losses with no queue behind them" (one write's own).
      const watched = withSlowCopy(credits16, 'write', 'file:', 0.012, 0, { lossOnPathFraction: 0.01, lossAtQueueFraction: 0.002, peakQueueMs: 2 });
      const path = watched.pathModel ?? { bandwidthBitsPerSecond: 96e6, rttMs: 40, bandwidthFrom: 'probe' as const };
      const pooled: Report = { ...watched, pathModel: { ...path, lossRate: 0.0075 } };
      const sentence = retransmissionsOf(pooled, 'win11-24h2')?.sentence ?? '';
      expect(sentence).toMatch(
        /^The path itself lost packets: TCP sent 1\.2% of the large-file write's bytes again; the run's writes lost 0\.75% of what they sent on the path, with no queue behind them\./,
      );
      expect(sentence).not.toMatch(/1\.0%/);
      const verdict = buildVerdict(pooled, recommendFromInput({ report: pooled }));
      const percents = (text: string) => [...text.matchAll(/(\d+(?:\.\d+)?)% (?:random )?(?:packet )?loss|lost (\d+(?:\.\d+)?)%/g)].map((m) => m[1] ?? m[2]);
      expect(new Set(percents(verdict.lines.join(' ')))).toEqual(new Set(['0.75']));
    });

    it("names the copy's own queue where most losses came with the queue at its fullest, whatever layer holds it", () => {
      // XP is held far below the line, so unwatched its losses would have been put to the path.
      const client = 'xp-smb1';
      const base = fixture('lab-52mbit-75ms');
      const report = withSlowCopy({ ...base, options: { ...base.options, client } }, 'write', 'file:', 0.2, 1.5, {
        lossOnPathFraction: 0.02,
        lossAtQueueFraction: 0.18,
        peakQueueMs: 5.5,
      });
      const found = retransmissionsOf(report, client);
      expect(found).toMatchObject({ source: 'own-queue', queueFraction: 0.18 });
      expect(found?.sentence).toBe(
        "The copy overflowed the line's queue itself: TCP sent 20% of the large-file write's bytes again, and the copy took 1.5 s longer than the model, its losses at the queue's fullest, with the round trip up to 5.5 ms above its least. That is TCP finding the line's rate, not a fault of the path. A further 2% went again for losses on the path, with no queue behind them.",
      );
    });

    it("takes the path's rate from a write that read it, for a copy that could not (many small files): named as the path's", () => {
      const watched = withSlowCopy(credits16, 'write', 'file:', 0.009, 0, { lossOnPathFraction: 0.008, lossAtQueueFraction: 0.001, peakQueueMs: 31 });
      const report = withSlowCopy(watched, 'write', 'tr3869-dirset', 0.012, 5.9);
      const found = retransmissionsOf(report, 'win11-24h2');
      expect(found).toMatchObject({ workload: 'small-files', source: 'path' });
      expect(found?.overSeconds).toBeCloseTo(5.9, 9);
      expect(found?.sentence).toContain('; a write that watched each loss lost 0.8% with no queue behind them.');
      // Without that write's reading, 16 credits let the copy keep more than the line holds: its own queue, as before.
      expect(retransmissionsOf(withSlowCopy(credits16, 'write', 'tr3869-dirset', 0.012, 5.9), 'win11-24h2')?.source).toBe('own-queue');
    });

    it('a queue standing whenever the copy sent: no rate for the path, so its own queue, and nothing said of the path', () => {
      const client = 'xp-smb1';
      const base = fixture('lab-52mbit-75ms');
      const report = withSlowCopy({ ...base, options: { ...base.options, client } }, 'write', 'file:', 0.05, 1, {
        lossAtQueueFraction: 0.05,
        peakQueueMs: 12,
      });
      const found = retransmissionsOf(report, client);
      expect(found).toMatchObject({ source: 'own-queue', queueFraction: 0.05 });
      expect(found).not.toHaveProperty('pathFraction');
      expect(found?.sentence).not.toContain('on the path');
    });
  });
});
