// The assessment's result: one versioned document that the UI shows, the CLI
// prints and the report exporters render. It never holds a password.

import { z } from 'zod';
import type { ClientProfileId } from '../model/client-profiles.js';
import { CLIENT_PROFILE_IDS, DEFAULT_CLIENT } from '../model/client-profiles.js';
import { PipefillInputError } from '../model/errors.js';
import { LIMIT_LAYERS } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { ETHERNET_MTU_BYTES, lineRateOf } from '../model/link.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';
import { CIPHERS, SIGNING_ALGORITHMS } from '../model/smb-security.js';
import { CopyTestResultSchema } from './copy-test.js';
import type { ProbeResult } from './probe.js';
import { ProbeResultSchema } from './probe.js';
import { ShareLoginSchema } from './share-login.js';
import { parseInput } from './validate.js';
import { RecommendResultSchema } from './recommendation.js';
import { ServerSourceSchema, VerdictSchema } from './verdict-schema.js';
import { PromiseCheckSchema } from './promise-schema.js';

export const REPORT_SCHEMA_VERSION = 1;

export const AssessInputSchema = ShareLoginSchema.extend({
  iperf: z.string().optional(),
  /** The client the person's users have: the verdict is for it (default Windows 11 24H2). */
  client: z.enum(CLIENT_PROFILE_IDS).optional(),
  /** Older generations to test beside it, for a readiness comparison (none by default). */
  compare: z.array(z.enum(CLIENT_PROFILE_IDS)).max(CLIENT_PROFILE_IDS.length).optional(),
  /** Every generation to test, in this order, instead of the client, Pipefill's best pipeline and `compare`. */
  profiles: z.array(z.enum(CLIENT_PROFILE_IDS)).min(1).optional(),
  /** The server profile the expectations assume (its credits and TCP windows). */
  server: z.enum(SERVER_PROFILE_IDS).optional(),
  /** A budget of 20 s instead of 60 (and smaller workloads). */
  quick: z.boolean().optional(),
  /**
   * The person's copy tool: their client's folders of small files copied as
   * robocopy /MT:n copies them, n files at once on the one session (absent
   * or 1: one file at a time, as Explorer copies). What proves the robocopy
   * change Pipefill recommends.
   */
  threads: z.number().int().min(1).max(128).optional(),
  /**
   * An earlier report of the same share: the new one says what each change
   * it named and this run no longer names promised, and what this run
   * measured (src/contract/promises.ts). The app passes the share's open
   * report; the CLI, --since FILE.
   */
  since: z.lazy(() => ReportSchema).optional(),
  /** The whole run's time budget in seconds (default 60, quick 20): copies stop once their rate has settled and the rest is projected. */
  budgetSeconds: z.number().min(5).max(3600).optional(),
  /** Move every byte of every copy, however long it takes (no budget, nothing projected). */
  full: z.boolean().optional(),
  /** The workloads, instead of those sized from the probed link (to compare runs on one footing). */
  fileBytes: z
    .number()
    .int()
    .min(65_536)
    .max(2 ** 34)
    .optional(),
  dirsetScale: z.number().min(0.01).max(1.4).optional(),
}).strict();
/** As a front end sends it (the share as typed). */
export type AssessInput = z.input<typeof AssessInputSchema>;
/** As a service receives it: defaults applied, the share parsed (ShareRef). */
export type AssessParsedInput = z.output<typeof AssessInputSchema>;

export const FindingSchema = z.object({
  profile: z.enum(CLIENT_PROFILE_IDS),
  op: z.enum(['read', 'write']),
  workload: z.string(),
  /** The whole workload's time: measured, or projected from a budgeted copy where `projected` is true. */
  measuredSeconds: z.number(),
  projected: z.boolean().optional(),
  /** The model's time for this generation's pattern on the tested machine's TCP stack, against the assumed server. */
  expectedSeconds: z.number(),
  expectedLimitedBy: z.enum(LIMIT_LAYERS),
  /** expected / measured: 1 is as fast as the model says, 0.5 twice as slow. */
  efficiency: z.number(),
  verdict: z.enum(['as-expected', 'slower-than-expected', 'faster-than-expected']),
  /** The layer that limited this copy, from the model rerun with what the copy revealed; `unexplained` when the copy was far slower than that. */
  limitedBy: z.enum([...LIMIT_LAYERS, 'unexplained']),
  explainedSeconds: z.number(),
  measuredMbps: z.number(),
  /** Measured payload rate x RTT: what the copy kept in flight. */
  inFlightBytes: z.number(),
  sentence: z.string(),
  /** The cause alone, without the measurement (absent in older reports). */
  why: z.string().max(2_000).optional(),
  /** The copy ran slower than every limit the model knows, beyond noise: `limitedBy` is then a suspect (absent: within the model, or an older report). */
  beyondModel: z.literal(true).optional(),
});
export type Finding = z.infer<typeof FindingSchema>;

