// A site's trend as a person reads it: each generation's rate run by run,
// the capacity peaks and readiness, and what changed between the last two
// assessments, in words. Made from what the store reads (SiteTrendData),
// bounded by the runs' columns, not by whole documents.

import { creditsSeen } from '../model/credits-seen.js';
import type { SiteTrend, SiteTrendData, TrendPoint } from '../contract/history.js';
import { runColumns, siteOf } from '../contract/history.js';
import type { Report } from '../contract/report.js';
import { formatRate } from '../model/units.js';
import { LAYER_LABELS } from '../model/layer-labels.js';
import { copyRateText, generationKeyLabel } from './test-labels.js';

const creditsOf = (report: Report): number | undefined => creditsSeen(report.copyTests.map((test) => test.negotiated));

const dialectsOf = (report: Report) => [...new Set(report.copyTests.map((test) => test.negotiated.dialect))].sort().join(', ');
const signingOf = (report: Report) => [...new Set(report.copyTests.map((test) => test.negotiated.signing ?? 'none'))].sort().join(', ');

/** What differs between two assessments of one site, newest second, in words. */
export function changesBetween(before: Report, after: Report): string[] {
  const changes: string[] = [];
  const credits = [creditsOf(before), creditsOf(after)];
  // Servers grant credits as a session goes (Samba's 8320 then 8448 is the same setting): a change counts from twice or half.
  if (credits[0] !== undefined && credits[1] !== undefined && Math.max(credits[0], credits[1]) >= 2 * Math.min(credits[0], credits[1]))
    changes.push(`credits now ${credits[1]}, was ${credits[0]}`);
  const [mbpsBefore, mbpsAfter] = [before.probes.bandwidth.mbps, after.probes.bandwidth.mbps];
  if (Math.abs(mbpsAfter - mbpsBefore) > 0.15 * Math.max(mbpsBefore, mbpsAfter))
    changes.push(`bandwidth now ${formatRate(mbpsAfter * 1e6)}, was ${formatRate(mbpsBefore * 1e6)}`);
  const [rttBefore, rttAfter] = [before.probes.rtt.medianMs, after.probes.rtt.medianMs];
  if (Math.abs(rttAfter - rttBefore) > Math.max(2, 0.15 * Math.max(rttBefore, rttAfter)))
    changes.push(`round trip now ${rttAfter.toFixed(1)} ms, was ${rttBefore.toFixed(1)}`);
  if (dialectsOf(before) !== dialectsOf(after)) changes.push(`dialect now ${dialectsOf(after)}, was ${dialectsOf(before)}`);
  if (signingOf(before) !== signingOf(after)) changes.push(`signing now ${signingOf(after)}, was ${signingOf(before)}`);
  const was = runColumns({ kind: 'assessment', report: before }).generations;
  let otherSizes = false;
  let projectedBeside = false;
  for (const [key, now] of Object.entries(runColumns({ kind: 'assessment', report: after }).generations)) {
    const then = was[key];
    if (!then) continue;
    const name = generationKeyLabel(key);
    const layer = (id: string) => (Object.hasOwn(LAYER_LABELS, id) ? LAYER_LABELS[id as keyof typeof LAYER_LABELS] : id);
    // A folder a quick run projected from its file copy against one a run copied: the model's ratio against a
    // measurement (the demo's quick run read Pipefill's folder write "1.4x faster" than the default run's copy of it).
    if (Boolean(then.fromFileCopy) !== Boolean(now.fromFileCopy)) {
      projectedBeside = true;
      continue;
    }
    // Copies of other sizes are not like with like: a smaller one spends more of its time starting (a --quick run's
    // 1 MiB file read 5.4x slower than the default run's 15 MiB on the same link). Neither rate nor limit is compared.
    // Files whose rate once under way both runs read are one series (runColumns), whatever their sizes.
    if (then.workload !== now.workload) {
      otherSizes = true;
      continue;
    }
    if (then.limitedBy !== now.limitedBy)
      changes.push(`${name}: limited by ${layer(now.limitedBy).toLowerCase()} now, was ${layer(then.limitedBy).toLowerCase()}`);
    if (then.mbps > 0 && now.mbps > 0) {
      const ratio = now.mbps / then.mbps;
      if (ratio >= 1.25 || ratio <= 0.8)
        changes.push(
          `${name}: ${ratio > 1 ? `${ratio.toFixed(1)}x faster` : `${(1 / ratio).toFixed(1)}x slower`} than the run before (${copyRateText(now.mbps * 1e6)}, was ${copyRateText(then.mbps * 1e6)})`,
        );
    }
  }
  if (otherSizes)
    changes.push(
      'Copies of other sizes than the run before (a --quick run beside a default one, or another budget) are not compared: a smaller copy spends more of its time starting.',
    );
  if (projectedBeside)
    changes.push(
      "Folders one of the two runs did not copy on their own (a --quick run projects them from its file copies) are not compared with folders the other copied: that would put the model's projection against a measurement.",
    );
  return changes;
}

/**
 * A site's trend from its runs' columns and their generations' rates (the
 * store's run_generations), plus the last two assessments' documents for
 * what changed between them: the work is bounded by the columns, not by
 * hundreds of whole documents.
 */
export function siteTrend({ site, runs, generationRates, lastTwoAssessments, unreadable }: SiteTrendData): SiteTrend {
  const ordered = [...runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id - b.id);
  const byRun = new Map<number, { generation: string; workload: string; mbps: number }[]>();
  for (const rate of generationRates) {
    const list = byRun.get(rate.runId) ?? [];
    list.push(rate);
    byRun.set(rate.runId, list);
  }
  const generations: Record<string, TrendPoint[]> = {};
  const capacityPeakMbps: TrendPoint[] = [];
  const readiness: SiteTrend['readiness'] = [];
  for (const run of ordered) {
    const { id, startedAt } = run;
    if (run.kind === 'assessment')
      // A series per generation and sample size: a line joins only copies of one size, like with like.
      for (const rate of (byRun.get(id) ?? []).sort((a, b) => a.generation.localeCompare(b.generation)))
        (generations[`${rate.generation} ${rate.workload}`] ??= []).push({ id, startedAt, value: rate.mbps });
    else {
      if (run.peakMbps !== null) capacityPeakMbps.push({ id, startedAt, value: run.peakMbps });
      if (run.readinessMet !== null) readiness.push({ id, startedAt, met: run.readinessMet, text: run.headline });
    }
  }
  const [before, after] = [...lastTwoAssessments].sort((a, b) => a.startedAt.localeCompare(b.startedAt)).slice(-2);
  return {
    site: siteOf(site),
    runs: ordered.length,
    generations,
    capacityPeakMbps,
    readiness,
    changes: before && after ? changesBetween(before, after) : [],
    ...(unreadable > 0 ? { unreadable } : {}),
  };
}
