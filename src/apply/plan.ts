// What every apply is: a plan to preview (each change from what to what, on
// which target), a backup taken before anything changes, the change, a check
// that the new values read back, and a rollback to the exact previous state.
// Backups live in a state folder so a rollback works from a later run.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PipefillError } from '../model/errors.js';

export type ApplyTarget = 'linux' | 'samba' | 'windows' | 'ontap' | 'macos';
export const APPLY_TARGETS: readonly ApplyTarget[] = ['linux', 'samba', 'windows', 'ontap', 'macos'];

export interface Change {
  readonly knob: string;
  readonly name: string;
  readonly from: string;
  readonly to: string;
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

/** One backup per target and place (a second smb.conf has a backup of its own). */
export function backupPath(stateDir: string, target: ApplyTarget, where: string): string {
  return join(stateDir, `${target}-${createHash('sha256').update(where).digest('hex').slice(0, 12)}.json`);
}

export function saveBackup(path: string, backup: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  if (existsSync(path)) {
    throw new PipefillError('backup-exists', `A backup of an earlier apply is still there (${path}).`, 'Roll that apply back first (pipefill apply --rollback ...), so its previous state is not lost.');
  }
  writeFileSync(path, `${JSON.stringify(backup, null, 2)}\n`, { mode: 0o600 });
}

export function loadBackup<T>(path: string): T {
  if (!existsSync(path)) throw new PipefillError('no-backup', `There is nothing to roll back: no backup at ${path}.`, 'Only changes Pipefill applied (with the same --target and file) can be rolled back.');
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export function dropBackup(path: string): void {
  rmSync(path, { force: true });
}

/** A file's exact bytes, for a backup (base64), or null when it does not exist. */
export function fileSnapshot(path: string): string | null {
  return existsSync(path) ? readFileSync(path).toString('base64') : null;
}

export function restoreFile(path: string, snapshot: string | null): void {
  if (snapshot === null) rmSync(path, { force: true });
  else writeFileSync(path, Buffer.from(snapshot, 'base64'));
}

export function requireRoot(what: string, command: string): void {
  if (process.platform !== 'win32' && process.getuid?.() !== 0) {
    throw new PipefillError('needs-root', `${what} needs root, and Pipefill does not raise its own privileges.`, `Run it again with sudo: sudo ${command}`);
  }
}
