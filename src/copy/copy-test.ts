// One test copy: a workload moved to or from the share the way one client
// generation would, timed, with every byte checked, inside a scratch folder
// that is gone again whatever happens.

import { createHash } from 'node:crypto';
import type { CopyTestResult } from '../contract/copy-test.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { FAST_PATH_RTT_MS } from '../model/host-costs.js';
import type { Link } from '../model/link.js';
import { payloadEfficiency } from '../model/link.js';
import { roundTripsPerDirectory, roundTripsPerFile } from '../model/metadata.js';
import type { ScaledProjection } from '../model/scaled-projection.js';
import type { SharePath } from '../model/share-path.js';
import type { Workload } from '../model/workloads.js';
import { filesInCopyOrder, parseWorkload } from '../model/workloads.js';
import type { RequestOptions } from '../smb/request-frames.js';
import { emulationNote } from './drivers.js';
import { cancelledError, SmbError } from '../smb/errors.js';
import { LocalSource } from './local-source.js';
import { ScratchFolder, scratchPath } from './scratch.js';
import { removeAtEnd, withFolderLeft } from './scratch-end.js';
import type { OpenOptions, SmbCredentials } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { sampleTcpInfo, tcpEvidence } from '../platform/tcp-info.js';
import { watchLosses, withLossSplit } from './loss-evidence.js';
import type { CreditCheckpoint } from '../smb/credits.js';
import { warmServerProcess } from './server-warm-up.js';
import { TimelineRecorder } from './timeline.js';
import type { CopyBudgetOptions } from './copy-budget.js';
import { CopyBudget } from './copy-budget.js';
import type { RunContext } from './move-workload.js';
import { foldersVisited, moveWorkload } from './move-workload.js';

export interface CopyTestRequest {
  readonly share: SharePath;
  readonly credentials: SmbCredentials;
  readonly profile: ClientProfileId;
  readonly op: Op;
  /** `file:32MiB`, `tr3869-dirset`, `tr3869-dirset:0.05`. */
  readonly workload: string;
  /** The path, when a probe measured it: sizes Pipefill's own pipeline to its BDP. */
  readonly link?: Link;
  /** Check every byte (read back after a write). Default true. */
  readonly verify?: boolean;
  /**
   * Stop once the rate has settled (or after `maxSeconds`) and project the
   * whole workload's time. Without `rttMs` (no probe ran), the round trip is
   * taken from the session's own SMB2 ECHOs.
   */
  readonly budget?: { readonly maxSeconds: number; readonly rttMs?: number };
  /** Files at once, as robocopy /MT:n copies (a directory set's; moves whole, without a budget). */
  readonly lanes?: number;
}

/** The round trip as the session sees it: the quickest of a few SMB2 ECHOs (one is queued behind nothing). */
async function echoRttMs(session: SmbSession, options: RequestOptions): Promise<number> {
  let best = Infinity;
  for (let sample = 0; sample < 3; sample++) {
    const started = performance.now();
    await session.echo(options);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

export interface CopyTestProgress {
  readonly phase: 'connect' | 'prepare' | 'copy' | 'verify' | 'clean-up';
  readonly bytes: number;
  readonly totalBytes: number;
  /** During the timed copy: time into it, and the rate over the last second. */
  readonly live?: { readonly tMs: number; readonly mbps: number; readonly opsPerSecond: number };
}

export interface CopyTestOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: CopyTestProgress) => void;
}

/** How long cleanup may take after a failure or cancel, so a cancel still ends promptly. */
const CLEANUP_TIMEOUT_MS = 5_000;

export interface TimedCopyContext extends RunContext {
  readonly link?: Link;
  readonly verify: boolean;
  /** For writes: the workload laid down locally, as a copy reads it. */
  readonly source?: LocalSource;
  /** Stop once the rate has settled (or the slot is spent) and project the rest. */
  readonly budget?: CopyBudgetOptions;
  /** Files at once, as robocopy /MT:n copies (src/copy/move-workload.ts); such a copy moves whole, without a budget. */
  readonly lanes?: number;
  readonly onLive?: (live: { bytes: number; tMs: number; mbps: number; opsPerSecond: number }) => void;
  /** The read-back after a write: bytes checked so far. */
  readonly onVerify?: (bytes: number) => void;
  /**
   * For a write: take its read-back to run later instead of now (an
   * assessment runs those of all its file writes at once, after its copies:
   * each alone pays an open, a close and the server's slow start). The
   * result then says `verified: false` until the caller has run it. The
   * read-back may be run on another session of the same share (`on`).
   */
  readonly deferReadBack?: (readBack: (on?: SmbSession) => Promise<void>) => void;
}

