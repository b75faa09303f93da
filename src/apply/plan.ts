// What every apply is: a plan to preview (each change from what to what, on
// which target), a backup taken before anything changes, the change, a check
// that the new values read back, and a rollback to the exact previous state.
// Backups live in a state folder so a rollback works from a later run.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { PipefillError } from '../model/errors.js';
import { createExclusive, fileMeta, privateDirectory, removeFile, replaceFile, resolveTarget } from '../platform/safe-file.js';

import type { ApplyTarget } from '../contract/apply.js';

export type { ApplyTarget } from '../contract/apply.js';
export { APPLY_TARGETS } from '../contract/apply.js';

export interface Change {
  readonly knob: string;
  readonly name: string;
  readonly from: string;
  readonly to: string;
  /** The exact line Pipefill writes or runs for it, shown in the preview. */
  readonly command: string;
}

export interface Preview {
  readonly target: ApplyTarget;
  /** Where: the smb.conf, the sysctl file, the script written. */
  readonly where: string;
  readonly changes: readonly Change[];
  /** What Pipefill will run, in order. */
  readonly steps: readonly string[];
}

export interface ApplyOutcome {
  readonly preview: Preview;
  readonly applied: boolean;
  readonly verified: boolean;
  /** The backup a rollback restores, or the files written for a person to run. */
  readonly backup?: string;
  readonly written?: readonly string[];
  readonly notes: readonly string[];
}

/** Where backups are kept: /var/lib/pipefill/apply as root, else ~/.local/state/pipefill/apply. */
export function defaultStateDir(): string {
  return process.getuid?.() === 0 ? '/var/lib/pipefill/apply' : join(homedir(), '.local', 'state', 'pipefill', 'apply');
}

/**
 * The file a path names, however it is spelt: `etc/smb.conf`, `etc/./smb.conf`
 * and a link to it are one file, with one backup. (Not its inode: every apply
 * replaces the file by a rename, which gives it a new one.) A file not there
 * yet is named by its folder's real path.
 */
