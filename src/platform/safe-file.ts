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
  readdirSync,
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
export function replaceFile(path: string, content: string | Buffer, options: { meta?: FileMeta | null; newMode?: number; ownFile?: boolean } = {}): string[] {
  // Pipefill's own files (settings, kept in its data folder) are never links: one there was planted, and is refused
  // rather than followed (a root service once overwrote a root-owned file through one). A system configuration
  // reached through a link keeps its link, as the administrator made it.
  if (options.ownFile && isLink(path))
    throw new UnsafePathError(
      `${path} is a link; Pipefill writes its own files only where they are.`,
      `Remove the link ${path} (after checking what it is), then try again.`,
    );
  const target = options.ownFile ? path : resolveTarget(path);
  const folder = dirname(target);
  const old = existsSync(target) ? lstatSync(target) : undefined;
  const meta = options.meta ?? (old ? { mode: old.mode & 0o7777, uid: old.uid, gid: old.gid } : null);
  clearDeadTemporaries(folder, basename(target));
  const temporary = join(folder, `.${basename(target)}.pipefill-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
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

/** Whether the process of this id is gone (a process of another user's still counts as there). */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes what a replace of `name` that was killed left in `folder`: its
 * temporary (`.NAME.pipefill-PID-HEX.tmp`) where that process is gone, and
 * one of an earlier Pipefill's (no pid in the name) an hour old. Only plain
 * files this user owns; never through a link; best-effort.
 */
function clearDeadTemporaries(folder: string, name: string): void {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  const prefix = `.${name}.pipefill-`;
  for (const entry of names) {
    if (!entry.startsWith(prefix) || !entry.endsWith('.tmp')) continue;
    const middle = entry.slice(prefix.length, -'.tmp'.length);
    const ours = /^(\d{1,10})-[0-9a-f]{12}$/.exec(middle);
    const legacy = /^[0-9a-f]{12}$/.test(middle);
    try {
      const stat = lstatSync(join(folder, entry));
      if (!stat.isFile() || (uid !== undefined && stat.uid !== uid)) continue;
      const dead = ours ? Number(ours[1]) !== process.pid && processGone(Number(ours[1])) : legacy && Date.now() - stat.mtimeMs > 60 * 60 * 1000;
      if (dead) rmSync(join(folder, entry), { force: true });
    } catch {
      // Gone meanwhile, or not ours to look at.
    }
  }
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
  } catch (error) {
    // A full disk must not leave half a file: a half backup would block the next apply and restore nothing.
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  closeSync(fd);
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

/**
 * A folder of this user's own, made if missing (0700): one that is a link,
 * or that another user owns, is refused, since a file planted in it (a link
 * to anywhere) would take what this user writes there. Unlike
 * privateDirectory, its mode is left as its owner set it.
 */
export function ownedDirectory(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const stat = lstatSync(path);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid))
    throw new UnsafePathError(
      `${path} is not a folder of this user's own (${stat.isSymbolicLink() ? 'a link' : `it belongs to user ${stat.uid}`}), so Pipefill will not write in it.`,
      uid === 0
        ? 'Run Pipefill as the user who owns that folder, or give root a folder of its own: PIPEFILL_DATA_DIR=/root/.local/share/pipefill.'
        : `Set PIPEFILL_DATA_DIR to a folder of your own, or check who made ${path}.`,
    );
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

/**
 * A fresh private folder `PREFIX-PID-XXXXXX` under `parent`, after removing
 * the ones of its kind that killed processes left: only real folders this
 * user owns whose process is gone (a kill -9 in the middle of an apply left
 * /tmp/pipefill-smbconf-* for ever).
 */
export function freshWorkDirectory(parent: string, prefix: string): string {
  const uid = process.getuid?.();
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const named = new RegExp(`^${escaped}-(\\d{1,10})-[A-Za-z0-9]{6}$`);
  // An earlier Pipefill's (no pid in the name): cleared once an hour old.
  const legacy = new RegExp(`^${escaped}-[A-Za-z0-9]{6}$`);
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    // An unreadable parent: nothing to clear; mkdtemp says what is wrong.
  }
  for (const name of names) {
    const pid = named.exec(name)?.[1];
    if (pid === undefined && !legacy.test(name)) continue;
    if (pid !== undefined && (Number(pid) === process.pid || !processGone(Number(pid)))) continue;
    try {
      const stat = lstatSync(join(parent, name));
      if (pid === undefined && Date.now() - stat.mtimeMs < 60 * 60 * 1000) continue;
      if (stat.isDirectory() && (uid === undefined || stat.uid === uid)) rmSync(join(parent, name), { recursive: true, force: true });
    } catch {
      // Gone meanwhile.
    }
  }
  return mkdtempSync(join(parent, `${prefix}-${process.pid}-`));
}