const RateSchema = z
  .object({ protect: z.number().positive(), check: z.number().positive(), messageSeconds: z.number().nonnegative().finite().optional() })
  .strict();

/** This machine's per-core signing and encryption rates, measured at the assessment's start. */
export const CryptoMeasurementSchema = z.object({
  rates: z.partialRecord(z.enum([...SIGNING_ALGORITHMS, ...CIPHERS]), RateSchema),
  /** The share was on this machine: the server's crypto was weighed at these rates too. */
  serverOnThisMachine: z.boolean(),
});

const RequestCostsSchema = z
  .object({
    secondsPerRequest: z.number().nonnegative().finite(),
    secondsPerByte: z.number().nonnegative().finite(),
    /** A pipeline's fill on a share on this machine (src/model/host-costs.ts PipelineFill); absent in reports made before. */
    fill: z
      .object({
        seconds: z.number().nonnegative().max(60),
        requestBytes: z
          .number()
          .int()
          .positive()
          .max(2 ** 30),
      })
      .strict()
      .optional(),
  })
  .strict();

/** What the two machines take, measured on a fast path (src/model/host-costs.ts HostCosts). */
export const HostCostsSchema = z
  .object({
    read: RequestCostsSchema,
    write: RequestCostsSchema,
    protected: z
      .object({
        protection: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('signing'), algorithm: z.enum(SIGNING_ALGORITHMS) }),
          z.object({ kind: z.literal('encryption'), algorithm: z.enum(CIPHERS) }),
        ]),
        read: RequestCostsSchema,
        write: RequestCostsSchema,
        /** Its metadata exchange, that protection included (src/model/host-costs.ts exchangeSeconds). */
        metadataSeconds: z.number().nonnegative().finite().optional(),
      })
      .optional(),
    metadataSeconds: z.number().nonnegative().finite(),
    storageWriteSecondsPerByte: z.number().nonnegative().finite().optional(),
    turnaroundSeconds: z.object({ read: z.number().nonnegative().finite(), write: z.number().nonnegative().finite() }).strict().optional(),
    /** Measured across a network: the costs are the hosts' own pace, beside the line's (src/model/host-costs.ts). */
    acrossNetwork: z.boolean().optional(),
    /** The calibration's own noise: its repeated runs' largest spread (src/model/host-costs.ts runSpread). */
    noise: z.number().nonnegative().finite().optional(),
    /** Other programs' use of this machine as the calibration began (src/platform/cpu-load.ts). */
    load: z
      .object({ otherCores: z.number().nonnegative().max(4096), cores: z.number().int().min(1).max(4096) })
      .strict()
      .optional(),
  })
  .strict();

/** The same read with and without signing, where the server allowed both. */
export const ProtectionCheckSchema = z.discriminatedUnion('ran', [
  z.object({ ran: z.literal(false), sentence: z.string() }),
  z.object({
    ran: z.literal(true),
    workload: z.string(),
    op: z.enum(['read', 'write']),
    algorithm: z.enum(SIGNING_ALGORITHMS),
    plainSeconds: z.number(),
    signedSeconds: z.number(),
    measuredRatio: z.number(),
    expectedRatio: z.number(),
    /** `protocol`: signing's CPU cost slowed the copy; `path`: it did not, so what is slow is elsewhere. */
    verdict: z.enum(['protocol', 'path']),
    sentence: z.string(),
  }),
]);
export type ProtectionCheck = z.infer<typeof ProtectionCheckSchema>;

