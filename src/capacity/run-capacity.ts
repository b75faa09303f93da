// The capacity run's measurement (issue 16), NetBench-style: people join a
// step at a time (1, then 2, 4 ...), every one on a session and connection
// of their own, copying their own file; each step warms up, then counts each
// person's bytes over a fixed time while a separate session samples what a
// person waits (ECHO, a small file's open and close). Those already copying
// keep copying into the next step, as NetBench's clients do. Everything
// lives in one scratch folder that is removed at the end, on cancel and
// after a person's failure alike.

import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { CapacityOp } from '../model/capacity.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Link } from '../model/link.js';
import type { SharePath } from '../model/share-path.js';
import type { RequestOptions } from '../smb/request-frames.js';
import { cancelledError, SmbError } from '../smb/errors.js';
import { Access, CreateOption, Disposition } from '../smb/messages.js';
import { PatternSource } from '../copy/pattern.js';
import { removeStaleScratch, ScratchFolder, scratchPath } from '../copy/scratch.js';
import type { SmbCredentials } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { sampleConnectionsTo } from '../platform/tcp-info.js';
import type { CreditsObserved } from '../model/credits-seen.js';
import { creditsSeen } from '../model/credits-seen.js';
import type { LatencySamples } from './latency-sampler.js';
import { pause, sampleLatency } from './latency-sampler.js';
import { LoadUser } from './load-user.js';

export interface CapacityRequest {
  readonly share: SharePath;
  readonly credentials: SmbCredentials;
  readonly profile: ClientProfileId;
  readonly op: CapacityOp;
  /** People at once, one step each, rising. */
  readonly steps: readonly number[];
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly fileBytes: number;
  readonly link?: Link;
}

export interface CapacityProgress {
  readonly phase: 'connect' | 'idle' | 'join' | 'warm-up' | 'measure' | 'clean-up';
  /** 1-based step, of `steps`. */
  readonly step: number;
  readonly steps: number;
  readonly users: number;
  /** Everyone's rate together over the last second, while copying. */
  readonly aggregateMbps?: number;
}

export interface MeasuredUser {
  readonly user: number;
  readonly op: Op;
  readonly bytes: number;
  /** The SMB2 credits the person's connection held over the measured seconds, and how long its requests waited for more. */
  readonly credits: CreditsObserved;
  /** Set when the person stopped with an error during or before this step. */
  readonly failed?: string;
}

export interface MeasuredStep {
  readonly users: number;
  readonly measuredBy: 'tcp' | 'requests';
  readonly seconds: number;
  readonly perUser: readonly MeasuredUser[];
  readonly latency: LatencySamples;
}

export interface MeasuredCapacity {
  readonly negotiated: {
    readonly dialect: string;
    readonly signing: SmbSession['negotiated']['signing'];
    readonly encryption: SmbSession['negotiated']['encryption'];
    /** The server, not the client or the person, insisted on signing or on encryption. */
    readonly serverRequired: { readonly signing: boolean; readonly encryption: boolean };
  };
  readonly idle: LatencySamples;
  readonly steps: readonly MeasuredStep[];
  /**
   * The SMB2 credits the server let each person use at once, as their copies
   * showed it (src/model/credits-seen.ts); undefined where none recorded a
   * grant. The model takes the server as this run saw it, not as its profile
   * says: a Samba with `smb2 max credits = 16` is a different server.
   */
  readonly creditsGranted: number | undefined;
}

/** Idle round trips are sampled this long before anyone copies. */
const IDLE_SECONDS = 2;
/** Logging people on and off, and removing the folder, after a failure or cancel: bounded so a cancel still ends. */
const CLEANUP_TIMEOUT_MS = 10_000;
/** How often the live aggregate is reported. */
const LIVE_INTERVAL_MS = 500;

/** Each person's counted bytes: the kernel's counter of their connection where it lists one, and their completed requests. */
interface Snapshot {
  readonly atMs: number;
  readonly tcp: readonly (number | undefined)[];
  readonly requests: readonly number[];
}

async function snapshot(users: readonly LoadUser[], port: number): Promise<Snapshot> {
  const connections = await sampleConnectionsTo(port);
  const atMs = performance.now();
  const tcp = users.map((user) => {
    const sample = connections?.get(user.localPort);
    return user.spec.op === 'read' ? sample?.bytesReceived : sample?.bytesAcked;
  });
  return { atMs, tcp, requests: users.map((user) => user.recorder.bytes) };
}

