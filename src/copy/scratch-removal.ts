// Removing what a scratch folder holds, and nothing else: the names Pipefill
// makes at the depth it makes them, never through a link, and a file's data
// cut to nothing only where the run that made it says so and the server
// shows it is that file. Used by a run's own clean-up and by the sweep of
// dead runs' folders (scratch.ts); the sweep never cuts anything.
//
// What a server may hide: smbd follows symbolic links by default and lists
// them as plain files and folders, and a hard link is a second name of one
// file. Deleting a name is safe either way (the link goes, not its target);
// walking into a linked folder, or cutting a linked file, is not.

import { RELATED_FILE_ID } from '../smb/request-frames.js';
import type { RequestOptions } from '../smb/request-frames.js';
import { SmbError } from '../smb/errors.js';
import {
  Access,
  closeRequest,
  CreateOption,
  createRequest,
  Disposition,
  FileInfoClass,
  InfoType,
  parseCreate,
  parseQueryInfo,
  parseStandardInfo,
  queryInfoRequest,
  setInfoRequest,
  sizeInfo,
} from '../smb/messages.js';
import type { DirectoryEntry } from '../smb/messages.js';
import { Command, Status } from '../smb/protocol.js';
import type { SmbSession } from '../smb/session.js';

/**
 * The names Pipefill creates inside a scratch folder, by depth: the lease,
 * the marker, the probe's file and the copy roots; a single-file workload's
 * file and the directory set's folders; the set's files. Clean-up removes
 * these and nothing else: a folder with the right name made by someone
 * else, or a link planted in one, may hold anything.
 */
const LAYOUT: readonly { readonly directories: RegExp; readonly files: RegExp }[] = [
  // A copy's root: `source`/`target`, or an assessment's `source-file`, `target-3`...; a capacity run's `capacity`;
  // the lease, the marker, the clean-up's recycle-bin probe (dotted, or visible: scratch-marker.ts), the probe's file, the hosts' calibration files
  // (src/probe/host-rates.ts) and each session's warm-up file (server-warm-up.ts), and the path MTU's probe file (src/probe/path-mtu.ts).
  {
    directories: /^((source|target)(-[a-z0-9]{1,16})?|capacity)$/,
    files:
      /^(\.lease|\.pipefill-run|\.recycle-probe|pipefill-lease|pipefill-run|pipefill-recycle-probe|bandwidth-probe\.bin|mtu-probe\.bin|calibration-\d{1,2}\.bin|warm-up-\d{1,2}\.bin)$/,
  },
  // In a capacity run's folder: each simulated person's file and the small file the latency samples open.
  { directories: /^dir\d{2}$/, files: /^(pipefill-test\.bin|user-\d{2}\.bin|latency\.bin)$/ },
  { directories: /^(?!)/, files: /^file\d{3}\.[a-z0-9]{1,5}$/ },
];

/** Whether Pipefill makes an entry of this name and kind at this depth of a scratch folder. */
export function isPipefillEntry(depth: number, name: string, isDirectory: boolean): boolean {
  const level = LAYOUT[depth];
  return level !== undefined && (isDirectory ? level.directories : level.files).test(name);
}

/** Entries of one folder removed at once: a round trip each, so a long path needs them in flight together (issue 15: 150 entries at 75 ms took 11 s one by one). */
const REMOVALS_IN_FLIGHT = 8;

export interface TreeRules {
  /** Names at this level left for the caller (the lease and the marker go last). */
  readonly keep?: ReadonlySet<string>;
  /** The server's id of the folder that lists this one; a folder whose `..` names another was reached through a link. */
  readonly expectedParent?: bigint;
  /**
   * Cut each file to nothing before it goes, for a recycle bin that keeps
   * what is deleted: only a run's own clean-up sets it, to the server's time
   * its folder was made. A file older than that, with more than one name, or
   * a reparse point is not one the run made, and is deleted uncut.
   */
  readonly emptyFilesMadeSince?: bigint;
}

type Listing = Awaited<ReturnType<SmbSession['listDirectoryClosing']>>;

/**
 * Removes what Pipefill made under `path` and returns what it left: entries
 * of names it never makes, reparse points (symlinks, junctions), and folders
 * reached through a link, which are never walked into. smbd lists a
 * symlinked folder as a plain one, but the folder's own `..` then names the
 * link target's parent, not the folder listed above it: `expectedParent`.
 * A folder that keeps anything is kept.
 */
export async function removeTree(session: SmbSession, path: string, depth: number, options: RequestOptions, rules: TreeRules = {}): Promise<string[]> {
  if (depth >= LAYOUT.length) return [path];
  // The listing's handle closes while the entries go; the folder is removed by the caller only after both.
  const listing = await session.listDirectoryClosing(path, options);
  try {
    return await removeListed(session, path, depth, options, rules, listing);
  } finally {
    await listing.closed;
  }
}

