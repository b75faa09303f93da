// One test copy: a workload moved to or from the share the way one client
// generation would, timed, with every byte checked, inside a scratch folder
// that is gone again whatever happens.

import { createHash } from 'node:crypto';
import type { CopyTestResult } from '../contract/copy-test.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Link } from '../model/link.js';
import type { SharePath } from '../model/share-path.js';
import type { Workload } from '../model/workloads.js';
import { parseWorkload } from '../model/workloads.js';
import type { RequestOptions } from './connection.js';
import { emulationNote, pipelineFor } from './drivers.js';
import { cancelledError, SmbError } from './errors.js';
import { LocalSource } from './local-source.js';
import { PatternSource } from './pattern.js';
import { replay } from './replay.js';
import { removeStaleScratch, ScratchFolder, scratchPath } from './scratch.js';
import type { OpenOptions, SmbCredentials } from './session.js';
import { SmbSession } from './session.js';
import { sampleTcpInfo, tcpEvidence } from './tcp-info.js';
import { TimelineRecorder } from './timeline.js';
import { transferFile } from './transfer.js';

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

interface RunContext {
  readonly session: SmbSession;
  readonly workload: Workload;
  readonly seed: string;
  readonly signal?: AbortSignal;
}

/** Moves a workload under `root` as `profile` would, through real metadata sequences. */
async function moveWorkload(
  context: RunContext,
  profileId: ClientProfileId,
  op: Op,
  root: string,
  recorder: TimelineRecorder,
  options: { link?: Link; verify: boolean; source?: LocalSource },
): Promise<number> {
  const { session, workload, seed } = context;
  const profile = CLIENT_PROFILES[profileId];
  const requestOptions: RequestOptions = context.signal ? { signal: context.signal } : {};
  const directorySequence = op === 'read' ? profile.metadata.readPerDirectory : profile.metadata.writePerDirectory;
  const fileSequence = op === 'read' ? profile.metadata.readPerFile : profile.metadata.writePerFile;
  let roundTrips = 0;
  const directory = (path: string) => replay(directorySequence, { session, op, path, kind: 'directory', bytes: 0, recorder, options: requestOptions });
  // A copy reads from a folder it lists, and writes into one that exists (made before the clock starts).
  if (op === 'read') roundTrips += await directory(root);
  const byDirectory = new Map<string, Workload['files'][number][]>();
  for (const file of workload.files) {
    const folder = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : '';
    byDirectory.set(folder, [...(byDirectory.get(folder) ?? []), file]);
  }
  for (const [folder, files] of byDirectory) {
    if (folder !== '') roundTrips += await directory(scratchPath(root, folder));
    for (const file of files) {
      const path = scratchPath(root, file.path);
      roundTrips += await replay(fileSequence, {
        session,
        op,
        path,
        kind: 'file',
        bytes: file.bytes,
        recorder,
        options: requestOptions,
        moveData: async (fileId) => {
          const local = op === 'write' ? options.source : undefined;
          await transferFile({
            session,
            fileId,
            op,
            fileBytes: file.bytes,
            pipeline: pipelineFor(profile, session.negotiated, op, file.bytes, options.link),
            pattern: new PatternSource(seed, file.path),
            ...(local ? { source: local.writeSource(file.path) } : {}),
            verify: options.verify,
            recorder,
            label: file.path,
            ...(context.signal ? { signal: context.signal } : {}),
          });
          await local?.closeFile(file.path);
        },
      });
    }
  }
  return roundTrips;
}

/** Removes the scratch folder, on a fresh session if the test's own one died. Never throws. */
async function cleanUp(scratch: ScratchFolder | undefined, session: SmbSession, request: CopyTestRequest): Promise<void> {
  const quick: RequestOptions = { timeoutMs: CLEANUP_TIMEOUT_MS };
  if (scratch && session.connection.isOpen) {
    await scratch.remove(quick).catch(() => undefined);
  } else if (scratch) {
    // The lease went with the dead connection: the sweep now sees an orphan.
    const fresh = await SmbSession.open(request.share, request.credentials, { timeoutMs: 3_000, ...sessionOptions(request) }).catch(() => undefined);
    if (fresh) {
      await removeStaleScratch(fresh, quick).catch(() => undefined);
      await fresh.end();
    }
  }
  await session.end();
}

