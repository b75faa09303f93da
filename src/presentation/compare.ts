// Branch readiness: sites side by side against a target such as
// "dirset<5min@win10-smb3" (the 1 GiB TR-3869 directory copy, read and
// written, under five minutes with Windows 10). Each site's time is the
// model's for that test on the path its assessment measured; a failing site
// gets the change that would make it pass, when one does. A capacity run of
// the same share (`pipefill capacity --target`) adds how many people can copy
// there at once against the target set for it. Pure.

import { recommend } from '../advice/recommend.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { PipefillInputError } from '../model/errors.js';
import { formatDuration, formatRate, parseTimeMs } from '../model/units.js';
import type { CapacityResult } from '../contract/capacity.js';
import { observationsFromReport } from '../contract/recommend.js';
import type { Report } from '../contract/report.js';
import { modelLinkOf } from '../contract/report.js';

export interface ReadinessTarget {
  readonly text: string;
  readonly workload: 'file:100MB' | 'tr3869-dirset';
  readonly ops: readonly Op[];
  readonly seconds: number;
  readonly client: ClientProfileId;
}

const TARGET_HINT =
  'Write it as <dirset|file>[/read|/write]<<time>@<client>, e.g. dirset<5min@win10-smb3 or file/write<30s@win7-smb2 (file = the 100 MB file, dirset = the 1 GiB directory set; without /read or /write both must pass).';

export function parseTarget(text: string): ReadinessTarget {
  const match = /^\s*(dirset|file)(?:\/(read|write))?\s*<\s*([\d.]+\s*(?:min|h|s|ms))\s*@\s*([a-z0-9-]+)\s*$/i.exec(text);
  if (!match) throw new PipefillInputError(`Cannot read the target ${JSON.stringify(text)}.`, TARGET_HINT);
  const [, kind, op, time, client] = match;
  const timeText = (time ?? '').replace(/\s+/g, '');
  const minutes = /^([\d.]+)min$/.exec(timeText);
  const hours = /^([\d.]+)h$/.exec(timeText);
  const ms = minutes ? Number(minutes[1]) * 60_000 : hours ? Number(hours[1]) * 3_600_000 : parseTimeMs(timeText);
  if (!(ms > 0)) throw new PipefillInputError(`The target time must be above zero: ${JSON.stringify(text)}.`, TARGET_HINT);
  if (!(CLIENT_PROFILE_IDS as readonly string[]).includes(client ?? ''))
    throw new PipefillInputError(`Unknown client ${JSON.stringify(client)} in the target.`, `Valid: ${CLIENT_PROFILE_IDS.join(', ')}.`);
  return {
    text: text.trim(),
    workload: kind?.toLowerCase() === 'file' ? 'file:100MB' : 'tr3869-dirset',
    ops: op ? [op.toLowerCase() as Op] : ['read', 'write'],
    seconds: ms / 1000,
    client: client as ClientProfileId,
  };
}

export interface SiteVerdict {
  readonly site: string;
  readonly assessedAt: string;
  readonly rttMs: number;
  readonly bandwidthMbps: number;
  /** The model's time for the target's test(s) on this path: the slower of read and write where both count. */
  readonly seconds: number;
  readonly passes: boolean;
  /** For a failing site: the change that would make it pass, or why none does. */
  readonly fix?: string;
  /** The latest capacity run of this share that was given: its readiness against its own target, when it had one. */
  readonly capacity?: CapacityVerdict;
}

export interface CapacityVerdict {
  readonly startedAt: string;
  /** Null when the run was made without a target: only its peak then. */
  readonly met: boolean | null;
  readonly text: string;
}

export interface Comparison {
  readonly target: ReadinessTarget;
  /** Slowest first. */
  readonly sites: readonly SiteVerdict[];
  /** Shares of capacity runs given without an assessment of the same share (no site row to carry them). */
  readonly capacityWithoutAssessment: readonly string[];
}

