// The Results view's numbers, from a report: measured against expected for
// every test copy; the pipe and the layer names are shared with the HTML
// export (src/contract/report-views.ts). Pure.

import type { Finding, Report } from '../../../../src/contract/report.js';
import { verdictOf } from '../../../../src/presentation/verdict.js';
import { copyRateOf } from '../../../../src/contract/copy-rate.js';
import type { CopyStatus } from '../../../../src/presentation/copy-status.js';
import type { Verdict } from '../../../../src/contract/verdict-schema.js';
import { copyStatus, lossEvidence } from '../../../../src/presentation/copy-status.js';
import { negotiatedText } from '../../../../src/presentation/report-views.js';
import { copyRateText, testLongLabel, testShortLabel } from '../../../../src/presentation/test-labels.js';
import { formatBinaryBytes } from '../../../../src/model/units.js';

export interface ResultRow {
  readonly key: string;
  /** "Windows 11 24H2, small files write": for chart axes and table cells. */
  readonly label: string;
  /** The profile's full name and the workload's size: for headings and notes. */
  readonly longLabel: string;
  readonly measuredSeconds: number;
  /** measuredSeconds was projected from a copy stopped within the budget. */
  readonly projected: boolean;
  readonly expectedSeconds: number;
  readonly measuredMbps: number;
  /** As expected, slower or faster than the model, or held back by a setting Pipefill names (src/presentation/copy-status.ts). */
  readonly status: CopyStatus;
  readonly limitedBy: Finding['limitedBy'];
  readonly sentence: string;
  readonly emulation: string | null;
  /** "SMB 3.1.1, signed AES-128-GMAC, 237 credits": what the copy negotiated. */
  readonly negotiated: string;
}

/** The rows, each copy's status from the verdict the view shows (built from the report's own when not given). */
export function resultRows(report: Report, verdict: Pick<Verdict, 'client' | 'heldBack'> = verdictOf(report)): ResultRow[] {
  return report.diagnosis.findings.map((finding, index) => ({
    // By place as well: an edited or future report may hold two findings of the same name.
    key: `${index}-${finding.profile}-${finding.op}-${finding.workload}`,
    label: testShortLabel(finding),
    longLabel: testLongLabel(finding),
    measuredSeconds: finding.measuredSeconds,
    projected: finding.projected ?? false,
    expectedSeconds: finding.expectedSeconds,
    measuredMbps: copyRateOf(report.copyTests, finding).bitsPerSecond / 1e6,
    status: copyStatus(finding, verdict, lossEvidence(report, index)),
    limitedBy: finding.limitedBy,
    sentence: finding.sentence,
    emulation: report.copyTests[index]?.emulation ?? null,
    negotiated: (() => {
      const test = report.copyTests[index];
      return test ? negotiatedText(test.negotiated) : '';
    })(),
  }));
}

/**
 * The line under a copy's diagnosis: the rate its row quotes (a file's once under way), and what it kept in flight
 * over the whole copy. It once quoted the whole copy's rate beside the row's rate once under way.
 */
export function diagnosisHint(report: Report, finding: Finding): string {
  const rate = copyRateOf(report.copyTests, finding);
  return `Rate ${copyRateText(rate.bitsPerSecond)}${rate.underWay ? ' once under way' : ''}, as in the table; about ${formatBinaryBytes(finding.inFlightBytes)} in flight over the whole copy.`;
}

export { headlineFinding, pipeFor, protectionSummary } from '../../../../src/presentation/report-views.js';
export { LAYER_LABELS } from '../../../../src/model/layer-labels.js';

/**
 * Ticks for a log axis of bytes at powers of two a person reads
 * ("64 KiB", "1 MiB", "16 MiB"): every second or fourth power, so at most
 * eight ticks span the range. Pure.
 */
export function binaryLogTicks(minBytes: number, maxBytes: number): number[] {
  if (!(minBytes > 0) || !(maxBytes >= minBytes) || !Number.isFinite(maxBytes)) return [];
  const low = Math.floor(Math.log2(minBytes));
  const high = Math.ceil(Math.log2(maxBytes));
  const step = [1, 2, 4, 5, 10].find((candidate) => (high - low) / candidate <= 6) ?? Math.ceil((high - low) / 6);
  const first = Math.floor(low / step) * step;
  const last = Math.ceil(high / step) * step;
  const ticks: number[] = [];
  for (let power = first; power <= last && ticks.length < 16; power += step) ticks.push(2 ** power);
  return ticks;
}
