// The Reports view: saved assessments side by side, one row per site, ranked
// by how long the chosen generation takes for the chosen test there, with
// the capacity runs of the same shares beside them. Pure.

import type { CapacityResult } from '../../../../src/contract/capacity.js';
import { isCapacityDocument, parseCapacityText } from '../../../../src/contract/capacity.js';
import type { Comparison } from '../../../../src/presentation/compare.js';
import { compareSites, parseTarget } from '../../../../src/presentation/compare.js';
import type { Report } from '../../../../src/contract/report.js';
import { parseReportText } from '../../../../src/contract/report.js';
import type { ClientProfileId, Op } from '../../../../src/model/client-profiles.js';
import { DEFAULT_CLIENT } from '../../../../src/model/client-profiles.js';

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

/** Adds what was opened to what is open; the same document opened twice (same share, same start time) counts once. */
function mergeByShareAndStart<T>(current: readonly T[], opened: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set(current.map(key));
  const merged = [...current];
  for (const item of opened) {
    if (seen.has(key(item))) continue;
    seen.add(key(item));
    merged.push(item);
  }
  return merged;
}

export function mergeReports(current: readonly Report[], opened: readonly Report[]): Report[] {
  return mergeByShareAndStart(current, opened, (report) => `${report.target.share}\n${report.startedAt}`);
}

export function mergeCapacityRuns(current: readonly CapacityResult[], opened: readonly CapacityResult[]): CapacityResult[] {
  return mergeByShareAndStart(current, opened, (run) => `${run.share}\n${run.startedAt}`);
}

/** A saved JSON file as what it holds: an assessment's report or a capacity run, checked against its schema. */
export function openedDocument(text: string, name: string): { readonly report: Report } | { readonly capacity: CapacityResult } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined; // parseReportText says what is wrong with it
  }
  return isCapacityDocument(json) ? { capacity: parseCapacityText(text, name) } : { report: parseReportText(text, name) };
}

/**
 * What Reports opens on: the person's client of the newest report open (the
 * share just assessed; a default win10-smb3 read "Time: not tested" beside
 * a Windows 11 assessment), its small-files write, and a readiness target for
 * that client.
 */
export function reportsStart(reports: readonly Report[]): { readonly profile: ClientProfileId; readonly target: string } {
  const newest = [...reports].sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
  const tested = newest?.diagnosis.findings.map((finding) => finding.profile) ?? [];
  const chosen = newest?.options.client ?? tested.find((id) => id !== 'pipefill-max') ?? DEFAULT_CLIENT;
  return { profile: chosen, target: `dirset<5min@${chosen}` };
}

export function siteRows(reports: readonly Report[], profile: ClientProfileId, op: Op, workloadKind: 'file' | 'dirset'): SiteRow[] {
  const rows = reports.map((report) => {
    const finding = report.diagnosis.findings.find(
      (f) => f.profile === profile && f.op === op && (workloadKind === 'file' ? f.workload.startsWith('file:') : f.workload.startsWith('tr3869-dirset')),
    );
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
export function readiness(reports: readonly Report[], target: string, capacityRuns: readonly CapacityResult[] = []): Comparison | { error: string } {
  try {
    return compareSites(reports, parseTarget(target), capacityRuns);
  } catch (error) {
    return { error: error instanceof Error ? `${error.message}${'hint' in error ? ` ${String(error.hint)}` : ''}` : String(error) };
  }
}