export function fileIdentity(where: string): string {
  const absolute = resolve(where);
  try {
    return realpathSync(absolute);
  } catch {
    try {
      return join(realpathSync(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

const backupName = (target: ApplyTarget, key: string) => `${target}-${createHash('sha256').update(key).digest('hex').slice(0, 12)}.json`;

/**
 * One backup per target and file (a second smb.conf has a backup of its own),
 * keyed on the file itself: keyed on the text typed, two spellings of one
 * file took two backups, and rolling both back left the first apply in place
 * (issue 47). A backup an earlier Pipefill keyed on the text is still found
 * under that text, so it can be rolled back and is never overwritten.
 */
export function backupPath(stateDir: string, target: ApplyTarget, where: string): string {
  const path = join(stateDir, backupName(target, fileIdentity(where)));
  const typed = join(stateDir, backupName(target, where));
  return !existsSync(path) && existsSync(typed) ? typed : path;
}

export function saveBackup(path: string, backup: unknown): void {
  // The state folder's parents may be made as needed; the folder itself must be this user's own and
  // closed to others (as root /var/lib/pipefill/apply: a planted link there would catch the backup).
  mkdirSync(dirname(dirname(path)), { recursive: true, mode: 0o700 });
  privateDirectory(dirname(path));
  try {
    createExclusive(path, `${JSON.stringify(backup, null, 2)}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new PipefillError(
        'backup-failed',
        `The backup could not be written to ${path} (${reasonOf(error)}); nothing was changed.`,
        fileSystemHint(error, path) ?? 'Check the state folder (--state-dir), then apply again.',
      );
    throw new PipefillError(
      'backup-exists',
      `A backup of an earlier apply is still there (${path}).`,
      'Roll that apply back first (pipefill apply --rollback ...), so its previous state is not lost.',
    );
  }
}

/** A backup as its schema has it; one that fails is refused, never half trusted. */
export function loadBackup<T>(path: string, schema: z.ZodType<T>): T {
  if (!existsSync(path))
    throw new PipefillError(
      'no-backup',
      `There is nothing to roll back: no backup at ${path}.`,
      'Only changes Pipefill applied (with the same --target and file) can be rolled back.',
    );
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PipefillError(
      'bad-backup',
      `The backup ${path} is not JSON (${error instanceof Error ? error.message : String(error)}); nothing was restored.`,
      'Restore the file by hand from your own backups; Pipefill leaves this one where it is.',
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new PipefillError(
      'bad-backup',
      `The backup ${path} is not one Pipefill wrote (${parsed.error.issues[0]?.path.join('.') || 'top level'}: ${parsed.error.issues[0]?.message}); nothing was restored.`,
      'Restore the file by hand from your own backups; Pipefill leaves this one where it is.',
    );
  return parsed.data;
}

export function dropBackup(path: string): void {
  removeFile(path);
}

/** A file's exact bytes (base64) with its owner and mode, for a backup; null when it does not exist. */
export const FileSnapshotSchema = z.union([
  z.null(),
  z
    .object({
      bytes: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/),
      mode: z.number().int().min(0).max(0o7777),
      uid: z.number().int().min(0),
      gid: z.number().int().min(0),
    })
    .strict(),
]);
export type FileSnapshot = z.infer<typeof FileSnapshotSchema>;

export function fileSnapshot(path: string): FileSnapshot {
  const meta = fileMeta(path);
  return meta === null ? null : { bytes: readFileSync(resolveTarget(path)).toString('base64'), ...meta };
}

/** True when the file holds exactly the snapshot's bytes, owner and mode. */
export function matchesSnapshot(path: string, snapshot: FileSnapshot): boolean {
  const now = fileSnapshot(path);
  return snapshot === null
    ? now === null
    : now !== null && now.bytes === snapshot.bytes && now.mode === snapshot.mode && now.uid === snapshot.uid && now.gid === snapshot.gid;
}

/**
 * Puts the file back as the snapshot has it. A file that already is (an
 * apply whose write failed before its rename left it untouched) is not
 * written again: on a full or read-only disk that write would fail the same
 * way, and the failure would hide that nothing had changed.
 */
export function restoreFile(path: string, snapshot: FileSnapshot): string[] {
  if (matchesSnapshot(path, snapshot)) return [];
  if (snapshot === null) {
    removeFile(path);
    return [];
  }
  const { bytes, ...meta } = snapshot;
  return replaceFile(path, Buffer.from(bytes, 'base64'), { meta });
}

/** A failure's own words, without a stack: Node's file errors say their code, call and path in one line. */
function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** What to do about a file system that refused a write, in a person's words (undefined: not such a failure). */
function fileSystemHint(error: unknown, where: string): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return `The file system holding ${where} is full: free some space there, then apply again.`;
  if (code === 'EROFS') return `${where} is on a file system mounted read-only: remount it read-write (or give Pipefill a copy to edit), then apply again.`;
  if (code === 'EACCES' || code === 'EPERM') return `This user may not write ${where}: run it again with sudo, or give Pipefill a copy to edit.`;
  return undefined;
}

/**
 * What an apply that failed after its backup says: it rolls back, and
 * either everything is as before (the backup is gone, the next apply is not
 * blocked) or it names the backup and the command that restores it. Never a
 * second, untyped error from inside the handler.
 */
export function undoFailedApply(
  error: unknown,
  how: { readonly what: string; readonly where: string; readonly backup: string; readonly rollback: () => ApplyOutcome; readonly undo: string },
): PipefillError {
  const reason = reasonOf(error);
  const hint = error instanceof PipefillError ? error.hint : (fileSystemHint(error, how.where) ?? 'Check the file and try again.');
  let rolledBack: ApplyOutcome | undefined;
  let rollbackFailure: unknown;
  try {
    rolledBack = how.rollback();
  } catch (failure) {
    rollbackFailure = failure;
  }
  if (rolledBack?.verified)
    return new PipefillError('apply-failed', `Applying failed (${reason}); it was rolled back: ${how.what} is as it was before.`, hint, { cause: error });
  return new PipefillError(
    'rollback-failed',
    `Applying failed (${reason}), and ${how.what} could not be put back${rollbackFailure === undefined ? '' : ` (${reasonOf(rollbackFailure)})`}; its backup stays at ${how.backup}.`,
    `${(fileSystemHint(rollbackFailure ?? error, how.where) ?? 'Fix what stopped it').replace(/, then apply again\.$/, '')}, then run: ${how.undo}`,
    { cause: error },
  );
}

export function requireRoot(what: string, command: string): void {
  if (process.platform !== 'win32' && process.getuid?.() !== 0) {
    throw new PipefillError('needs-root', `${what} needs root, and Pipefill does not raise its own privileges.`, `Run it again with sudo: sudo ${command}`);
  }
}
