// The only place a test copy writes: a private folder `.pipefill-<stamp>-<random>`
// at the root of the share, or in the folder the share path names below it
// (`\\server\share\team\scratch`, for people who may write only there).
// It is removed on success, failure and cancel, and
// at the next start when a run died before it could (crash, killed server,
// lost network).
//
// Telling a dead run's folder from a live one's: a live run holds
// `<folder>/.lease` open without FILE_SHARE_DELETE; the server closes that
// handle when the run's connection goes, whatever killed it. A start that can
// open the lease for deletion has found an orphan and removes it; folders
// older than a day are removed in any case.

import { randomBytes } from 'node:crypto';
import type { RequestOptions } from './request-frames.js';
import { SmbError } from './errors.js';
import { Access, CreateOption, Disposition, ShareAccess } from './messages.js';
import { Status } from './protocol.js';
import type { SmbSession } from './session.js';

export const SCRATCH_PREFIX = '.pipefill-';
const SCRATCH_NAME = /^\.pipefill-(\d{8}T\d{6})-[0-9a-f]{8}$/;
const LEASE_NAME = '.lease';
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** The folder scratch folders go in, as a path prefix: '' for the share's root, `team/scratch/` below it. */
const workFolder = (session: SmbSession): string => (session.target.folder ? `${session.target.folder}/` : '');

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').slice(0, 15);
}

function stampTime(name: string): number | undefined {
  const match = SCRATCH_NAME.exec(name);
  if (!match?.[1]) return undefined;
  const s = match[1];
  return Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(9, 11), +s.slice(11, 13), +s.slice(13, 15));
}

/** Joins a path inside the scratch folder; refuses anything that could leave it. */
export function scratchPath(root: string, relative: string): string {
  const parts = relative.split(/[/\\]/).filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..' || part.includes(':'))) {
    throw new SmbError('protocol', `Refusing to write outside the scratch folder: ${relative}.`, 'This is a bug in Pipefill; please report it.');
  }
  return [root, ...parts].join('/');
}

export class ScratchFolder {
  /**
   * Whether the server keeps another open from deleting this folder's lease
   * (share modes, MS-SMB2 3.3.5.9). Where it does not (impacket's and
   * quicksand's servers, a Go one), a run's lease cannot show it alive, and
   * old folders are swept by age alone. Known after createChecked.
   */
  enforcesShareModes = true;

  private constructor(
    private readonly session: SmbSession,
    readonly name: string,
    private readonly leaseId: Buffer,
  ) {}

  /**
   * Creates the run's folder and asks the server on its own lease whether
   * share modes hold, which the sweep of what dead runs left needs to know
   * (sweepOthersAside, or a fresh session's after a broken connection):
   * orphans go by their lease only where share modes hold (elsewhere a live
   * run's folder would look orphaned: an assessment once deleted its own).
   */
  static async createChecked(session: SmbSession, options: RequestOptions = {}, now = new Date()): Promise<ScratchFolder> {
    const own = await ScratchFolder.create(session, options, now);
    try {
      own.enforcesShareModes = await holdsShareModes(session, own.name, options);
      return own;
    } catch (error) {
      // Nothing is in the folder yet but its lease: no listing needed.
      await own.discardEmpty();
      throw error;
    }
  }

  /** Creates a new scratch folder and takes its lease. */
  static async create(session: SmbSession, options: RequestOptions = {}, now = new Date()): Promise<ScratchFolder> {
    const name = `${workFolder(session)}${SCRATCH_PREFIX}${stamp(now)}-${randomBytes(4).toString('hex')}`;
    await session.makeDirectory(name, options).catch(async (error: unknown) => {
      const missing = error instanceof SmbError && (error.status === Status.objectNameNotFound || error.status === Status.objectPathNotFound);
      // Below the share, the folder the person named may not be there (or not visible to them).
      const { folder } = session.target;
      if (missing && folder && !(await folderExists(session, folder, options).catch(() => false)))
        throw new SmbError(
          'not-found',
          `The folder ${folder} is not on the share ${session.target.share} (or this user cannot see it), so Pipefill has nowhere to work.`,
          'Check the folder in the share path, or give the share itself; Pipefill makes its scratch folder in the folder the path names.',
          error.status,
          { cause: error },
        );
      // Making a folder where the parent exists cannot miss a path: the server hides or refuses names that start with a dot.
      if (missing)
        throw new SmbError(
          'access-denied',
          `The server would not make Pipefill's scratch folder ${name}: it answers "no such file" for a name that starts with a dot, as Samba does with veto files = /.*/ (hidden files refused).`,
          'Allow dot-named files on this share for the test (Samba: drop /.*/ from veto files, or add a share without it), or test another share.',
          error.status,
          { cause: error },
        );
      throw error;
    });
    try {
      const lease = await session.create(
        {
          path: `${name}/${LEASE_NAME}`,
          access: Access.readData | Access.writeData | Access.delete,
          disposition: Disposition.create,
          options: CreateOption.nonDirectory | CreateOption.deleteOnClose,
          shareAccess: ShareAccess.read | ShareAccess.write,
        },
        options,
      );
      return new ScratchFolder(session, name, lease.fileId);
    } catch (error) {
      await session.deletePath(name, true).catch(() => undefined);
      throw error;
    }
  }

