// The copies of a run, planned before any runs: every workload in both
// directions for every generation, each with the model's time for it and the
// least a budgeted slot may give it, in the order they run (Pipefill's own
// write of a workload first: it lays the others' read source). Pure: the
// model's times come from the caller.

import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { ASSESSMENT_OPS } from '../model/assessment.js';
import { roundTripsBeforeData } from '../model/metadata.js';
import type { Workload } from '../model/workloads.js';
import { parseWorkload } from '../model/workloads.js';

/**
 * Round trips of data a budgeted file copy gets at least, after its opening
 * sequence (when it takes longer than that whole). A default run projects a
 * generation's directory set from its file copy's data rate: a dozen of XP's
 * one-at-a-time requests (with eight, XP's set read at 52 Mb/s / 75 ms came
 * out 34% long). A quick run scales the model by the file copy's time
 * (src/model/scaled-projection.ts), which eight requests show as well: its
 * XP file copies within 1.2-5.5% of the full ones. A flat 28 round trips for
 * any copy (XP read: its 8 opening ones and 20 reads) cost a quick run at
 * 75 ms a second and a half over the two XP copies.
 */
const FILE_DATA_MINIMUM_RTTS = { budget: 12, quick: 8 } as const;

/** A file write's read-back runs after the copies, with every other file write's (AssessmentCopies.readBackWrites). */
export const readsBackLater = (copy: { readonly op: Op; readonly workload: string }) => copy.op === 'write' && parseWorkload(copy.workload).kind === 'file';

export interface PlannedCopy {
  readonly index: number;
  readonly profile: ClientProfileId;
  readonly op: Op;
  readonly workload: string;
  readonly expectedSeconds: number;
  /** The least a budgeted copy of it may be given. */
  readonly minimumSeconds: number;
  /** Not copied: projected from the same generation's file copy (a quick run's directory set). */
  readonly fromFileCopy: boolean;
}

/** The model's time for a copy: a generation's, one direction, a workload, its sender warm from an earlier copy or not. */
export type ModelSeconds = (profile: ClientProfileId, op: Op, workload: Workload, warmSender: boolean) => number;

export interface CopyPlan {
  /** Every copy in report order (workload, generation, direction). */
  readonly planned: readonly PlannedCopy[];
  /** The copies that run, in the order they run. */
  readonly order: readonly PlannedCopy[];
  /** Workloads whose read source Pipefill's own write does not lay (pipefill-max not chosen): written first, unreported. */
  readonly sourceWrites: readonly string[];
  /** Entries the scratch folder will hold (for the time its removal takes). */
  readonly entries: number;
  /** The workloads copied, and how many writes copy into a target of their own. */
  readonly copiedWorkloads: readonly string[];
  readonly targetWrites: number;
}

export interface CopyPlanInput {
  readonly workloads: readonly string[];
  readonly profiles: readonly ClientProfileId[];
  readonly quick: boolean;
  /** A budget holds the run (not --full). */
  readonly budgeted: boolean;
  readonly rttMs: number;
  readonly modelSeconds: ModelSeconds;
}

export function planCopies(input: CopyPlanInput): CopyPlan {
  const { workloads, profiles, quick, budgeted, rttMs, modelSeconds } = input;
  // Each generation keeps one session for the run, and every workload is copied in both directions by
  // every generation: a copy of a later workload finds its sender warm from the same generation's copy
  // of an earlier one (the model then leaves out slow start where the sender keeps its rate; BBR does).
  const warmSender = (workload: string) => workloads.indexOf(workload) > 0;
  const planned: PlannedCopy[] = [];
  for (const workload of workloads) {
    for (const profile of profiles) {
      for (const op of ASSESSMENT_OPS) {
        const parsed = parseWorkload(workload);
        const expectedSeconds = modelSeconds(profile, op, parsed, warmSender(workload));
        // A directory set must reach its second file's data: its first file's round trips are what it projects the rest with.
        const first = parsed.files.slice(0, 1);
        const firstOnly = { ...parsed, files: first, totalBytes: first.reduce((sum, file) => sum + file.bytes, 0) };
        // A file copy must see a rate: its opening round trips and a dozen more (a synchronous client's requests).
        const minimumSeconds =
          parsed.kind === 'dirset' && parsed.files.length > 1
            ? 2 * modelSeconds(profile, op, firstOnly, warmSender(workload)) + (8 * rttMs) / 1000
            : Math.min(
                expectedSeconds,
                ((roundTripsBeforeData(CLIENT_PROFILES[profile].metadata, op) + FILE_DATA_MINIMUM_RTTS[quick ? 'quick' : 'budget']) * rttMs) / 1000,
              );
        planned.push({
          index: planned.length,
          profile,
          op,
          workload,
          expectedSeconds,
          minimumSeconds,
          fromFileCopy: quick && budgeted && parsed.kind === 'dirset',
        });
      }
    }
  }
  const sourceFirst = (copy: PlannedCopy) => (copy.profile === 'pipefill-max' && copy.op === 'write' ? 0 : 1);
  // A quick run copies each generation's file only: twenty copies of five generations need more round trips than
  // 20 s hold on a 75 ms path (XP's write alone makes 19 per file). Its directory sets are projected from them.
  const order = planned
    .filter((copy) => !copy.fromFileCopy)
    .sort((a, b) => workloads.indexOf(a.workload) - workloads.indexOf(b.workload) || sourceFirst(a) - sourceFirst(b) || a.index - b.index);
  const laysSource = (workload: string) => order.some((copy) => copy.workload === workload && copy.profile === 'pipefill-max' && copy.op === 'write');
  const sourceWrites = workloads.filter((workload) => !laysSource(workload));
  const entries = 2 + order.reduce((sum, copy) => sum + (copy.op === 'write' ? parseWorkload(copy.workload).files.length + 1 : 0), 0);
  const copiedWorkloads = workloads.filter((workload) => order.some((copy) => copy.workload === workload));
  // Pipefill's own write of a workload lays its source; every other write copies into a target of its own.
  const targetWrites = order.filter((copy) => copy.op === 'write').length - copiedWorkloads.filter(laysSource).length;
  return { planned, order, sourceWrites, entries, copiedWorkloads, targetWrites };
}
