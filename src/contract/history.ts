// Site history (issue 17): what the store keeps of each run, what the front
// ends ask it for, and the shape of one site's trend, as plain data. The
// store keeps the whole document as Pipefill wrote it, plus the columns that
// queries and the trend need; this file derives those columns from the
// documents, so SQLite and PostgreSQL answer exactly alike. The trend itself,
// with what changed in words, is src/presentation/site-trend.ts's.

import { z } from 'zod';
import type { CapacityResult } from './capacity.js';
import { CapacityResultSchema, isCapacityDocument } from './capacity.js';
import type { Report } from './report.js';
import { ReportSchema } from './report.js';
import { checkDocumentBounds } from './bounded-document.js';
import { formatRate } from '../model/units.js';
import { parseSharePath } from '../model/share-path.js';
import { copyOf, copyRateOf } from './copy-rate.js';
import type { CopyTestResult } from './copy-test.js';

export const RUN_KINDS = ['assessment', 'capacity'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** One stored run as a list shows it. */
export const RunSummarySchema = z.object({
  id: z.number().int().positive(),
  kind: z.enum(RUN_KINDS),
  /** The share as typed, and the site it belongs to (slashes and case ignored). */
  share: z.string(),
  site: z.string(),
  startedAt: z.string(),
  /** Who ran it and on which machine (an account name and a host name; never a password). */
  ranBy: z.string(),
  machine: z.string(),
  savedAt: z.string(),
  linkMbps: z.number().nullable(),
  rttMs: z.number().nullable(),
  /** Capacity runs with a target: whether it was met; null otherwise. */
  readinessMet: z.boolean().nullable(),
  headline: z.string(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const StoredRunSchema = z.object({
  summary: RunSummarySchema,
  /** Exactly one of the two, as Pipefill wrote it. */
  report: ReportSchema.nullable(),
  capacity: CapacityResultSchema.nullable(),
});
export type StoredRun = z.infer<typeof StoredRunSchema>;

export type RunDocument = { readonly kind: 'assessment'; readonly report: Report } | { readonly kind: 'capacity'; readonly capacity: CapacityResult };

/**
 * The site a share belongs to: its server and share, whatever the slashes and
 * case (//HOST/share and \\HOST\share are one), the port and a folder below
 * the share left out: the demo share's port changes run to run, and each run
 * was its own site. Text that is no share path is normalised as it is.
 */
export function siteOf(share: string): string {
  try {
    const path = parseSharePath(share);
    return `${path.host}/${path.share}`.toLowerCase();
  } catch {
    return share.trim().replace(/\\/g, '/').replace(/^\/+/, '').replace(/\/+$/, '').toLowerCase();
  }
}

/** A saved JSON document (an assessment's report or a capacity run), checked against its schema and bounded field by field (bounded-document.ts). */
export function runDocumentOf(json: unknown): RunDocument {
  const document: RunDocument = isCapacityDocument(json)
    ? { kind: 'capacity', capacity: CapacityResultSchema.parse(json) }
    : { kind: 'assessment', report: ReportSchema.parse(json) };
  checkDocumentBounds(document.kind === 'assessment' ? document.report : document.capacity, shareOf(document));
  return document;
}

export function shareOf(document: RunDocument): string {
  return document.kind === 'assessment' ? document.report.target.share : document.capacity.share;
}

export function startedAtOf(document: RunDocument): string {
  return document.kind === 'assessment' ? document.report.startedAt : document.capacity.startedAt;
}

/** What one generation measured in one run. */
export interface GenerationMeasure {
  /** The workload as run (quick runs size it to their budget, so it can differ between runs), or STEADY_FILE_SERIES. */
  readonly workload: string;
  readonly seconds: number;
  /** The rate a person reads: a file's once under way where its timeline shows one, else the whole copy's. */
  readonly mbps: number;
  readonly limitedBy: string;
  /**
   * Its figure is the model's, scaled by the same generation's file copy: a quick run's folder (not copied), or one
   * stopped too early to scale by itself (projectedFromFileCopy). Absent: a copy of its own, whole or in part.
   */
  readonly fromFileCopy?: true;
}

/**
 * Whether a copy's figure is the model's time scaled by the same generation's file copy, not a copy of its own: a
 * folder a quick run did not copy (model-scaled), or one stopped after a file or none (scaledBy). A default run's
 * folder that stopped once settled and took the file copy's rate for its data still timed its own files' round
 * trips, most of a small file's time: a copy of its own.
 */
export function projectedFromFileCopy(copy: Pick<CopyTestResult, 'projected'> | undefined): boolean {
  const projected = copy?.projected;
  if (!projected) return false;
  return projected.stoppedBy === 'not-run' || projected.rateFrom === 'model-scaled' || projected.scaledBy === 'file-copy';
}

/** The columns a query needs, from the document alone. */
export interface RunColumns {
  readonly kind: RunKind;
  readonly share: string;
  readonly site: string;
  readonly startedAt: string;
  readonly linkMbps: number | null;
  readonly rttMs: number | null;
  readonly readinessMet: boolean | null;
  readonly headline: string;
  /** Capacity runs: the most Mb/s the people moved together (the trend's capacity line); null for assessments. */
  readonly peakMbps: number | null;
  /**
   * Per generation, `profile op file|dirset` (not the exact size: runs sized
   * to different budgets still line up; their rates compare, their times
   * would not). Assessments only.
   */
  readonly generations: Readonly<Record<string, GenerationMeasure>>;
}

/**
 * The series a file copy's rate once under way joins, whatever the file's
 * size: that rate is what a 1 GB file settles at, so a quick run's 17 MiB
 * and a default run's 15 MiB compare like with like. A copy too short to
 * show one keeps its workload: its whole-copy rate compares only with
 * copies of its own size.
 */
export const STEADY_FILE_SERIES = 'file:once-under-way';

/**
 * What a folder's series name carries where its figure was projected from the
 * file copy (projectedFromFileCopy): a line of its own, as a sample size is, so
 * that a quick run's projection beside a default run's copy draws no change.
 */
export const PROJECTED_SERIES_SUFFIX = '+projected';

export const generationKey = (profile: string, op: string, workload: string) => `${profile} ${op} ${workload.startsWith('tr3869-dirset') ? 'dirset' : 'file'}`;

export function runColumns(document: RunDocument): RunColumns {
  if (document.kind === 'assessment') {
    const { report } = document;
    const generations: Record<string, GenerationMeasure> = {};
    for (const finding of report.diagnosis.findings) {
      const rate = copyRateOf(report.copyTests, finding);
      const fromFileCopy = projectedFromFileCopy(copyOf(report.copyTests, finding));
      generations[generationKey(finding.profile, finding.op, finding.workload)] = {
        workload: rate.underWay ? STEADY_FILE_SERIES : fromFileCopy ? `${finding.workload}${PROJECTED_SERIES_SUFFIX}` : finding.workload,
        seconds: finding.measuredSeconds,
        mbps: rate.bitsPerSecond / 1e6,
        limitedBy: finding.limitedBy,
        ...(fromFileCopy ? { fromFileCopy: true as const } : {}),
      };
    }
    return {
      kind: 'assessment',
      share: report.target.share,
      site: siteOf(report.target.share),
      startedAt: report.startedAt,
      linkMbps: report.probes.bandwidth.mbps,
      rttMs: report.probes.rtt.medianMs,
      readinessMet: null,
      headline: report.diagnosis.headline,
      peakMbps: null,
      generations,
    };
  }
  const { capacity } = document;
  const { peakMbps, peakUsers } = capacity.knee;
  return {
    kind: 'capacity',
    share: capacity.share,
    site: siteOf(capacity.share),
    startedAt: capacity.startedAt,
    linkMbps: capacity.link?.mbps ?? null,
    rttMs: capacity.link?.rttMs ?? null,
    readinessMet: capacity.readiness?.met ?? null,
    headline:
      capacity.readiness?.text ?? `At most ${formatRate(peakMbps * 1e6)} together, with ${peakUsers} ${peakUsers === 1 ? 'person' : 'people'} copying at once.`,
    peakMbps,
    generations: {},
  };
}

/** One point of a site's trend: a run and what it measured. */
const TrendPointSchema = z.object({ id: z.number(), startedAt: z.string(), value: z.number() });
export type TrendPoint = z.infer<typeof TrendPointSchema>;

export const SiteTrendSchema = z.object({
  site: z.string(),
  runs: z.number().int().nonnegative(),
  /** Per generation (`profile op file|dirset`), the measured rate in Mb/s over time, oldest first. */
  generations: z.record(z.string(), z.array(TrendPointSchema)),
  /** Capacity runs' people-at-once peaks (Mb/s together) over time. */
  capacityPeakMbps: z.array(TrendPointSchema),
  /** Readiness over time (capacity runs with a target): met or not. */
  readiness: z.array(z.object({ id: z.number(), startedAt: z.string(), met: z.boolean(), text: z.string() })),
  /** What changed between the last two assessments, in words ("credits now 512, was 16"). */
  changes: z.array(z.string()),
  /** Runs of the site this Pipefill could not read (a newer Pipefill's, or damaged): left out, and counted. */
  unreadable: z.number().int().nonnegative().optional(),
});
export type SiteTrend = z.infer<typeof SiteTrendSchema>;

/**
 * Whether a PostgreSQL address carries a password, read as the client reads
 * it (the URL parsed, its query decoded): `user:pw@`, `?password=`, and
 * spellings such as `?pass%77ord=` or `?PASSWORD=` alike. An address that
 * does not parse is treated as carrying one (it is refused, not guessed at).
 */
export function postgresAddressHasPassword(address: string): boolean {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return true;
  }
  if (url.password !== '') return true;
  return [...url.searchParams.keys()].some((key) => key.toLowerCase() === 'password');
}

// The contract's history calls (src/contract/api.ts).
const RunIdSchema = z.object({ id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }).strict();
export const HistorySaveInputSchema = z.object({ document: z.unknown() }).strict();
export const HistorySaveResultSchema = z.object({ id: z.number(), created: z.boolean(), where: z.string() });
export const HistoryListInputSchema = z.object({ site: z.string().max(1024).optional(), limit: z.number().int().positive().max(10_000).optional() }).strict();
export const HistoryListResultSchema = z.object({ where: z.string(), runs: z.array(RunSummarySchema) });
export const HistoryRunInputSchema = RunIdSchema;
export const HistoryTrendInputSchema = z.object({ site: z.string().min(1).max(1024) }).strict();
export const HistoryDeleteInputSchema = RunIdSchema;
export const HistoryDeleteResultSchema = z.object({ deleted: z.boolean() });
/** A team store's address: PostgreSQL, and never with a password (a remembered setting is a file anyone with the account reads). */
export const TeamStoreAddressSchema = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((address) => /^postgres(ql)?:\/\/./i.test(address), {
    message: 'Give a PostgreSQL address, postgres://USER@HOST[:PORT]/DATABASE, or none for this computer.',
  })
  .refine((address) => !postgresAddressHasPassword(address), {
    message: 'Leave the password out of the address: give it in PGPASSWORD or ~/.pgpass on the machine that runs Pipefill.',
  });

/**
 * Which store the services keep runs in: a team's PostgreSQL address; null,
 * this computer's default. (A SQLite file elsewhere is the CLI's --store or
 * PIPEFILL_STORE: a page may not name files for the services to create.) An
 * address with a password in it is refused: front ends remember this
 * setting, and a setting never holds one.
 */
export const HistoryStoreInputSchema = z.object({ address: TeamStoreAddressSchema.nullable() }).strict();
export const HistoryStoreResultSchema = z.object({ where: z.string() });

/** One run of a site as the trend needs it: its columns, never its document. */
export interface TrendRun {
  readonly id: number;
  readonly kind: RunKind;
  readonly startedAt: string;
  readonly peakMbps: number | null;
  readonly readinessMet: boolean | null;
  /** The capacity run's readiness in words (its headline). */
  readonly headline: string;
}

/** What a site's trend is made from, as the store reads it (src/presentation/site-trend.ts makes the trend). */
export interface SiteTrendData {
  readonly site: string;
  readonly runs: readonly TrendRun[];
  /** Each assessment's generations' rates (the store's run_generations). */
  readonly generationRates: readonly { readonly runId: number; readonly generation: string; readonly workload: string; readonly mbps: number }[];
  /** The last two assessments' documents, for what changed between them. */
  readonly lastTwoAssessments: readonly Report[];
  /** Assessments this Pipefill cannot read (kept no generation rows). */
  readonly unreadable: number;
}
