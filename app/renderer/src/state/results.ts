// The Results view's numbers, from a report: measured against expected for
// every test copy; the pipe and the layer names are shared with the HTML
// export (src/contract/report-views.ts). Pure.

import type { Finding, Report } from '../../../../src/contract/report.js';
import { negotiatedText } from '../../../../src/presentation/report-views.js';

export interface ResultRow {
  readonly key: string;
  readonly label: string;
  readonly measuredSeconds: number;
  /** measuredSeconds was projected from a copy stopped within the budget. */
  readonly projected: boolean;
  readonly expectedSeconds: number;
  readonly measuredMbps: number;
  readonly verdict: Finding['verdict'];
  readonly limitedBy: Finding['limitedBy'];
  readonly sentence: string;
  readonly emulation: string | null;
  /** "SMB 3.1.1, signed AES-128-GMAC, 237 credits": what the copy negotiated. */
  readonly negotiated: string;
}

export function resultRows(report: Report): ResultRow[] {
  return report.diagnosis.findings.map((finding, index) => ({
    // By place as well: an edited or future report may hold two findings of the same name.
    key: `${index}-${finding.profile}-${finding.op}-${finding.workload}`,
    label: `${finding.profile} ${finding.op} ${finding.workload}`,
    measuredSeconds: finding.measuredSeconds,
    projected: finding.projected ?? false,
    expectedSeconds: finding.expectedSeconds,
    measuredMbps: finding.measuredMbps,
    verdict: finding.verdict,
    limitedBy: finding.limitedBy,
    sentence: finding.sentence,
    emulation: report.copyTests[index]?.emulation ?? null,
    negotiated: (() => {
      const test = report.copyTests[index];
      return test ? negotiatedText(test.negotiated) : '';
    })(),
  }));
}

export { headlineFinding, pipeFor, protectionSummary } from '../../../../src/presentation/report-views.js';
export { LAYER_LABELS } from '../../../../src/model/layer-labels.js';