/** Whether a listing's folder hangs where it should: a `..` naming another folder means it was reached through a link. */
export function reachedThroughLink(listing: Pick<Listing, 'self' | 'parent'>, expectedParent: bigint | undefined): boolean {
  // A `..` that names the folder itself says nothing of where the folder hangs (a server that reports `..` with the
  // folder's own attributes, issue 37): unknown, as an absent one is.
  const parent = listing.parent !== undefined && listing.parent !== listing.self ? listing.parent : undefined;
  return expectedParent !== undefined && parent !== undefined && expectedParent !== 0n && parent !== expectedParent;
}

/** removeTree for a folder already listed (the sweep lists a folder to read its marker first). */
export async function removeListed(
  session: SmbSession,
  path: string,
  depth: number,
  options: RequestOptions,
  rules: TreeRules,
  listing: Pick<Listing, 'entries' | 'self' | 'parent'>,
): Promise<string[]> {
  if (reachedThroughLink(listing, rules.expectedParent)) return [`${path} (a link)`];
  const left: string[] = [];
  const removeEntry = async (entry: DirectoryEntry) => {
    const child = `${path}/${entry.name}`;
    if (entry.isReparsePoint || !isPipefillEntry(depth, entry.name, entry.isDirectory)) {
      left.push(child);
      return;
    }
    if (entry.isDirectory) {
      const inside = await removeTree(session, child, depth + 1, options, {
        ...(listing.self === undefined ? {} : { expectedParent: listing.self }),
        ...(rules.emptyFilesMadeSince === undefined ? {} : { emptyFilesMadeSince: rules.emptyFilesMadeSince }),
      });
      if (inside.length > 0) {
        left.push(...inside);
        return;
      }
      await session.deletePath(child, true, options);
    } else if (rules.emptyFilesMadeSince !== undefined) await emptyAndDelete(session, child, rules.emptyFilesMadeSince, options);
    else await session.deletePath(child, false, options);
  };
  const queue = listing.entries.filter((entry) => !rules.keep?.has(entry.name));
  let firstError: unknown;
  const worker = async () => {
    for (let entry = queue.shift(); entry && firstError === undefined; entry = queue.shift()) {
      await removeEntry(entry).catch((error: unknown) => {
        firstError ??= error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMOVALS_IN_FLIGHT, queue.length) }, worker));
  if (firstError !== undefined) throw firstError;
  return left;
}

/**
 * Deletes a file this run made, its data cut to nothing first, on the one
 * handle that is checked: opened delete-on-close without following a
 * reparse point, then cut only where the server shows the run's file (no
 * reparse point, one name, made no earlier than the run's folder), so a
 * link planted in the folder loses its name and its target keeps its bytes.
 * Two round trips where a plain delete takes one: a clean-up pays it only
 * on a share with a recycle bin.
 */
export async function emptyAndDelete(session: SmbSession, path: string, madeSince: bigint, options: RequestOptions): Promise<void> {
  const windowsPath = path.replace(/\//g, '\\');
  const [created, queried] = await session.connection.compound(
    [
      {
        command: Command.create,
        body: createRequest({
          path: windowsPath,
          access: Access.delete | Access.writeData | Access.readAttributes,
          disposition: Disposition.open,
          options: CreateOption.deleteOnClose | CreateOption.openReparsePoint | CreateOption.nonDirectory,
        }),
        treeId: session.treeId,
        what: `open ${path} to delete it`,
      },
      {
        command: Command.queryInfo,
        body: queryInfoRequest(RELATED_FILE_ID, InfoType.file, FileInfoClass.standard),
        treeId: session.treeId,
        what: `query ${path}`,
        anyStatus: true,
      },
    ],
    options,
  );
  if (!created || !queried) throw new SmbError('protocol', `Incomplete compound reply for ${path}.`, 'The server log may say more.');
  const opened = parseCreate(created.body);
  const standard = queried.header.status === Status.success ? parseStandardInfo(parseQueryInfo(queried.body)) : undefined;
  const ours = standard !== undefined && !opened.isReparsePoint && !standard.isDirectory && standard.links === 1 && opened.times.created >= madeSince;
  if (ours) {
    const [cut, closed] = await session.connection.compound(
      [
        {
          command: Command.setInfo,
          body: setInfoRequest(opened.fileId, FileInfoClass.endOfFile, sizeInfo(0)),
          treeId: session.treeId,
          what: `empty ${path}`,
          anyStatus: true,
        },
        { command: Command.close, body: closeRequest(RELATED_FILE_ID), treeId: session.treeId, what: `close ${path}, deleting it`, anyStatus: true },
      ],
      options,
    );
    if (cut?.header.status === Status.success && closed?.header.status === Status.success) return;
  }
  // Not the run's file, or the cut failed: the name still goes with the handle (delete-on-close), the data stays.
  await session.close(opened.fileId, { ...options, okStatuses: [Status.fileClosed] });
}
