// One copy, one rate (issue 48): the rate the headline quotes for the person's
// copy is the rate its row shows, in the CLI's table, the Results view's rows
// and the HTML/PDF. A lossy quick run's Windows 11 write read 425 KB/s in the
// headline (the copy once under way) and 329 KB/s in its row (the whole copy).

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatReport } from '../cli/commands/assess.js';
import { ReportSchema } from '../contract/report.js';
import type { Report } from '../contract/report.js';
import { reportHtml } from '../report/html.js';
import { reportCsv } from '../report/csv.js';
import { diagnosisHint, resultRows } from '../../app/renderer/src/state/results.js';
import { copyRateText } from './test-labels.js';
import { pipeFor } from './report-views.js';
import { LAYER_LABELS } from '../model/layer-labels.js';
import { adviceOf, buildVerdict, yourBitsPerSecond } from './verdict.js';

const FIXTURES = new URL('../report/fixtures/', import.meta.url);

/** Each recorded report, its advice and verdict made by this Pipefill. */
function fixtures(): [string, Report][] {
  return readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.json'))
    .map((name) => {
      const json = JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Record<string, unknown>;
      delete json['advice'];
      delete json['verdict'];
      const report = ReportSchema.parse(json);
      const advice = adviceOf(report);
      return [name, { ...report, advice, verdict: buildVerdict(report, advice) }];
    });
}

describe("the person's copy has one rate, in the headline and in its row", () => {
  it.each(fixtures())('%s', (_name, report) => {
    const verdict = report.verdict;
    if (!verdict) throw new Error('no verdict');
    const table = formatReport(report).split('\n');
    const rows = resultRows(report, verdict);
    const html = reportHtml(report);
    const csv = reportCsv(report).trimEnd().split('\r\n');
    const csvHeader = csv[0]?.split(',') ?? [];
    expect(verdict.rates.length).toBeGreaterThan(0);
    for (const rate of verdict.rates) {
      const quoted = copyRateText(yourBitsPerSecond(rate));
      // The headline quotes it...
      expect(verdict.lines[0]).toContain(`at ${quoted}`);
      const index = report.diagnosis.findings.findIndex(
        (f) => f.profile === verdict.client && f.op === rate.op && f.workload.startsWith('file:') === (rate.workload === 'file'),
      );
      const finding = report.diagnosis.findings[index];
      if (!finding) throw new Error(`no finding for ${rate.workload} ${rate.op}`);
      // ...and so do the CLI's row, the Results view's row and the HTML's row of the same copy.
      const row = table.find((line) => line.startsWith(`${rows[index]?.label} `));
      expect(row, `${rate.workload} ${rate.op}`).toContain(quoted);
      expect(copyRateText((rows[index]?.measuredMbps ?? 0) * 1e6)).toBe(quoted);
      // The line under the copy's diagnosis in the Results view.
      expect(diagnosisHint(report, finding)).toContain(`Rate ${quoted}`);
      expect(html).toContain(`<td class="n">${quoted}</td>`);
      // And the CSV's row for the copy, in Mb/s.
      const csvRow = csv[index + 1]?.split(',') ?? [];
      expect(copyRateText(Number(csvRow[csvHeader.indexOf('rate_mbps')]) * 1e6)).toBe(quoted);
    }
  });
});

describe("a copy's pipe names the layer its diagnosis names", () => {
  it.each(fixtures())('%s', (_name, report) => {
    // The pipe's orange bar is "the layer that limits": where the diagnosis names a layer the pipe draws, the same one.
    for (const finding of report.diagnosis.findings) {
      const pipe = pipeFor(report, finding);
      if (!pipe) continue;
      const drawn = pipe.bandwidthLimits ? LAYER_LABELS.bandwidth : pipe.bars.find((bar) => bar.limiting)?.layer;
      const named = LAYER_LABELS[finding.limitedBy];
      const drawable = finding.limitedBy === 'bandwidth' || pipe.bars.some((bar) => bar.layer === named);
      if (drawable && finding.expectedLimitedBy === finding.limitedBy) expect(drawn, `${finding.profile} ${finding.op} ${finding.workload}`).toBe(named);
      // Where it names one the pipe cannot draw (round trips, slow start), no bar is orange, and the pipe says what limits.
      if (!drawable) expect({ drawn, elsewhere: pipe.limitedElsewhere }).toEqual({ drawn: undefined, elsewhere: named });
    }
  });

  it("the demo's round-trip-bound folder write: no bar is orange, and the pipe says round trips limit it", () => {
    const report = fixtures().find(([name]) => name === 'lab-100mbit-40ms-credits16.json')?.[1];
    const finding = report?.diagnosis.findings.find((f) => f.limitedBy === 'round-trips');
    if (!report || !finding) throw new Error('no round-trip-bound copy in the demo report');
    const pipe = pipeFor(report, finding);
    expect(pipe).toMatchObject({ bandwidthLimits: false, limitedElsewhere: 'Round trips' });
    expect(pipe?.bars.some((bar) => bar.limiting)).toBe(false);
  });
});
