// The only place a test copy writes: a private folder `.pipefill-<stamp>-<random>`
// at the root of the share. It is removed on success, failure and cancel, and
// at the next start when a run died before it could (crash, killed server,
// lost network).
//
// Telling a dead run's folder from a live one's: a live run holds
// `<folder>/.lease` open without FILE_SHARE_DELETE; the server closes that
// handle when the run's connection goes, whatever killed it. A start that can
// open the lease for deletion has found an orphan and removes it; folders
// older than a day are removed in any case.

import { randomBytes } from 'node:crypto';
import type { RequestOptions } from './connection.js';
import { SmbError } from './errors.js';
import { Access, CreateOption, Disposition, ShareAccess } from './messages.js';
import { Status } from './protocol.js';
import type { SmbSession } from './session.js';

export const SCRATCH_PREFIX = '.pipefill-';
const SCRATCH_NAME = /^\.pipefill-(\d{8}T\d{6})-[0-9a-f]{8}$/;
const LEASE_NAME = '.lease';
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** A scratch tree is at most a directory set (14 folders) and a file: deep recursion means something else. */
const MAX_DEPTH = 8;

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
  private constructor(
    private readonly session: SmbSession,
    readonly name: string,
    private readonly leaseId: Buffer,
  ) {}

  /** Creates a new scratch folder and takes its lease. */
  static async create(session: SmbSession, options: RequestOptions = {}, now = new Date()): Promise<ScratchFolder> {
    const name = `${SCRATCH_PREFIX}${stamp(now)}-${randomBytes(4).toString('hex')}`;
    await session.makeDirectory(name, options);
    try {
      const lease = await session.create(
        { path: `${name}/${LEASE_NAME}`, access: Access.readData | Access.writeData | Access.delete, disposition: Disposition.create, options: CreateOption.nonDirectory | CreateOption.deleteOnClose, shareAccess: ShareAccess.read | ShareAccess.write },
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

  /** Removes the folder and everything in it, lease last. */
  async remove(options: RequestOptions = {}): Promise<void> {
    await removeTree(this.session, this.name, 0, options, new Set([LEASE_NAME]));
    // The lease is delete-on-close: closing it deletes it, and the folder is then empty.
    await this.session.close(this.leaseId, options).catch(() => undefined);
    await this.session.deletePath(this.name, true, options);
  }
}

async function removeTree(session: SmbSession, path: string, depth: number, options: RequestOptions, keep: ReadonlySet<string> = new Set()): Promise<void> {
  if (depth > MAX_DEPTH) throw new SmbError('protocol', `The scratch folder is nested deeper than Pipefill makes it (${path}).`, 'Remove it by hand.');
  for (const entry of await session.listDirectory(path, options)) {
    if (keep.has(entry.name)) continue;
    const child = `${path}/${entry.name}`;
    if (entry.isDirectory) await removeTree(session, child, depth + 1, options);
    await session.deletePath(child, entry.isDirectory, options);
  }
}

/** Is the run that owns this folder gone? (Its lease can be opened for deletion.) */
async function isOrphan(session: SmbSession, name: string, options: RequestOptions): Promise<boolean> {
  try {
    const lease = await session.create({ path: `${name}/${LEASE_NAME}`, access: Access.delete | Access.readAttributes, disposition: Disposition.open, options: CreateOption.nonDirectory }, options);
    await session.close(lease.fileId, options);
    return true;
  } catch (error) {
    if (error instanceof SmbError && error.status === Status.sharingViolation) return false;
    if (error instanceof SmbError && (error.status === Status.objectNameNotFound || error.status === Status.objectPathNotFound)) return true;
    throw error;
  }
}

/**
 * Removes scratch folders left by runs that died: orphans at once, and any
 * older than a day. Returns the names removed. A live run's folder is left alone.
 */
export async function removeStaleScratch(session: SmbSession, options: RequestOptions = {}, now = new Date()): Promise<string[]> {
  const removed: string[] = [];
  for (const { name, isDirectory } of await session.listDirectory('', options)) {
    const created = isDirectory ? stampTime(name) : undefined;
    if (created === undefined) continue;
    const old = now.getTime() - created > STALE_AFTER_MS;
    if (!old && !(await isOrphan(session, name, options))) continue;
    await removeTree(session, name, 0, options);
    await session.deletePath(name, true, options);
    removed.push(name);
  }
  return removed;
}
