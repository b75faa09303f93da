// Applying Linux cifs.ko mount options (seal, multichannel and max_channels,
// rsize, wsize, max_credits) to the /etc/fstab line of one CIFS mount: the
// edited table is checked with util-linux's `findmnt --verify` before it
// replaces the original, read back field by field after, and a rollback
// restores the file byte for byte. The mount itself takes the options at its
// next mount; Pipefill says so and does not unmount anything.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { RecommendationOut } from '../contract/recommend.js';
import { PipefillError } from '../model/errors.js';
import { replaceFile } from '../platform/safe-file.js';
import type { ApplyOutcome, Change, Preview } from './plan.js';
import {
  backupPath,
  dropBackup,
  fileIdentity,
  FileSnapshotSchema,
  fileSnapshot,
  loadBackup,
  matchesSnapshot,
  restoreFile,
  saveBackup,
  undoFailedApply,
} from './plan.js';
import { hasControl, trustedRecommendations } from './trusted.js';

export const DEFAULT_FSTAB = '/etc/fstab';
const CIFS_TYPES = new Set(['cifs', 'smb3']);

/** An option as fstab carries it: a flag (`seal`) or key=value; null removes it. */
type OptionEdit = readonly [key: string, value: string | true | null];

/** Knob id -> the option edits its value means. */
const MOUNT_OPTIONS: Readonly<Record<string, (value: RecommendationOut['value']) => readonly OptionEdit[]>> = {
  'linux.cifs-seal': (value) => [['seal', value === true ? true : null]],
  'linux.cifs-multichannel': (value) =>
    Number(value) > 1
      ? [
          ['multichannel', true],
          ['max_channels', String(Number(value))],
        ]
      : [
          ['multichannel', null],
          ['max_channels', null],
        ],
  'linux.cifs-rsize': (value) => [['rsize', String(Number(value))]],
  'linux.cifs-wsize': (value) => [['wsize', String(Number(value))]],
  'linux.cifs-max-credits': (value) => [['max_credits', String(Number(value))]],
};

