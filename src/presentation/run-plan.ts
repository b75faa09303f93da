// What a run will do, said before its first byte (issue 38): how much it
// writes and reads at most, where (a scratch folder it makes and removes,
// which needs write access), and how long it loads the link. The sizes are
// upper bounds: a budgeted run sizes its copies to the path after probing it,
// so it moves at most this and usually far less. Where the share answers
// within 2 ms (a LAN, this machine), the two machines are timed as well (the
// hosts' calibration, each session's warm-up), and the plan bounds that
// apart: on a longer path none of it runs. Pure.

import type { CapacityInput } from '../contract/capacity.js';
import { CapacityInputSchema } from '../contract/capacity.js';
import type { AssessInput } from '../contract/report.js';
import { assessedClient, assessedProfiles, budgetSecondsOf } from '../contract/report.js';
import { MAX_FILE_BYTES, START_DIRSET_SCALE } from '../model/assessment.js';
import { fastPathExtraBytes, WARM_UP_REQUEST_BYTES } from '../model/calibration-bytes.js';
import { FAST_PATH_RTT_MS } from '../model/host-costs.js';
import { parseSharePath } from '../model/share-path.js';
import { formatBinaryBytes, formatBytes, formatDuration } from '../model/units.js';
import { parseWorkload, tr3869DirectorySet } from '../model/workloads.js';
import { clientShortLabel, workloadText } from './test-labels.js';

export interface AssessmentPlan {
  /** Where the scratch folder goes: the share, or the folder in it that was given (`\\server\share\team`). */
  readonly where: string;
  /** The generations, in plain names: "Windows 11 24H2 and Pipefill's best pipeline". */
  readonly clients: string;
  readonly maxWriteBytes: number;
  readonly maxReadBytes: number;
  /** What timing the two machines moves more each way, where the share answers within FAST_PATH_RTT_MS. */
  readonly fastPathExtraBytes: number;
  /** Seconds the run may take, or null where every byte is moved however long it takes. */
  readonly budgetSeconds: number | null;
}

const andList = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