/** A person's bytes between two snapshots: by their connection's counter when both list it (a connection that died has none). */
function countedBytes(before: Snapshot, after: Snapshot, index: number): { readonly bytes: number; readonly byTcp: boolean } {
  const [from, to] = [before.tcp[index], after.tcp[index]];
  if (from !== undefined && to !== undefined) return { bytes: to - from, byTcp: true };
  return { bytes: (after.requests[index] ?? 0) - (before.requests[index] ?? 0), byTcp: false };
}

function stepUsers(request: CapacityRequest, from: number, to: number, root: string): { index: number; op: Op; path: string }[] {
  return Array.from({ length: to - from }, (_, offset) => {
    const index = from + offset;
    // Mixed load: even people read, odd ones write (so a step has half readers, rounded up).
    const op: Op = request.op === 'mixed' ? (index % 2 === 0 ? 'read' : 'write') : request.op;
    return { index, op, path: scratchPath(root, `user-${String(index + 1).padStart(2, '0')}.bin`) };
  });
}

/** The file a person's click opens: small, written once. */
async function writeLatencyFile(observer: SmbSession, scratchName: string, root: string, requestOptions: RequestOptions): Promise<string> {
  const smallFile = scratchPath(root, 'latency.bin');
  const { fileId } = await observer.create(
    {
      path: smallFile,
      access: Access.readData | Access.writeData | Access.readAttributes,
      disposition: Disposition.overwriteIf,
      options: CreateOption.nonDirectory,
    },
    requestOptions,
  );
  await observer.write(
    fileId,
    0,
    new PatternSource(createHash('sha256').update(scratchName).digest('hex').slice(0, 16), smallFile).bytes(0, 4096),
    requestOptions,
  );
  await observer.close(fileId, requestOptions);
  return smallFile;
}

type ReportProgress = (phase: CapacityProgress['phase'], step: number, users: number, aggregateMbps?: number) => void;

/**
 * One step, its people copying: the warm-up, then the measured seconds with
 * the observer's clicks timed beside them, each person's bytes counted by
 * the kernel's counter for their connection where it lists one.
 */
async function measureStep(at: {
  readonly request: CapacityRequest;
  readonly users: readonly LoadUser[];
  readonly observer: SmbSession;
  readonly smallFile: string;
  readonly step: number;
  readonly target: number;
  readonly report: ReportProgress;
  readonly signal: AbortSignal | undefined;
}): Promise<MeasuredStep> {
  const { request, users, step, target, report, signal } = at;
  report('warm-up', step, target);
  await pause(request.warmupSeconds * 1000, signal);
  const before = await snapshot(users, request.share.port);
  const creditMarks = users.map((user) => user.session.connection.credits.checkpoint());
  report('measure', step, target);
  const endsAt = before.atMs + request.seconds * 1000;
  const live = setInterval(() => {
    const bits = users.reduce((sum, user) => sum + user.recorder.recent().bitsPerSecond, 0);
    report('measure', step, target, bits / 1e6);
  }, LIVE_INTERVAL_MS);
  let latency: LatencySamples;
  try {
    latency = await sampleLatency(at.observer, at.smallFile, endsAt, signal);
    const left = endsAt - performance.now();
    if (left > 0) await pause(left, signal);
  } finally {
    clearInterval(live);
  }
  const after = await snapshot(users, request.share.port);
  const counted = users.map((_, index) => countedBytes(before, after, index));
  const perUser = users.map((user, index): MeasuredUser => ({
    user: user.spec.index,
    op: user.spec.op,
    bytes: counted[index]?.bytes ?? 0,
    credits: user.session.connection.credits.observedSince(creditMarks[index]),
    ...(user.failure === undefined ? {} : { failed: user.failure }),
  }));
  // Counted by the kernel when every person still copying was (those who stopped moved nothing more).
  const byTcp = users.every((user, index) => user.failure !== undefined || counted[index]?.byTcp === true);
  return { users: target, measuredBy: byTcp ? 'tcp' : 'requests', seconds: (after.atMs - before.atMs) / 1000, perUser, latency };
}

