// The Reports view: saved assessments side by side, one row per site, ranked
// by how long the chosen generation takes for the chosen test there. Pure.

import type { Comparison } from '../../../../src/contract/compare.js';
import { compareSites, parseTarget } from '../../../../src/contract/compare.js';
import type { Report } from '../../../../src/contract/report.js';
import type { ClientProfileId, Op } from '../../../../src/model/client-profiles.js';

export interface SiteRow {
  readonly site: string;
  readonly startedAt: string;
  readonly rttMs: number;
  readonly bandwidthMbps: number;
  /** The chosen test's measured seconds, when the report has it. */
  readonly seconds?: number;
  readonly limitedBy?: string;
  readonly headline: string;
}

/** The same assessment opened twice is one report (same share, same start time). */
export function mergeReports(current: readonly Report[], opened: readonly Report[]): Report[] {
  const key = (report: Report) => `${report.target.share}\n${report.startedAt}`;
  const seen = new Set(current.map(key));
  const merged = [...current];
  for (const report of opened) {
    if (seen.has(key(report))) continue;
    seen.add(key(report));
    merged.push(report);
  }
  return merged;
}

export function siteRows(reports: readonly Report[], profile: ClientProfileId, op: Op, workloadKind: 'file' | 'dirset'): SiteRow[] {
  const rows = reports.map((report) => {
    const finding = report.diagnosis.findings.find((f) => f.profile === profile && f.op === op && (workloadKind === 'file' ? f.workload.startsWith('file:') : f.workload.startsWith('tr3869-dirset')));
    return {
      site: report.target.share,
      startedAt: report.startedAt,
      rttMs: report.probes.rtt.medianMs,
      bandwidthMbps: report.probes.bandwidth.mbps,
      ...(finding ? { seconds: finding.measuredSeconds, limitedBy: finding.limitedBy } : {}),
      headline: report.diagnosis.headline,
    };
  });
  // Slowest first: the sites that need attention; sites without the test last.
  return rows.sort((a, b) => (b.seconds ?? -1) - (a.seconds ?? -1));
}

/** The readiness review for a target as typed: the comparison, or what is wrong with the target. */
export function readiness(reports: readonly Report[], target: string): Comparison | { error: string } {
  try {
    return compareSites(reports, parseTarget(target));
  } catch (error) {
    return { error: error instanceof Error ? `${error.message}${'hint' in error ? ` ${String(error.hint)}` : ''}` : String(error) };
  }
}