  /** A path inside the folder, for every create the engine makes. */
  path(relative: string): string {
    return scratchPath(this.name, relative);
  }

  /**
   * Sweeps what dead runs left (removeStaleScratch), before anything is
   * written here, on a session of its own that `open` makes and this ends.
   * Not on the run's own: the sweep lists the share's root, and the smbd
   * process that served that listing then took the run's writes slower: a
   * 256 MiB signed write measured 0.82-0.85x smbclient put with the sweep on
   * its connection, 1.07-1.13x without it, and the same listing on another
   * connection cost nothing (CLI copy-test on loopback, 6-10 alternating
   * rounds each, 2026-11-26). A second connection that will not open skips
   * the sweep (a later run does it). A server that breaks the protocol in a
   * listing ends the run here, with this folder (only its lease so far)
   * removed without one.
   */
  async sweepOthersAside(open: () => Promise<SmbSession>, options: RequestOptions = {}, now = new Date()): Promise<void> {
    const sweeper = await open().catch(() => undefined);
    if (!sweeper) return;
    try {
      await removeStaleScratch(sweeper, { orphansByLease: this.enforcesShareModes, spare: this.name }, options, now);
    } catch (error) {
      await this.discardEmpty();
      throw error;
    } finally {
      await sweeper.end().catch(() => undefined);
    }
  }

  /** Removes this folder while it holds only its lease: the lease closed (delete-on-close), the folder deleted, no listing. */
  private async discardEmpty(): Promise<void> {
    const quick = { timeoutMs: 5_000 };
    await this.session.close(this.leaseId, quick).catch(() => undefined);
    await this.session.deletePath(this.name, true, quick).catch(() => undefined);
  }

  /**
   * Removes the folder and everything in it, lease last, and checks it is
   * gone. Says where a recycle bin kept (emptied) copies of what was removed.
   */
  async remove(options: RequestOptions = {}): Promise<{ recycleBin?: string }> {
    const left = await removeTree(this.session, this.name, 0, options, new Set([LEASE_NAME]));
    if (left.length > 0) throw leftError(this.name, left);
    // The lease is delete-on-close: closing it deletes it, and the folder is then empty.
    await this.session.close(this.leaseId, options).catch(() => undefined);
    await this.session.deletePath(this.name, true, options);
    if (await folderExists(this.session, this.name, options))
      throw new SmbError(
        'protocol',
        `The server answered that the scratch folder ${this.name} was removed, and it is still there.`,
        'Remove that folder from the share by hand; the server log may say why it stayed.',
      );
    const recycleBin = await recycleBinHolding(this.session, this.name, options);
    return recycleBin === undefined ? {} : { recycleBin };
  }
}

/**
 * The names Pipefill creates inside a scratch folder, by depth: the lease, the
 * probe's file and the copy roots; a single-file workload's file and the
 * directory set's folders; the set's files. Clean-up removes these and
 * nothing else: a folder with the right name made by someone else, or a link
 * planted in one, may hold anything, and the server may follow a link
 * without saying so (smbd lists a symlinked folder as a plain folder).
 */
const LAYOUT: readonly { readonly directories: RegExp; readonly files: RegExp }[] = [
  // A copy's root: `source`/`target`, or an assessment's `source-file`, `target-3`...; a capacity run's `capacity`;
  // the lease, the probe's file and the hosts' calibration files (src/probe/host-rates.ts).
  { directories: /^((source|target)(-[a-z0-9]{1,16})?|capacity)$/, files: /^(\.lease|bandwidth-probe\.bin|calibration-\d{1,2}\.bin)$/ },
  // In a capacity run's folder: each simulated person's file and the small file the latency samples open.
  { directories: /^dir\d{2}$/, files: /^(pipefill-test\.bin|user-\d{2}\.bin|latency\.bin)$/ },
  { directories: /^(?!)/, files: /^file\d{3}\.[a-z0-9]{1,5}$/ },
];