/** Runs every step; the scratch folder and every session are gone when it returns or throws. */
export async function measureCapacity(
  request: CapacityRequest,
  options: { readonly signal?: AbortSignal; readonly onProgress?: (progress: CapacityProgress) => void } = {},
): Promise<MeasuredCapacity> {
  const { signal, onProgress } = options;
  const steps = request.steps;
  if (steps.length === 0 || steps.some((users, index) => !Number.isInteger(users) || users < 1 || (index > 0 && users <= (steps[index - 1] ?? 0)))) {
    throw new RangeError('Capacity steps must be whole numbers of people, rising.');
  }
  const report: ReportProgress = (phase, step, users, aggregateMbps) =>
    onProgress?.({ phase, step, steps: steps.length, users, ...(aggregateMbps === undefined ? {} : { aggregateMbps }) });
  report('connect', 0, 0);
  const requestOptions: RequestOptions = signal ? { signal } : {};
  const observer = await SmbSession.open(request.share, request.credentials, { offer: CLIENT_PROFILES[request.profile].offer, ...requestOptions });
  const users: LoadUser[] = [];
  const stop = new AbortController();
  // Every person's requests in flight listen on it: many more than Node's default ten.
  setMaxListeners(0, stop.signal);
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let scratch: ScratchFolder | undefined;
  try {
    const created = await ScratchFolder.createChecked(observer, requestOptions);
    await created.sweepOthersAside(
      () => SmbSession.open(request.share, request.credentials, { offer: CLIENT_PROFILES[request.profile].offer, ...requestOptions }),
      requestOptions,
    );
    scratch = created;
    const root = scratch.path('capacity');
    await observer.makeDirectory(root, requestOptions);
    const smallFile = await writeLatencyFile(observer, scratch.name, root, requestOptions);

    report('idle', 0, 0);
    const idle = await sampleLatency(observer, smallFile, performance.now() + IDLE_SECONDS * 1000, signal);

    const measured: MeasuredStep[] = [];
    for (const [stepIndex, target] of steps.entries()) {
      const step = stepIndex + 1;
      report('join', step, target);
      // New people log on side by side; each lays down their file before anyone's step starts.
      const joining = stepUsers(request, users.length, target, root);
      const opened = await Promise.allSettled(
        joining.map((spec) =>
          LoadUser.open(
            request.share,
            request.credentials,
            { ...spec, profile: request.profile, fileBytes: request.fileBytes, ...(request.link ? { link: request.link } : {}) },
            stop.signal,
          ),
        ),
      );
      for (const outcome of opened) if (outcome.status === 'fulfilled') users.push(outcome.value);
      if (signal?.aborted) throw cancelledError();
      const refused = opened.find((outcome) => outcome.status === 'rejected');
      if (refused && users.length < target) {
        // Someone who cannot even log on or make a file is not a measurement: the share is refusing more people.
        throw refused.reason instanceof Error ? refused.reason : new SmbError('protocol', String(refused.reason), 'Try fewer people at once.');
      }
      for (const user of users) user.start(stop.signal);

      measured.push(await measureStep({ request, users, observer, smallFile, step, target, report, signal }));
    }
    const { dialect, signing, encryption, signingRequiredBy, encryptionRequiredBy } = observer.negotiated;
    const serverRequired = { signing: signingRequiredBy === 'server', encryption: encryptionRequiredBy === 'server' || encryptionRequiredBy === 'share' };
    const creditsGranted = creditsSeen(measured.flatMap((step) => step.perUser.map((user) => user.credits)));
    return { negotiated: { dialect, signing, encryption, serverRequired }, idle, steps: measured, creditsGranted };
  } catch (error) {
    if (signal?.aborted && !(error instanceof SmbError && error.kind === 'cancelled')) throw cancelledError();
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    report('clean-up', steps.length, users.length);
    stop.abort();
    await Promise.all(users.map((user) => user.end()));
    const quick: RequestOptions = { timeoutMs: CLEANUP_TIMEOUT_MS };
    if (scratch && observer.connection.isOpen) {
      await scratch.remove(quick).catch(() => undefined);
    } else if (scratch) {
      // The folder's lease went with the observer's connection: a fresh session's sweep now sees an orphan.
      const fresh = await SmbSession.open(request.share, request.credentials, { timeoutMs: 3_000, offer: CLIENT_PROFILES[request.profile].offer }).catch(
        () => undefined,
      );
      if (fresh) {
        await removeStaleScratch(fresh, scratch.sweepRules(false), quick).catch(() => undefined);
        await fresh.end();
      }
    }
    await observer.end().catch(() => undefined);
  }
}
