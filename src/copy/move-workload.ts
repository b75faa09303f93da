// Moving one workload the way a client generation does: its folders and files
// in order, each through the generation's own metadata sequence (replay.ts)
// with its data in the generation's pipeline, stopped by the copy's budget
// where it has one. Timing and checking are the caller's (copy-test.ts).

import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Link } from '../model/link.js';
import type { Workload } from '../model/workloads.js';
import { filesInCopyOrder, folderOf } from '../model/workloads.js';
import type { RequestOptions } from '../smb/request-frames.js';
import type { CopyBudget } from './copy-budget.js';
import { pipelineFor, pipelineGrowth } from './drivers.js';
import type { LocalSource } from './local-source.js';
import { PatternSource } from './pattern.js';
import { replay } from './replay.js';
import { scratchPath } from './scratch.js';
import type { SmbSession } from '../smb/session.js';
import type { TimelineRecorder } from './timeline.js';
import type { PipelineGrowth } from './transfer.js';
import { transferFile } from './transfer.js';

const growthOption = (growth: PipelineGrowth | undefined) => (growth ? { growth } : {});

export interface RunContext {
  readonly session: SmbSession;
  readonly workload: Workload;
  readonly seed: string;
  readonly signal?: AbortSignal;
}

export interface MoveOptions {
  readonly link?: Link;
  readonly verify: boolean;
  readonly source?: LocalSource;
  /** Stops the copy once its rate has settled or its slot is spent, and keeps what the projection needs. */
  readonly budget?: CopyBudget;
  /** Only these files, and only this many bytes of each (a read-back of what a stopped copy wrote). */
  readonly only?: ReadonlyMap<string, number>;
  /**
   * Files at once, as robocopy /MT:n copies: the folders walked first, one at
   * a time, then the files dealt round-robin to this many lanes on the one
   * session (src/model/parallel.ts models exactly this). Moves whole: a
   * budget's projection assumes one file at a time.
   */
  readonly lanes?: number;
}

export interface Moved {
  readonly roundTrips: number;
  /** Bytes moved of each file touched: a prefix of it. */
  readonly prefixes: Map<string, number>;
}

/** Folders a workload's copy visits: its files' folders, and for a read the root it lists first. */
export function foldersVisited(workload: Workload, op: Op): number {
  const folders = new Set(workload.files.map((file) => folderOf(file.path)).filter((folder) => folder !== ''));
  return folders.size + (op === 'read' ? 1 : 0);
}

/** Moves a workload under `root` as `profile` would, through real metadata sequences. */
export async function moveWorkload(
  context: RunContext,
  profileId: ClientProfileId,
  op: Op,
  root: string,
  recorder: TimelineRecorder,
  options: MoveOptions,
): Promise<Moved> {
  const { session, workload, seed } = context;
  const { budget } = options;
  const profile = CLIENT_PROFILES[profileId];
  const requestOptions: RequestOptions = context.signal ? { signal: context.signal } : {};
  const directorySequence = op === 'read' ? profile.metadata.readPerDirectory : profile.metadata.writePerDirectory;
  const fileSequence = op === 'read' ? profile.metadata.readPerFile : profile.metadata.writePerFile;
  const prefixes = new Map<string, number>();
  let roundTrips = 0;
  const directory = async (path: string) => {
    const started = recorder.elapsedMs;
    const trips = await replay(directorySequence, { session, op, path, kind: 'directory', bytes: 0, recorder, options: requestOptions });
    roundTrips += trips;
    budget?.folderDone((recorder.elapsedMs - started) / 1000);
  };
  // A copy reads from a folder it lists, and writes into one that exists (made before the clock starts).
  if (op === 'read') await directory(root);
  // Folder by folder, in the order the model's leading part of a stopped copy counts them (filesInCopyOrder).
  const byDirectory = new Map<string, Workload['files'][number][]>();
  for (const file of filesInCopyOrder(workload)) {
    if (options.only && !options.only.has(file.path)) continue;
    byDirectory.set(folderOf(file.path), [...(byDirectory.get(folderOf(file.path)) ?? []), file]);
  }
  const copyFile = async (file: Workload['files'][number]) => {
    const path = scratchPath(root, file.path);
    const bytes = options.only?.get(file.path) ?? file.bytes;
    const started = recorder.elapsedMs;
    let dataSeconds = 0;
    let moved = 0;
    // Read after the await: `roundTrips += await …` would add to the count as it was before, losing other lanes' trips.
    const trips = await replay(fileSequence, {
      session,
      op,
      path,
      kind: 'file',
      bytes,
      recorder,
      options: requestOptions,
      ...(options.only ? { prefix: true } : {}),
      moveData: async (fileId) => {
        const local = op === 'write' ? options.source : undefined;
        budget?.beginData();
        const dataStarted = recorder.elapsedMs;
        moved = await transferFile({
          session,
          fileId,
          op,
          fileBytes: bytes,
          pipeline: pipelineFor(profile, session.negotiated, op, bytes, options.link),
          ...growthOption(pipelineGrowth(profile, session.negotiated, op, options.link)),
          pattern: new PatternSource(seed, file.path),
          ...(local ? { source: local.writeSource(file.path) } : {}),
          verify: options.verify,
          recorder,
          label: file.path,
          ...(context.signal ? { signal: context.signal } : {}),
          ...(budget ? { until: (inFlightBytes: number) => budget.shouldStopData(inFlightBytes) } : {}),
        });
        dataSeconds = (recorder.elapsedMs - dataStarted) / 1000;
        await local?.closeFile(file.path);
      },
    });
    roundTrips += trips;
    prefixes.set(file.path, moved);
    budget?.fileDone({ fullBytes: bytes, movedBytes: moved, seconds: (recorder.elapsedMs - started) / 1000, dataSeconds });
  };
  const lanes = options.lanes ?? 1;
  if (lanes > 1) {
    if (budget) throw new Error('A copy in lanes moves whole: a budget projects one file at a time.');
    for (const folder of byDirectory.keys()) if (folder !== '') await directory(scratchPath(root, folder));
    // Dealt in the workload's order, as the model deals them; lanes overlap, so their data seconds overlap too.
    const files = workload.files.filter((file) => !options.only || options.only.has(file.path));
    await inLanes(files, lanes, copyFile);
  } else {
    walk: for (const [folder, files] of byDirectory) {
      if (budget && !budget.mayStartNext()) break;
      if (folder !== '') await directory(scratchPath(root, folder));
      for (const file of files) {
        if (budget && !budget.mayStartNext()) break walk;
        await copyFile(file);
      }
    }
  }
  return { roundTrips, prefixes };
}

/**
 * Runs `each` over `items` dealt round-robin to `lanes` lanes, each lane one
 * item at a time. The first failure stops every lane from starting another
 * item; the call waits for those under way, then throws that failure.
 */
export async function inLanes<T>(items: readonly T[], lanes: number, each: (item: T) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  const dealt = Array.from({ length: Math.min(lanes, items.length) }, (_, lane) => items.filter((_item, index) => index % lanes === lane));
  await Promise.all(
    dealt.map(async (mine) => {
      for (const item of mine) {
        if (failure) return;
        try {
          await each(item);
        } catch (error) {
          failure ??= { error };
          return;
        }
      }
    }),
  );
  if (failure) throw failure.error;
}