/** Whether Pipefill makes an entry of this name and kind at this depth of a scratch folder. */
export function isPipefillEntry(depth: number, name: string, isDirectory: boolean): boolean {
  const level = LAYOUT[depth];
  return level !== undefined && (isDirectory ? level.directories : level.files).test(name);
}

/**
 * Removes what Pipefill made under `path` and returns what it left: entries
 * of names it never makes, reparse points (symlinks, junctions), and folders
 * reached through a link, which are never walked into. smbd lists a
 * symlinked folder as a plain one, but the folder's own `..` then names the
 * link target's parent, not the folder listed above it: `expectedParent`.
 * A folder that keeps anything is kept.
 */
/** Entries of one folder removed at once: a round trip each, so a long path needs them in flight together (issue 15: 150 entries at 75 ms took 11 s one by one). */
const REMOVALS_IN_FLIGHT = 8;

async function removeTree(
  session: SmbSession,
  path: string,
  depth: number,
  options: RequestOptions,
  keep: ReadonlySet<string> = new Set(),
  expectedParent?: bigint,
): Promise<string[]> {
  if (depth >= LAYOUT.length) return [path];
  // The listing's handle closes while the entries go; the folder is removed by the caller only after both.
  const listing = await session.listDirectoryClosing(path, options);
  try {
    return await removeListed(session, path, depth, options, keep, listing, expectedParent);
  } finally {
    await listing.closed;
  }
}