/**
 * The timed copy itself, the one path every copy takes (the CLI's copy-test
 * and every copy of an assessment): the generation's requests and round trips
 * over `root`, then, for a write, a read-back of what it wrote. The root must
 * exist, and for a read hold the workload (all of it, or at least what the
 * copy can reach in its slot).
 */
export async function timedCopy(context: TimedCopyContext, profileId: ClientProfileId, op: Op, root: string): Promise<Omit<CopyTestResult, 'workload'>> {
  const { session, workload } = context;
  const profile = CLIENT_PROFILES[profileId];
  // The kernel's view of the connection before and after: what the server's window did to the copy.
  const tcpBefore = await sampleTcpInfo(session.connection.endpoints);
  // Through a large-file write, the round trip at each loss as well: whose losses they were (src/model/loss-split.ts).
  // Not through many small files: each goes out as a burst that stands a queue while it lasts, random losses and all.
  const watch = op === 'write' && workload.files.length === 1 ? watchLosses(session.connection) : undefined;
  // The session may have carried other copies before: the credit waits are this copy's own.
  const creditsBefore = session.connection.credits.checkpoint();
  // The budget reads the copy's own clock (the recorder's), so its times and the timeline's agree.
  const lanes = context.lanes !== undefined && context.lanes > 1 ? context.lanes : undefined;
  const budget = context.budget && !lanes ? new CopyBudget(() => recorder.elapsedMs, context.budget) : undefined;
  const recorder: TimelineRecorder = new TimelineRecorder((bytes) => {
    budget?.noteTotal(bytes);
    const recent = recorder.recent();
    context.onLive?.({ bytes, tMs: recorder.elapsedMs, mbps: recent.bitsPerSecond / 1e6, opsPerSecond: recent.opsPerSecond });
  });
  const moved = await moveWorkload(context, profileId, op, root, recorder, {
    verify: context.verify,
    ...(context.link ? { link: context.link } : {}),
    ...(context.source ? { source: context.source } : {}),
    ...(budget ? { budget } : {}),
    ...(lanes ? { lanes } : {}),
  }).catch(async (error: unknown) => {
    await watch?.stop();
    throw error;
  });
  const seconds = recorder.elapsedMs / 1000;
  // The credits the copy itself waited on: taken before any read-back, which runs on the same session.
  const negotiated = negotiatedOf(session, creditsBefore);
  const tcpAfter = await sampleTcpInfo(session.connection.endpoints);
  // The probe's line, where one was measured: a copy held far below it stands no queue, whatever its flight's jitter.
  const line = context.link ? { lineBytesPerSecond: (context.link.bandwidthBitsPerSecond / 8) * payloadEfficiency(true, context.link.mtuBytes) } : {};
  const tcp = withLossSplit(tcpEvidence(tcpBefore, tcpAfter), await watch?.stop(), line);
  const budgeted = budget?.project({ files: filesInCopyOrder(workload), folders: foldersVisited(workload, op) }, seconds);
  const readBackLater = op === 'write' && context.verify && context.deferReadBack !== undefined;
  if (op === 'write' && context.verify) {
    // Read back what was written (all of it, or the prefix of each file a stopped copy reached).
    const only = budgeted && !budgeted.complete ? new Map([...moved.prefixes].filter(([, bytes]) => bytes > 0)) : undefined;
    const readBack = async (on: SmbSession = session) => {
      await moveWorkload({ ...context, session: on }, 'pipefill-max', 'read', root, new TimelineRecorder(context.onVerify), {
        verify: true,
        ...(only ? { only } : {}),
      });
    };
    if (context.deferReadBack) context.deferReadBack(readBack);
    else await readBack();
  }
  // Unverified, a write is still only complete if the server holds every byte of it (a server may answer a WRITE it drops).
  if (op === 'write' && !context.verify) await checkSizesHeld(session, root, moved.prefixes);
  const projected = budgeted && !budgeted.complete ? budgeted : undefined;
  const reportedSeconds = projected ? projected.projection.seconds : seconds;
  const reportedBytes = projected ? workload.totalBytes : recorder.bytes;
  return {
    profile: profileId,
    op,
    seconds: reportedSeconds,
    bytes: reportedBytes,
    throughputMbps: (reportedBytes * 8) / reportedSeconds / 1e6,
    ops: recorder.ops,
    metadataRoundTrips: moved.roundTrips,
    timeline: recorder.points(),
    negotiated,
    emulation: emulationNote(profile, session.negotiated),
    verified: context.verify && !readBackLater,
    ...(lanes ? { lanes } : {}),
    ...(tcp ? { tcp } : {}),
    ...(projected
      ? {
          projected: {
            stoppedBy: projected.stoppedBy,
            measuredBytes: projected.measuredBytes,
            measuredSeconds: projected.measuredSeconds,
            filesTouched: projected.filesTouched,
            rateMbps: projected.rateMbps,
            // Its own rate; assess() puts the model scaled by what it moved in place of a directory set's.
            rateFrom: 'this-copy',
            rateRelativeHalfWidth: Number.isFinite(projected.rateRelativeHalfWidth) ? projected.rateRelativeHalfWidth : null,
            lowSeconds: projected.projection.lowSeconds,
            highSeconds: Number.isFinite(projected.projection.highSeconds) ? projected.projection.highSeconds : null,
          },
        }
      : {}),
  };
}