export type { CopyTestResult };

/** The profile's offer and the person's policy: how every session of a test copy negotiates. */
function sessionOptions(request: CopyTestRequest): Pick<OpenOptions, 'offer'> {
  return { offer: CLIENT_PROFILES[request.profile].offer };
}

export async function runCopyTest(request: CopyTestRequest, options: CopyTestOptions = {}): Promise<CopyTestResult> {
  const profile = CLIENT_PROFILES[request.profile];
  const workload = parseWorkload(request.workload);
  const verify = request.verify ?? true;
  const { signal, onProgress } = options;
  const progress = (phase: CopyTestProgress['phase'], bytes = 0) => onProgress?.({ phase, bytes, totalBytes: workload.totalBytes });
  progress('connect');
  const session = await SmbSession.open(request.share, request.credentials, { ...sessionOptions(request), ...(signal ? { signal } : {}) });
  let scratch: ScratchFolder | undefined;
  let local: LocalSource | undefined;
  try {
    await removeStaleScratch(session);
    scratch = await ScratchFolder.create(session);
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
    progress('copy');
    // The kernel's view of the connection before and after: what the server's window did to the copy.
    const tcpBefore = await sampleTcpInfo(session.connection.endpoints);
    const recorder: TimelineRecorder = new TimelineRecorder((bytes) => {
      const recent = recorder.recent();
      onProgress?.({ phase: 'copy', bytes, totalBytes: workload.totalBytes, live: { tMs: recorder.elapsedMs, mbps: recent.bitsPerSecond / 1e6, opsPerSecond: recent.opsPerSecond } });
    });
    const roundTrips = await moveWorkload(context, request.profile, request.op, timedRoot, recorder, { verify, ...(request.link ? { link: request.link } : {}), ...(local ? { source: local } : {}) });
    const seconds = recorder.elapsedMs / 1000;
    const tcp = tcpEvidence(tcpBefore, await sampleTcpInfo(session.connection.endpoints));

    if (request.op === 'write' && verify) {
      progress('verify');
      await moveWorkload(context, 'pipefill-max', 'read', timedRoot, new TimelineRecorder((bytes) => progress('verify', bytes)), { verify: true });
    }
    progress('clean-up');
    await scratch.remove();
    scratch = undefined;
    const credits = session.connection.credits.snapshot;
    return {
      profile: request.profile,
      op: request.op,
      workload: workload.spec,
      seconds,
      bytes: recorder.bytes,
      throughputMbps: (recorder.bytes * 8) / seconds / 1e6,
      ops: recorder.ops,
      metadataRoundTrips: roundTrips,
      timeline: recorder.points(),
      negotiated: {
        dialect: session.negotiated.dialect,
        maxReadSize: session.negotiated.maxReadSize,
        maxWriteSize: session.negotiated.maxWriteSize,
        creditsGrantedMax: credits.maxHeld,
        signing: session.negotiated.signing,
        encryption: session.negotiated.encryption,
        ...(session.negotiated.signingRequiredBy ? { signingRequiredBy: session.negotiated.signingRequiredBy } : {}),
        ...(session.negotiated.encryptionRequiredBy ? { encryptionRequiredBy: session.negotiated.encryptionRequiredBy } : {}),
        ...(session.negotiated.movedUpFrom ? { movedUpFrom: [...session.negotiated.movedUpFrom] } : {}),
      },
      emulation: emulationNote(profile, session.negotiated),
      verified: verify,
      ...(tcp ? { tcp } : {}),
    };
  } catch (error) {
    if (signal?.aborted && !(error instanceof SmbError && error.kind === 'cancelled')) throw cancelledError();
    throw error;
  } finally {
    await local?.close();
    local?.remove();
    await cleanUp(scratch, session, request);
  }
}