export const ReportSchema = z.object({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  startedAt: z.string(),
  finishedAt: z.string(),
  target: z.object({ share: z.string(), user: z.string(), domain: z.string().optional() }),
  environment: z.object({ pipefillVersion: z.string(), node: z.string(), platform: z.string(), release: z.string(), arch: z.string() }),
  /** Absent in reports from before signing and encryption were modelled. */
  crypto: CryptoMeasurementSchema.optional(),
  protectionCheck: ProtectionCheckSchema.optional(),
  options: z.object({
    profiles: z.array(z.enum(CLIENT_PROFILE_IDS)),
    /** The person's own client, whom the verdict is for (absent in reports from before it). */
    client: z.enum(CLIENT_PROFILE_IDS).optional(),
    server: z.enum(SERVER_PROFILE_IDS),
    /** How the server profile was chosen: named by the person, recognised from what the server sent, or assumed. */
    serverSource: ServerSourceSchema.optional(),
    quick: z.boolean(),
    /** robocopy /MT:n for the person's client's folders of small files (absent: one file at a time). */
    threads: z.number().int().min(2).max(128).optional(),
    fileBytes: z.number(),
    dirsetScale: z.number(),
    /** The time budget the run kept to; null for a full run (every byte moved). Reports from before budgets have neither. */
    budgetSeconds: z.number().nullable().optional(),
    /** How budgeted copies decided to stop (src/model/settle.ts). */
    settleRule: z.string().optional(),
  }),
  probes: ProbeResultSchema,
  /** A recycle bin on the share that kept the run's (emptied) files when it cleaned up; absent when none did. */
  keptByRecycleBin: z.string().max(64).optional(),
  /**
   * The path the expectations were computed on: the probe's round trip, and
   * the line under its payload rate (probedLineOf), raised to the line under
   * the fastest payload rate a copy of this run measured (a copy proves the
   * path carries it; on a fast path the probe's short read is paced by the
   * hosts and reads low). Reports before 2026-11-28 took the payload rate for
   * the line, and are read as they were made. Absent in older reports: the
   * probe's figures were used as they are.
   */
  pathModel: z
    .object({
      bandwidthBitsPerSecond: z.number().positive(),
      rttMs: z.number().positive(),
      /** Where the line came from: the probe, a copy that moved more, or iperf3 on several streams where the path lost packets (line-under-loss.ts). */
      bandwidthFrom: z.enum(['probe', 'copy', 'streams']),
      /** The path's own loss rate, as the run's writes read it (src/assess/findings.ts pathLossOfRun): a layer of the model. */
      lossRate: z.number().min(0).lt(1).optional(),
      /** Reports of 0.1 made before the hosts were modelled: what the two machines moved on their own, each way. Read, never written. */
      hosts: z.object({ readBitsPerSecond: z.number().positive(), writeBitsPerSecond: z.number().positive() }).optional(),
      /** On a fast path: what the two machines take per request, per byte and per metadata exchange, measured (src/probe/host-rates.ts). */
      hostCosts: HostCostsSchema.optional(),
      /**
       * A read met the path's loss and outran every loss-based sender (src/model/server-as-seen.ts readsOutranLoss): the
       * server sends with BBR, or the loss is only on the way to it. The reads are expected as BBR sends them.
       */
      serverSender: z.enum(['rate-based']).optional(),
    })
    .optional(),
  /** Where the run's time went, seconds from its start (budgeted runs keep to options.budgetSeconds, clean-up after the report included in its reserve). */
  timing: z
    .object({ probeSeconds: z.number(), setUpSeconds: z.number(), copiesSeconds: z.number(), checkSeconds: z.number(), totalSeconds: z.number() })
    .optional(),
  copyTests: z.array(CopyTestResultSchema),
  diagnosis: z.object({ headline: z.string(), findings: z.array(FindingSchema) }),
  /** The changes an earlier run of the same share named that this one no longer names, with what each promised and what this run measured (src/contract/promises.ts). */
  promises: z.array(PromiseCheckSchema).max(40).optional(),
  /** The answer for the person's client: measured, possible, what holds it back and the fix (absent in older reports: verdictOf computes it). */
  verdict: VerdictSchema.optional(),
  /** The settings the model recommends for the assessed client and server on the probed path. */
  advice: RecommendResultSchema.optional(),
});
export type Report = z.infer<typeof ReportSchema>;