const whereOf = (share: string) => {
  const path = parseSharePath(share);
  return `\\\\${path.host}\\${path.share}${path.folder ? `\\${path.folder.replace(/\//g, '\\')}` : ''}`;
};

/** The plan of an assessment from its input (pure; throws PipefillInputError for a share path that is none). */
export function assessmentPlan(
  input: Pick<AssessInput, 'share' | 'client' | 'compare' | 'profiles' | 'full' | 'quick' | 'budgetSeconds' | 'fileBytes' | 'dirsetScale' | 'threads'>,
): AssessmentPlan {
  const profiles = assessedProfiles(input);
  const client = assessedClient(input);
  const fileBytes = input.fileBytes ?? MAX_FILE_BYTES;
  const dirsetBytes = tr3869DirectorySet(input.dirsetScale ?? START_DIRSET_SCALE).totalBytes;
  // Each generation writes and reads one file and one directory set. Pipefill's own writes are the reads' sources
  // (written once more where it is not among them); every file write is read back to check it arrived whole.
  const sourceWrites = profiles.includes('pipefill-max') ? 0 : fileBytes + dirsetBytes;
  const maxWriteBytes = profiles.length * (fileBytes + dirsetBytes) + sourceWrites;
  const maxReadBytes = profiles.length * (fileBytes + dirsetBytes) + profiles.length * fileBytes;
  // A session for each generation and Pipefill's own, and the signing check's.
  const copySessions = new Set([...profiles, 'pipefill-max']).size + 1;
  const names = profiles.map((id) =>
    id === 'pipefill-max'
      ? "Pipefill's best pipeline"
      : id === client
        ? `your ${clientShortLabel(id)}${input.threads !== undefined && input.threads > 1 ? ` (its small files as robocopy /MT:${input.threads})` : ''}`
        : clientShortLabel(id),
  );
  return {
    where: whereOf(input.share),
    clients: andList(names),
    maxWriteBytes,
    maxReadBytes,
    fastPathExtraBytes: fastPathExtraBytes(copySessions),
    budgetSeconds: budgetSecondsOf(input),
  };
}

/**
 * The plan in one sentence, for the app's confirmation and the CLI's first
 * line: "Copies test files as your Windows 11 24H2 and Pipefill's best
 * pipeline do: writes at most 715 MB and reads at most 1.2 GB in a scratch
 * folder it makes in \\server\share and removes (you need write access
 * there), loading the link for up to 60 s."
 */
export function assessmentPlanText(plan: AssessmentPlan): string {
  const load =
    plan.budgetSeconds === null
      ? 'loading the link until every byte is moved (no time limit)'
      : `loading the link for up to ${formatDuration(plan.budgetSeconds * 1000)}`;
  return `Copies test files as ${plan.clients} do: writes at most ${formatBytes(plan.maxWriteBytes)} and reads at most ${formatBytes(plan.maxReadBytes)} in a scratch folder it makes in ${plan.where} and removes (you need write access there), ${load}. ${fastPathText(plan.fastPathExtraBytes, 'to time the two machines first')}`;
}

/** The fast path's extra, said apart: "Where the share answers within 2 ms (a LAN, or this machine), up to 1.44 GB more each way, to ...". */
const fastPathText = (bytes: number, why: string) =>
  `Where the share answers within ${FAST_PATH_RTT_MS} ms (a LAN, or this machine), up to ${formatBytes(bytes)} more each way, ${why}.`;

/** The capacity run's choices that shape its plan; the rest take the contract's defaults. */
const CapacityPlanSchema = CapacityInputSchema.pick({ clients: true, seconds: true, warmupSeconds: true, fileBytes: true, op: true });

/**
 * A capacity run's plan in one sentence: "Loads the link with up to 32
 * people copying at once, each reading a 64 MiB file over and over, in 6
 * steps of 13 s (about 1 min 18 s); their files, at most 2.15 GB, go in a
 * scratch folder it makes in \\server\share and removes (you need write access there)."
 * A read's files are given their size without a byte crossing the link
 * (load-user.ts), so the disk holds them, sparse where it can.
 */
export function capacityPlanText(
  input: Pick<CapacityInput, 'share'> & Partial<Pick<CapacityInput, 'clients' | 'seconds' | 'warmupSeconds' | 'fileBytes' | 'op'>>,
): string {
  const where = whereOf(input.share);
  const { clients, seconds, warmupSeconds, fileBytes, op } = CapacityPlanSchema.parse({
    clients: input.clients,
    seconds: input.seconds,
    warmupSeconds: input.warmupSeconds,
    fileBytes: input.fileBytes,
    op: input.op,
  });
  const people = Math.max(...clients);
  const stepSeconds = seconds + warmupSeconds;
  const steps = clients.length;
  const what = op === 'read' ? 'reading' : op === 'write' ? 'writing' : 'reading or writing';
  return `Loads the link with up to ${people} ${people === 1 ? 'person' : 'people'} copying at once, each ${what} a ${formatBinaryBytes(fileBytes)} file over and over, in ${steps} step${steps === 1 ? '' : 's'} of ${formatDuration(stepSeconds * 1000)} (about ${formatDuration(steps * stepSeconds * 1000)}); their files, at most ${formatBytes(people * fileBytes)}, go in a scratch folder it makes in ${where} and removes (you need write access there).`;
}

/**
 * A single test copy's plan: "Copies a large file (32 MiB) as Windows 7
 * writes it: writes at most 33.6 MB and reads at most 33.6 MB (the check of
 * what arrived) in a scratch folder it makes in \\\\server\\share and removes
 * (you need write access there)." A read first writes its source.
 */
export function copyTestPlanText(input: {
  readonly share: string;
  readonly profile: string;
  readonly op: 'read' | 'write';
  readonly workload: string;
  readonly verify?: boolean | undefined;
  readonly budgetSeconds?: number | undefined;
}): string {
  const bytes = parseWorkload(input.workload).totalBytes;
  const reads = input.op === 'read' ? bytes : input.verify === false ? 0 : bytes;
  const why = input.op === 'read' ? ' (its source, written first)' : '';
  const check = input.op === 'write' && reads > 0 ? ' (the check of what arrived)' : '';
  const budget = input.budgetSeconds === undefined ? '' : `; it stops once the rate has settled, or after ${formatDuration(input.budgetSeconds * 1000)}`;
  const what = workloadText(input.workload);
  const warm = fastPathText(WARM_UP_REQUEST_BYTES, "to bring the server's process to its usual state first");
  return `Copies ${what.startsWith('large file') ? `a ${what}` : what} as ${clientShortLabel(input.profile)} ${input.op === 'read' ? 'reads' : 'writes'} it: writes at most ${formatBytes(bytes)}${why} and reads at most ${formatBytes(reads)}${check} in a scratch folder it makes in ${whereOf(input.share)} and removes (you need write access there)${budget}. ${warm}`;
}