/** fstab writes a space in a path as \040 (and a tab, newline and backslash likewise: fstab(5)). */
export function fstabEscape(path: string): string {
  return path.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

interface MountLine {
  readonly index: number;
  readonly fields: string[];
}

function findMount(lines: readonly string[], mountPoint: string): MountLine {
  const wanted = fstabEscape(mountPoint);
  const found: MountLine[] = [];
  lines.forEach((line, index) => {
    if (/^\s*(#|$)/.test(line)) return;
    const fields = line.trim().split(/\s+/);
    if (fields[1] === wanted && CIFS_TYPES.has(fields[2] ?? '')) found.push({ index, fields });
  });
  if (found.length === 0)
    throw new PipefillError(
      'bad-input',
      `No cifs mount of ${mountPoint} in the table.`,
      'Give --mount-point as it appears in /etc/fstab (the second field of a cifs or smb3 line).',
    );
  if (found.length > 1)
    throw new PipefillError(
      'bad-input',
      `${found.length} cifs lines mount ${mountPoint}; Pipefill will not guess which one.`,
      'Leave one line for that mount point.',
    );
  const [only] = found;
  if (!only) throw new PipefillError('bad-input', `No cifs mount of ${mountPoint}.`, 'Check the table.');
  return only;
}

/** The options of a mount as key -> value (`true` for a flag), in order. */
export function parseOptions(text: string): Map<string, string | true> {
  const options = new Map<string, string | true>();
  for (const item of text.split(',')) {
    if (item === '' || item === 'defaults') continue;
    const eq = item.indexOf('=');
    if (eq < 0) options.set(item, true);
    else options.set(item.slice(0, eq), item.slice(eq + 1));
  }
  return options;
}

const formatOptions = (options: ReadonlyMap<string, string | true>) =>
  [...options].map(([key, value]) => (value === true ? key : `${key}=${value}`)).join(',') || 'defaults';

/** Applies option edits to one mount's line; other lines, comments and spacing stay as they are (pure). */
export function editMountOptions(text: string, mountPoint: string, edits: readonly OptionEdit[]): { text: string; before: string; after: string } {
  for (const [key, value] of edits) {
    // An option value can never carry a separator, a comment or a line: the table's grammar has no quoting.
    if (!/^[a-z_]+$/.test(key) || (typeof value === 'string' && (!/^[A-Za-z0-9_.:-]{1,64}$/.test(value) || hasControl(value)))) {
      throw new PipefillError(
        'bad-input',
        `Refusing to write mount option ${JSON.stringify(key)}=${JSON.stringify(value)}.`,
        'Produce the recommendations again with `pipefill recommend --json`.',
      );
    }
  }
  const lines = text.split('\n');
  const mount = findMount(lines, mountPoint);
  const before = mount.fields[3] ?? 'defaults';
  const options = parseOptions(before);
  for (const [key, value] of edits) {
    if (value === null) options.delete(key);
    else options.set(key, value);
  }
  const after = formatOptions(options);
  const fields = [...mount.fields];
  while (fields.length < 4) fields.push(fields.length === 3 ? 'defaults' : '');
  fields[3] = after;
  // The line keeps its leading spacing; fields are joined by a tab, as most tables are.
  const indent = /^\s*/.exec(lines[mount.index] ?? '')?.[0] ?? '';
  lines[mount.index] = `${indent}${fields.join('\t')}`;
  return { text: lines.join('\n'), before, after };
}

export interface FstabOptions {
  readonly fstab: string;
  readonly mountPoint: string;
  readonly stateDir: string;
}

const FstabBackupSchema = z.object({ fstab: z.string(), mountPoint: z.string(), content: FileSnapshotSchema }).strict();

export function planFstab(untrusted: readonly RecommendationOut[], options: FstabOptions): { preview: Preview; edited: string } {
  const recommendations = trustedRecommendations(untrusted);
  let original: string;
  try {
    original = readFileSync(options.fstab, 'utf8');
  } catch (error) {
    throw new PipefillError(
      'bad-input',
      `Cannot read ${options.fstab}: ${error instanceof Error ? error.message : String(error)}.`,
      'Point --fstab at the mount table.',
    );
  }
  let edited = original;
  const changes: Change[] = [];
  for (const r of recommendations) {
    const toEdits = MOUNT_OPTIONS[r.id];
    if (!toEdits) continue;
    const step = editMountOptions(edited, options.mountPoint, toEdits(r.value));
    if (step.before === step.after) continue;
    edited = step.text;
    changes.push({ knob: r.id, name: r.knob, from: step.before, to: step.after, command: `${options.mountPoint}: ${step.after}` });
  }
  return {
    edited,
    preview: {
      target: 'fstab',
      where: options.fstab,
      changes,
      steps: [
        'check the edited table with findmnt --verify',
        `back up ${options.fstab}`,
        `write ${options.fstab}`,
        'read the options back',
        `remount by hand when convenient: umount ${options.mountPoint} && mount ${options.mountPoint}`,
      ],
    },
  };
}

/** findmnt --verify on the candidate table, before it replaces anything. */
function verifyTable(text: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'pipefill-fstab-'));
  try {
    const file = join(dir, 'fstab');
    writeFileSync(file, text, { mode: 0o600 });
    const run = spawnSync('findmnt', ['--verify', '--tab-file', file], { encoding: 'utf8', timeout: 15_000 });
    if (run.error) throw new PipefillError('tool-missing', `Cannot run findmnt: ${run.error.message}.`, 'Install util-linux.');
    // findmnt exits non-zero for warnings about the running system (a missing mount point); only parse errors refuse.
    const output = `${run.stdout}${run.stderr}`;
    const parseErrors = Number(/(\d+) parse errors?/.exec(output)?.[1] ?? 0);
    if (parseErrors > 0 || /failed to parse/i.test(output))
      throw new PipefillError('bad-config', `findmnt cannot parse the edited table: ${output.trim().split('\n').slice(-2).join(' ')}`, 'Nothing was written.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The table must be ours to write before anything is backed up: /etc/fstab is root's. */
function requireWritable(fstab: string): void {
  try {
    accessSync(fstab, constants.W_OK);
    accessSync(dirname(resolve(fstab)), constants.W_OK);
  } catch {
    throw new PipefillError(
      'needs-root',
      `${fstab} is not writable by this user, and Pipefill does not raise its own privileges.`,
      "Run it again with sudo (the table is root's), or give --fstab a copy to edit.",
    );
  }
}

export function applyFstab(recommendations: readonly RecommendationOut[], options: FstabOptions): ApplyOutcome {
  const { preview, edited } = planFstab(recommendations, options);
  if (preview.changes.length === 0) return { preview, applied: false, verified: true, notes: ['Nothing to change: the mount already has these options.'] };
  requireWritable(options.fstab);
  verifyTable(edited);
  const backup = backupPath(options.stateDir, 'fstab', options.fstab);
  saveBackup(backup, { fstab: options.fstab, mountPoint: options.mountPoint, content: fileSnapshot(options.fstab) });
  const notes: string[] = [];
  try {
    notes.push(...replaceFile(options.fstab, edited));
    const now = findMount(readFileSync(options.fstab, 'utf8').split('\n'), options.mountPoint).fields[3];
    const expected = preview.changes[preview.changes.length - 1]?.to;
    if (now !== expected)
      throw new PipefillError(
        'verify-failed',
        `The table reads back ${now ?? '(nothing)'} for ${options.mountPoint}, not ${expected ?? '?'}.`,
        'Another program may have written the file meanwhile.',
      );
  } catch (error) {
    throw undoFailedApply(error, {
      what: options.fstab,
      where: options.fstab,
      backup,
      rollback: () => rollbackFstab(options),
      undo: `pipefill apply --rollback --target fstab --fstab ${options.fstab} --mount-point ${options.mountPoint}`,
    });
  }
  return {
    preview,
    applied: true,
    verified: true,
    backup,
    notes: [
      ...notes,
      `The mount takes the new options when it is next mounted (umount ${options.mountPoint} && mount ${options.mountPoint}).`,
      `Undo: pipefill apply --rollback --target fstab --fstab ${options.fstab} --mount-point ${options.mountPoint}`,
    ],
  };
}

export function rollbackFstab(options: FstabOptions): ApplyOutcome {
  const path = backupPath(options.stateDir, 'fstab', options.fstab);
  const backup = loadBackup(path, FstabBackupSchema);
  if (fileIdentity(backup.fstab) !== fileIdentity(options.fstab))
    throw new PipefillError(
      'bad-backup',
      `The backup ${path} is for ${backup.fstab}, not ${options.fstab}; nothing was restored.`,
      'Pass the same --fstab as when applying.',
    );
  const notes = restoreFile(backup.fstab, backup.content);
  const verified = matchesSnapshot(backup.fstab, backup.content);
  if (verified) dropBackup(path);
  return {
    preview: { target: 'fstab', where: backup.fstab, changes: [], steps: [`restore ${backup.fstab} byte for byte`] },
    applied: true,
    verified,
    notes: [
      ...notes,
      verified ? `Restored: ${backup.fstab} is byte-identical to before.` : `${backup.fstab} did not read back as before; the backup stays at ${path}.`,
    ],
  };
}