/** The path a report's expectations were computed on (see `pathModel`). */
export function modelLinkOf(report: Pick<Report, 'probes' | 'pathModel'>): Link {
  const mtu = tunnelMtuOf(report.probes);
  if (report.pathModel)
    return {
      bandwidthBitsPerSecond: report.pathModel.bandwidthBitsPerSecond,
      rttMs: report.pathModel.rttMs,
      ...(report.pathModel.hostCosts ? { hosts: report.pathModel.hostCosts } : {}),
      ...(report.pathModel.lossRate === undefined ? {} : { lossRate: report.pathModel.lossRate }),
      ...mtu,
    };
  return { bandwidthBitsPerSecond: report.probes.bandwidth.mbps * 1e6, rttMs: report.probes.rtt.medianMs, ...mtu };
}

/**
 * The probed path MTU where the model takes it: below Ethernet's, a tunnel
 * that carries less payload a packet (src/model/link.ts payloadEfficiency).
 * A larger one (jumbo frames, loopback's 64 KiB) leaves the model's Ethernet
 * packets as they were.
 */
export function tunnelMtuOf(probes: Pick<ProbeResult, 'path'>): { mtuBytes?: number } {
  const mtuBytes = probes.path?.mtuBytes;
  return mtuBytes !== undefined && mtuBytes < ETHERNET_MTU_BYTES ? { mtuBytes } : {};
}

/**
 * The line the model takes from a probe: the payload rate it measured with
 * the headers of the path's packets put back (src/model/link.ts lineRateOf),
 * so that a copy the line paces is expected at the rate the probe moved.
 */
export function probedLineOf(probes: Pick<ProbeResult, 'bandwidth' | 'path'>): number {
  return lineRateOf(probes.bandwidth.mbps * 1e6, tunnelMtuOf(probes).mtuBytes);
}

/**
 * The largest report Pipefill opens. A real one is well under 1 MiB (a full
 * assessment's timelines are ~300 KiB); anything near this is not a report,
 * and parsing it would stall the page.
 */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;

/** Refuses a report file by its size, before it is read. */
export function checkReportSize(bytes: number, name: string): void {
  if (bytes > MAX_REPORT_BYTES)
    throw new PipefillInputError(
      `${name} is ${(bytes / 1024 / 1024).toFixed(1)} MiB; a Pipefill report is at most ${MAX_REPORT_BYTES / 1024 / 1024} MiB.`,
      "Give a report saved by `pipefill assess --out` or the app's Export.",
    );
}

/** A saved report's text, checked against the schema; what is wrong names the file (`name`). */
export function parseReportText(text: string, name: string): Report {
  // UTF-16 code units: at most the byte count, so this never refuses a file checkReportSize let through.
  checkReportSize(text.length, name);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PipefillInputError(`${name} is not JSON.`, "Give a report saved by `pipefill assess --out` or the app's Export.");
  }
  return parseInput(ReportSchema, json, `report ${name}`);
}

/**
 * The generations a run tests: the ones named, else the person's client and
 * Pipefill's best pipeline (what the path allows), with any older ones asked
 * for as a comparison first.
 */
export function assessedProfiles(input: Pick<AssessInput, 'client' | 'compare' | 'profiles'>): ClientProfileId[] {
  if (input.profiles) return [...new Set(input.profiles)];
  const client = input.client ?? DEFAULT_CLIENT;
  const compared = (input.compare ?? []).filter((id) => id !== client && id !== 'pipefill-max');
  return [...new Set([...compared, client, 'pipefill-max' as const])];
}

/** The person's client: the one given, else the last generation named other than Pipefill's, else the default. */
export function assessedClient(input: Pick<AssessInput, 'client' | 'profiles'>): ClientProfileId {
  return input.client ?? (input.profiles ? (input.profiles.filter((id) => id !== 'pipefill-max').pop() ?? 'pipefill-max') : DEFAULT_CLIENT);
}

/** The run's budget unless it moves every byte: 60 s, or 20 s quick (issue 15). */
export const DEFAULT_BUDGET_SECONDS = { full: 60, quick: 20 } as const;

/** The seconds a run may take, or null where --full moves every byte however long. */
export function budgetSecondsOf(input: Pick<AssessInput, 'full' | 'quick' | 'budgetSeconds'>): number | null {
  return input.full ? null : (input.budgetSeconds ?? (input.quick ? DEFAULT_BUDGET_SECONDS.quick : DEFAULT_BUDGET_SECONDS.full));
}