/** Files asked for their size at once, at most this many in flight: one round trip for a small set. */
const SIZE_CHECKS_IN_FLIGHT = 64;

/** Each written file's end-of-file on the server, against what was written to it; a shortfall is a data-mismatch. */
async function checkSizesHeld(session: SmbSession, root: string, written: ReadonlyMap<string, number>): Promise<void> {
  const files = [...written];
  for (let start = 0; start < files.length; start += SIZE_CHECKS_IN_FLIGHT) {
    await Promise.all(
      files.slice(start, start + SIZE_CHECKS_IN_FLIGHT).map(async ([path, bytes]) => {
        const held = await session.sizeOf(scratchPath(root, path));
        if (held < bytes)
          throw new SmbError(
            'data-mismatch',
            `The server holds ${held} of the ${bytes} bytes written to ${path}: it answered writes it did not keep.`,
            'The server or its storage dropped data (a full disk or quota, or a server that drops writes past the end of a file); run with verification to see which bytes.',
          );
      }),
    );
  }
}

/** What the session negotiated, and (with `since`, the copy's start) the credits the copy waited on. */
function negotiatedOf(session: SmbSession, since?: CreditCheckpoint): CopyTestResult['negotiated'] {
  const { negotiated } = session;
  return {
    dialect: negotiated.dialect,
    maxReadSize: negotiated.maxReadSize,
    maxWriteSize: negotiated.maxWriteSize,
    ...session.connection.credits.observedSince(since),
    signing: negotiated.signing,
    encryption: negotiated.encryption,
    ...(negotiated.signingRequiredBy ? { signingRequiredBy: negotiated.signingRequiredBy } : {}),
    ...(negotiated.encryptionRequiredBy ? { encryptionRequiredBy: negotiated.encryptionRequiredBy } : {}),
    ...(negotiated.movedUpFrom ? { movedUpFrom: [...negotiated.movedUpFrom] } : {}),
    ...(negotiated.login ? { login: { ...negotiated.login } } : {}),
  };
}

/**
 * A workload that no copy moved (a quick assessment's directory set), with
 * the time the model, scaled by the same generation's file copy, gives it
 * (src/model/scaled-projection.ts): the result says so (`projected.stoppedBy`
 * 'not-run', `rateFrom` 'model-scaled', nothing measured, nothing verified).
 */
export function projectedCopy(
  session: SmbSession,
  profileId: ClientProfileId,
  op: Op,
  workload: Workload,
  modelSeconds: number,
  projection: ScaledProjection,
): Omit<CopyTestResult, 'workload'> {
  const profile = CLIENT_PROFILES[profileId];
  return {
    profile: profileId,
    op,
    seconds: projection.seconds,
    bytes: workload.totalBytes,
    throughputMbps: (workload.totalBytes * 8) / projection.seconds / 1e6,
    ops: 0,
    // The engine replays exactly these sequences (the smbd integration test counts them): the count is known, not measured.
    metadataRoundTrips:
      workload.files.length * roundTripsPerFile(profile.metadata, op) + foldersVisited(workload, op) * roundTripsPerDirectory(profile.metadata, op),
    timeline: [],
    negotiated: negotiatedOf(session),
    emulation: emulationNote(profile, session.negotiated),
    verified: false,
    projected: {
      stoppedBy: 'not-run',
      measuredBytes: 0,
      measuredSeconds: 0,
      filesTouched: 0,
      rateMbps: (workload.totalBytes * 8) / projection.seconds / 1e6,
      rateFrom: 'model-scaled',
      rateRelativeHalfWidth: null,
      modelSeconds,
      modelScale: projection.scale,
      lowSeconds: projection.lowSeconds,
      highSeconds: projection.highSeconds,
    },
  };
}

