// Replacing a configuration file so that a crash, a power cut or a planted
// link never leaves it half written or written somewhere else: the new bytes
// go to a fresh file in the same folder (created exclusively, never through
// a link), carry the old file's owner, mode and extended attributes (POSIX
// ACLs and SELinux labels live there), reach the disk, and only then take
// the old name in one rename; the folder is synced so the rename survives
// too. A configuration reached through a symlink keeps its link: the file it
// points to is what changes.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * A path Pipefill will not write through: a link to nowhere, a folder someone
 * else owns, a short write. Plain Node here (src/platform imports no other
 * layer); the CLI prints it as it prints Pipefill's own errors.
 */
export class UnsafePathError extends Error {
  override readonly name = 'UnsafePathError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Owner and mode of a file, kept in a backup so a restore gives back exactly these. */
export interface FileMeta {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/** The file a path names once its links are followed; a link to nowhere is refused, not written through. */
export function resolveTarget(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  let dangling = false;
  try {
    dangling = lstatSync(path).isSymbolicLink();
  } catch {
    // Nothing there at all: the path itself is created.
  }
  if (dangling) throw new UnsafePathError(`${path} is a link to a file that does not exist.`, 'Point Pipefill at the configuration file itself.');
  return path;
}

export function fileMeta(path: string): FileMeta | null {
  if (!existsSync(path)) return null;
  const stat = lstatSync(resolveTarget(path));
  return { mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid };
}

function syncFolder(folder: string): void {
  // Some file systems refuse fsync on a directory; the rename is still atomic there.
  let fd: number | undefined;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    fsyncSync(fd);
  } catch {
    // best effort, as above
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Extended attributes (ACLs, labels) from the old file onto the new one; cp knows every kind the system has. */
function copyExtendedAttributes(from: string, to: string): boolean {
  if (process.platform !== 'linux') return true;
  const run = spawnSync('cp', ['--attributes-only', '--no-dereference', '--preserve=xattr', '--', from, to], { encoding: 'utf8', timeout: 10_000 });
  return run.status === 0;
}

/**
 * Writes `content` as the file at `path` (after its links), atomically and
 * durably. Owner and mode: `meta` when given (a restore), else the old
 * file's, else `newMode`. Returns notes for anything it could not carry over.
 */
export function replaceFile(path: string, content: string | Buffer, options: { meta?: FileMeta | null; newMode?: number } = {}): string[] {
  const target = resolveTarget(path);
  const folder = dirname(target);
  const old = existsSync(target) ? lstatSync(target) : undefined;
  const meta = options.meta ?? (old ? { mode: old.mode & 0o7777, uid: old.uid, gid: old.gid } : null);
  const temporary = join(folder, `.${basename(target)}.pipefill-${randomBytes(6).toString('hex')}.tmp`);
  const notes: string[] = [];
  // O_EXCL|O_NOFOLLOW: a name someone planted (file or link) fails here instead of being written through.
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    if (meta) {
      if (process.getuid?.() === 0 || meta.uid === process.getuid?.()) {
        try {
          fchownSync(fd, meta.uid, meta.gid);
        } catch {
          notes.push(`${path}: its owner could not be kept.`);
        }
      }
      fchmodSync(fd, meta.mode);
    } else {
      fchmodSync(fd, options.newMode ?? 0o644);
    }
    if (old && !copyExtendedAttributes(target, temporary)) notes.push(`${path}: its extended attributes (ACLs) could not be copied; check them.`);
    fsyncSync(fd);
    if (fstatSync(fd).size !== bytes.length) throw new UnsafePathError(`Writing ${temporary} came up short.`, 'Check the free space on that file system.');
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(folder);
  return notes;
}

/** Removes a file Pipefill created (not through a link to elsewhere), durably. */
export function removeFile(path: string): void {
  if (!existsSync(path) && !isLink(path)) return;
  rmSync(path, { force: true });
  syncFolder(dirname(path));
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A new file that must not exist yet (a backup, a lab's state): exclusive, never through a link, 0600, on disk before it returns. */
export function createExclusive(path: string, content: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const bytes = Buffer.from(content);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncFolder(dirname(path));
}

/**
 * A folder only this user may enter, made if missing: 0700, owned by this
 * user, a real folder and not a link. One that exists with another owner, or
 * as a link, is refused (someone may have planted it to catch what goes in);
 * one of ours that others may read is closed to them.
 */
export function privateDirectory(path: string): string {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stat = lstatSync(path);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || stat.isSymbolicLink() || (uid !== undefined && stat.uid !== uid)) {
    throw new UnsafePathError(
      `${path} exists but is not a folder of this user's own (a link, or another owner's).`,
      `Remove ${path} (after checking what it is), then try again.`,
    );
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(path, 0o700);
  return path;
}

/** Opens a new log file for appending: exclusive, never through a link, 0600. */
export function openNewLog(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
}

/** A fresh folder with an unguessable name under `parent` (0700, made atomically: nothing planted can be it). */
export function freshDirectory(parent: string, prefix: string): string {
  return mkdtempSync(join(parent, prefix));
}