/** Shares compare as the same site whatever their slashes and case (//HOST/share and \\\\HOST\\share are one). */
function siteKey(share: string): string {
  return share.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}

function capacityVerdict(run: CapacityResult): CapacityVerdict {
  if (run.readiness) return { startedAt: run.startedAt, met: run.readiness.met, text: run.readiness.text };
  const { peakMbps, peakUsers } = run.knee;
  return {
    startedAt: run.startedAt,
    met: null,
    text: `No target set; at most ${formatRate(peakMbps * 1e6)} together, with ${peakUsers} ${peakUsers === 1 ? 'person' : 'people'} copying at once.`,
  };
}

const testLabel = (op: Op, workload: string) => `${op} ${workload}`;

function siteVerdict(report: Report, target: ReadinessTarget): SiteVerdict {
  const link = modelLinkOf(report);
  // The target's test for the server as the assessment saw it (the credits it granted, the signing it demanded),
  // with every change weighed on the same model: the site's time and its fix are one diagnosis.
  const advice = recommend({
    link,
    client: target.client,
    server: report.options.server,
    observations: observationsFromReport(report),
    workloads: [target.workload],
  });
  const pick = (tests: readonly { test: string; before: number; after: number }[], which: 'before' | 'after') =>
    Math.max(...target.ops.map((op) => tests.find((t) => t.test === testLabel(op, target.workload))?.[which] ?? Infinity));
  const seconds = pick(advice.combined, 'before');
  const base = { site: report.target.share, assessedAt: report.startedAt, rttMs: link.rttMs, bandwidthMbps: report.probes.bandwidth.mbps, seconds };
  if (seconds <= target.seconds) return { ...base, passes: true };
  const after = (tests: readonly { test: string; before: number; after: number }[]) => pick(tests, 'after');
  const single = advice.recommendations
    .map((r) => ({ r, seconds: after(r.tests) }))
    .filter((x) => x.seconds <= target.seconds)
    .sort((a, b) => a.seconds - b.seconds)[0];
  if (single)
    return {
      ...base,
      passes: false,
      fix: `${single.r.knob} ${String(single.r.current)} -> ${String(single.r.value)} (${single.r.platform}) makes it ${formatDuration(single.seconds * 1000)}: ${single.r.command}`,
    };
  const together = after(advice.combined);
  if (advice.recommendations.length > 1 && together <= target.seconds) {
    return {
      ...base,
      passes: false,
      fix: `All ${advice.recommendations.length} recommendations together make it ${formatDuration(together * 1000)}: ${advice.recommendations.map((r) => `${r.knob} -> ${String(r.value)}`).join(', ')}.`,
    };
  }
  const best = Number.isFinite(together) && advice.recommendations.length > 0 ? ` (${formatDuration(together * 1000)} with every recommended setting)` : '';
  return {
    ...base,
    passes: false,
    fix: `No setting is enough${best}: the path itself must improve (more bandwidth or a shorter round trip), or the copy must be smaller.`,
  };
}

export function compareSites(reports: readonly Report[], target: ReadinessTarget, capacityRuns: readonly CapacityResult[] = []): Comparison {
  const latest = new Map<string, CapacityResult>();
  for (const run of capacityRuns) {
    const key = siteKey(run.share);
    const seen = latest.get(key);
    if (!seen || Date.parse(run.startedAt) > Date.parse(seen.startedAt)) latest.set(key, run);
  }
  const assessed = new Set(reports.map((report) => siteKey(report.target.share)));
  const sites = reports.map((report) => {
    const verdict = siteVerdict(report, target);
    const run = latest.get(siteKey(report.target.share));
    return run ? { ...verdict, capacity: capacityVerdict(run) } : verdict;
  });
  return {
    target,
    sites: sites.sort((a, b) => b.seconds - a.seconds),
    capacityWithoutAssessment: [...latest.values()].filter((run) => !assessed.has(siteKey(run.share))).map((run) => run.share),
  };
}