/** Removes the scratch folder (on a fresh session if the test's own one died) and ends the session. Never throws; the folder's name where it stayed. */
async function cleanUp(scratch: ScratchFolder | undefined, session: SmbSession, request: CopyTestRequest): Promise<string | undefined> {
  const left = scratch
    ? (
        await removeAtEnd(scratch, session, () => SmbSession.open(request.share, request.credentials, { timeoutMs: 3_000, ...sessionOptions(request) }), {
          timeoutMs: CLEANUP_TIMEOUT_MS,
        })
      ).left
    : undefined;
  await session.end();
  return left;
}

export type { CopyTestResult };

/** The profile's offer and the person's policy: how every session of a test copy negotiates. */
function sessionOptions(request: CopyTestRequest): Pick<OpenOptions, 'offer'> {
  return { offer: CLIENT_PROFILES[request.profile].offer };
}

export async function runCopyTest(request: CopyTestRequest, options: CopyTestOptions = {}): Promise<CopyTestResult> {
  const workload = parseWorkload(request.workload);
  const verify = request.verify ?? true;
  const { signal, onProgress } = options;
  const progress = (phase: CopyTestProgress['phase'], bytes = 0) => onProgress?.({ phase, bytes, totalBytes: workload.totalBytes });
  progress('connect');
  const session = await SmbSession.open(request.share, request.credentials, { ...sessionOptions(request), ...(signal ? { signal } : {}) });
  let scratch: ScratchFolder | undefined;
  let local: LocalSource | undefined;
  // Once, from whichever of catch and finally comes first: the local source, then the share's folder and the session.
  let closed: Promise<string | undefined> | undefined;
  const closeDown = () =>
    (closed ??= (async () => {
      await local?.close();
      local?.remove();
      return cleanUp(scratch, session, request);
    })());
  try {
    const created = await ScratchFolder.createChecked(session);
    // What dead runs left, swept on a connection of its own before anything is written (see sweepOthersAside).
    await created.sweepOthersAside(() => SmbSession.open(request.share, request.credentials, { ...sessionOptions(request), ...(signal ? { signal } : {}) }));
    scratch = created;
    // On a fast path, the server's process for this connection as an assessment's copies find theirs (server-warm-up.ts).
    const rttMs = request.budget?.rttMs ?? request.link?.rttMs ?? (await echoRttMs(session, signal ? { signal } : {}));
    if (rttMs < FAST_PATH_RTT_MS) await warmServerProcess(session, scratch.path('warm-up-1.bin'), signal ? { signal } : {});
    const seed = createHash('sha256').update(scratch.name).digest('hex').slice(0, 16);
    const context: RunContext = { session, workload, seed, ...(signal ? { signal } : {}) };
    const timedRoot = scratch.path(request.op === 'read' ? 'source' : 'target');

    if (request.op === 'read') {
      // The source must exist first; it is written untimed, as fast as Pipefill can.
      progress('prepare');
      await session.makeDirectory(timedRoot);
      await moveWorkload(context, 'pipefill-max', 'write', timedRoot, new TimelineRecorder((bytes) => progress('prepare', bytes)), { verify: false });
    }
    if (request.op === 'write') {
      // A copy reads a local file and writes into a folder that exists: both are
      // laid down first, as the read test lays its source on the share.
      progress('prepare');
      local = await LocalSource.create(workload, seed, signal);
      await session.makeDirectory(timedRoot);
    }
    const budget: CopyBudgetOptions | undefined = request.budget && {
      maxSeconds: request.budget.maxSeconds,
      rttMs,
    };
    progress('copy');
    const copy = await timedCopy(
      {
        ...context,
        verify,
        ...(request.link ? { link: request.link } : {}),
        ...(local ? { source: local } : {}),
        ...(budget ? { budget } : {}),
        ...(request.lanes === undefined ? {} : { lanes: request.lanes }),
        onVerify: (bytes) => progress('verify', bytes),
        onLive: (live) =>
          onProgress?.({
            phase: 'copy',
            bytes: live.bytes,
            totalBytes: workload.totalBytes,
            live: { tMs: live.tMs, mbps: live.mbps, opsPerSecond: live.opsPerSecond },
          }),
      },
      request.profile,
      request.op,
      timedRoot,
    );
    progress('clean-up');
    const cleaned = await scratch.remove();
    scratch = undefined;
    return { ...copy, workload: workload.spec, ...(cleaned.recycleBin === undefined ? {} : { keptByRecycleBin: cleaned.recycleBin }) };
  } catch (error) {
    if (signal?.aborted && !(error instanceof SmbError && error.kind === 'cancelled')) throw cancelledError();
    // Cleaned up here, so the error can say where its folder stayed; the finally then has nothing left to do.
    const left = await closeDown();
    throw withFolderLeft(error, [left]);
  } finally {
    await closeDown();
  }
}