async function removeListed(
  session: SmbSession,
  path: string,
  depth: number,
  options: RequestOptions,
  keep: ReadonlySet<string>,
  listing: Awaited<ReturnType<SmbSession['listDirectoryClosing']>>,
  expectedParent: bigint | undefined,
): Promise<string[]> {
  // A `..` that names the folder itself says nothing of where the folder hangs (a server that reports `..` with the
  // folder's own attributes, issue 37): unknown, as an absent one is.
  const parent = listing.parent !== undefined && listing.parent !== listing.self ? listing.parent : undefined;
  if (expectedParent !== undefined && parent !== undefined && expectedParent !== 0n && parent !== expectedParent) return [`${path} (a link)`];
  const left: string[] = [];
  const removeEntry = async (entry: (typeof listing.entries)[number]) => {
    const child = `${path}/${entry.name}`;
    if (entry.isReparsePoint || !isPipefillEntry(depth, entry.name, entry.isDirectory)) {
      left.push(child);
      return;
    }
    if (entry.isDirectory) {
      const inside = await removeTree(session, child, depth + 1, options, new Set(), listing.self);
      if (inside.length > 0) {
        left.push(...inside);
        return;
      }
    }
    await session.deletePath(child, entry.isDirectory, options);
  };
  const queue = listing.entries.filter((entry) => !keep.has(entry.name));
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

function leftError(folder: string, left: readonly string[]): SmbError {
  return new SmbError(
    'protocol',
    `The scratch folder ${folder} holds ${left.length === 1 ? 'an entry' : `${left.length} entries`} Pipefill did not make (${left.slice(0, 3).join(', ')}${left.length > 3 ? ', ...' : ''}); they were left in place, and so was the folder.`,
    'Look at that folder on the server and remove it by hand if it is yours to remove.',
  );
}

/** Whether a folder of this path opens (anything but "not found" is an answer to pass on). */
async function folderExists(session: SmbSession, path: string, options: RequestOptions): Promise<boolean> {
  try {
    const opened = await session.create(
      { path, access: Access.readAttributes, disposition: Disposition.open, options: CreateOption.directory, directory: true },
      options,
    );
    await session.close(opened.fileId, options);
    return true;
  } catch (error) {
    // Not there, however the server words it (impacket: STATUS_NO_SUCH_FILE).
    if (
      error instanceof SmbError &&
      (error.status === Status.objectNameNotFound || error.status === Status.objectPathNotFound || error.status === Status.noSuchFile)
    )
      return false;
    throw error;
  }
}

/** Recycle bins by the names NAS makers and Samba's vfs_recycle give them. */
const RECYCLE_BIN = /^(\.recycle|#recycle|@recycle|\.trash|\$recycle\.bin)$/i;

/** The share-root recycle bin that kept a folder of this name, if any (where vfs_recycle keeps the tree). */
async function recycleBinHolding(session: SmbSession, name: string, options: RequestOptions): Promise<string | undefined> {
  const root = await session.listDirectoryWithLinks('', options).catch(() => undefined);
  for (const entry of root?.entries ?? []) {
    if (!entry.isDirectory || !RECYCLE_BIN.test(entry.name)) continue;
    if (await folderExists(session, `${entry.name}/${name}`, options).catch(() => false)) return entry.name;
  }
  return undefined;
}

/** Whether a second open for deletion of a lease its holder shares no delete on is refused (STATUS_SHARING_VIOLATION). */
async function holdsShareModes(session: SmbSession, name: string, options: RequestOptions): Promise<boolean> {
  try {
    const probe = await session.create(
      { path: `${name}/${LEASE_NAME}`, access: Access.delete | Access.readAttributes, disposition: Disposition.open, options: CreateOption.nonDirectory },
      options,
    );
    // Not delete-on-close: closing this handle leaves the lease (and its own delete-on-close) as they were.
    await session.close(probe.fileId, options);
    return false;
  } catch (error) {
    if (error instanceof SmbError && error.status === Status.sharingViolation) return true;
    throw error;
  }
}

/** Is the run that owns this folder gone? (Its lease can be opened for deletion.) */
async function isOrphan(session: SmbSession, name: string, options: RequestOptions): Promise<boolean> {
  try {
    const lease = await session.create(
      { path: `${name}/${LEASE_NAME}`, access: Access.delete | Access.readAttributes, disposition: Disposition.open, options: CreateOption.nonDirectory },
      options,
    );
    await session.close(lease.fileId, options);
    return true;
  } catch (error) {
    if (error instanceof SmbError && error.status === Status.sharingViolation) return false;
    // A lease that is not there, however the server words it (STATUS_NO_SUCH_FILE from some servers), is held by no run.
    if (
      error instanceof SmbError &&
      (error.status === Status.objectNameNotFound || error.status === Status.objectPathNotFound || error.status === Status.noSuchFile)
    )
      return true;
    throw error;
  }
}

/** Failures that end the session, not one folder's clean-up: the sweep stops on these and passes them on. */
const SESSION_ENDING: readonly string[] = ['cancelled', 'connection-lost', 'timeout'];

/**
 * A folder the sweep may pass over: the server answered with a status (it
 * refused, or called the folder or its lease something odd). A server that
 * breaks the protocol (a listing that never ends or points into itself, a
 * reply that fails its signature) fails the run, as anywhere else.
 */
const passOver = (error: unknown): boolean => error instanceof SmbError && error.status !== undefined && !SESSION_ENDING.includes(error.kind);

/**
 * Removes scratch folders left by runs that died: orphans at once, and any
 * older than a day. Returns the names removed. A live run's folder is left alone.
 * Best-effort: a folder the server will not let go of (or answers about
 * with an odd status) is left for the next sweep, and the run goes on; a
 * failure that ends the session, or a server that breaks the protocol,
 * stops it (issue 37: one server's answer about a `.lease` stopped every
 * later run on its share).
 */
export async function removeStaleScratch(
  session: SmbSession,
  how: { readonly orphansByLease: boolean; readonly spare?: string },
  options: RequestOptions = {},
  now = new Date(),
): Promise<string[]> {
  const removed: string[] = [];
  // Scratch folders are found where runs make them: the share's root, or the folder the share path names.
  const folder = workFolder(session);
  const root = await session.listDirectoryWithLinks(folder.replace(/\/$/, ''), options).catch((error: unknown) => {
    if (passOver(error)) return undefined;
    throw error;
  });
  for (const entry of root?.entries ?? []) {
    if (entry.isReparsePoint) continue;
    const created = entry.isDirectory ? stampTime(entry.name) : undefined;
    const name = `${folder}${entry.name}`;
    if (created === undefined || name === how.spare) continue;
    try {
      const old = now.getTime() - created > STALE_AFTER_MS;
      if (!old && !(how.orphansByLease && (await isOrphan(session, name, options)))) continue;
      // Someone else's folder of the same shape keeps whatever Pipefill did not put there.
      if ((await removeTree(session, name, 0, options, new Set(), root?.self)).length > 0) continue;
      await session.deletePath(name, true, options);
      removed.push(name);
    } catch (error) {
      if (passOver(error)) continue;
      throw error;
    }
  }
  return removed;
}
