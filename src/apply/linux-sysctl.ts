// Applying TCP buffer maxima to this Linux machine (this network namespace:
// the net.ipv4 TCP sysctls are per namespace): live values through /proc/sys
// and a file in /etc/sysctl.d so they survive a reboot. The backup holds the
// live values and the file's exact bytes (or that it did not exist).

import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { RecommendationOut } from '../contract/recommend.js';
import { PipefillError } from '../model/errors.js';
import type { ApplyOutcome, Change, Preview } from './plan.js';
import { trustedRecommendations, hasControl } from './trusted.js';
import {
  backupPath,
  dropBackup,
  fileIdentity,
  FileSnapshotSchema,
  fileSnapshot,
  loadBackup,
  matchesSnapshot,
  requireRoot,
  restoreFile,
  saveBackup,
  undoFailedApply,
} from './plan.js';
import { replaceFile } from '../platform/safe-file.js';

export const DEFAULT_SYSCTL_CONF = '/etc/sysctl.d/90-pipefill.conf';

/** Knob id -> sysctl key, for the knobs this target applies. */
const SYSCTLS: Readonly<Record<string, string>> = {
  'linux.tcp-rmem': 'net.ipv4.tcp_rmem',
  'linux.tcp-wmem': 'net.ipv4.tcp_wmem',
  'linux.rmem-max': 'net.core.rmem_max',
  'linux.wmem-max': 'net.core.wmem_max',
  'linux.congestion-control': 'net.ipv4.tcp_congestion_control',
};

export interface SysctlOptions {
  readonly confPath: string;
  readonly stateDir: string;
  /** /proc/sys, or another root for tests of the pure parts. */
  readonly procRoot?: string;
}

const SysctlBackupSchema = z
  .object({
    confPath: z.string(),
    conf: FileSnapshotSchema,
    // Only the sysctls this target changes, with values a sysctl holds: numbers, or a name.
    // A partial record: zod's record over an enum would demand every key.
    live: z.record(
      z.string().refine((key) => Object.values(SYSCTLS).includes(key), 'not a sysctl Pipefill changes'),
      z.string().regex(/^(\d+( \d+){0,2}|[a-z0-9_]{1,32})$/),
    ),
  })
  .strict();
type SysctlBackup = z.infer<typeof SysctlBackupSchema>;

const procPath = (root: string, key: string) => `${root}/${key.replace(/\./g, '/')}`;
const readLive = (root: string, key: string) => readFileSync(procPath(root, key), 'utf8').trim().replace(/\s+/g, ' ');

/** The new value of a sysctl: the maximum replaced in a `min default max` triple, else the value itself. */
function nextValue(current: string, value: RecommendationOut['value']): string {
  const fields = current.split(' ');
  return fields.length === 3 ? `${fields[0]} ${fields[1]} ${String(value)}` : String(value);
}

export function planSysctl(untrusted: readonly RecommendationOut[], options: SysctlOptions): { preview: Preview; values: Record<string, string> } {
  const recommendations = trustedRecommendations(untrusted);
  const root = options.procRoot ?? '/proc/sys';
  const changes: Change[] = [];
  const values: Record<string, string> = {};
  for (const r of recommendations) {
    const key = SYSCTLS[r.id];
    if (!key) continue;
    const from = readLive(root, key);
    const to = nextValue(from, r.value);
    if (from === to) continue;
    values[key] = to;
    changes.push({ knob: r.id, name: key, from, to, command: `${key} = ${to}` });
  }
  return {
    values,
    preview: {
      target: 'linux',
      where: options.confPath,
      changes,
      steps: [
        `back up the live values and ${options.confPath}`,
        ...Object.entries(values).map(([key, value]) => `sysctl -w ${key}="${value}"`),
        `write ${options.confPath}`,
        'read the values back',
      ],
    },
  };
}

function confText(values: Readonly<Record<string, string>>): string {
  // The values were checked per knob; this is the last line of defence before a root-owned file.
  for (const [key, value] of Object.entries(values))
    if (hasControl(key) || hasControl(value))
      throw new PipefillError(
        'bad-input',
        `Refusing to write ${JSON.stringify(key)}: its value holds a control character.`,
        'Produce the recommendations again with `pipefill recommend --json`.',
      );
  return `# Written by Pipefill (pipefill apply --target linux). Undo: pipefill apply --rollback --target linux\n${Object.entries(values)
    .map(([key, value]) => `${key} = ${value}`)
    .join('\n')}\n`;
}

function setLive(root: string, values: Readonly<Record<string, string>>): void {
  for (const [key, value] of Object.entries(values)) writeFileSync(procPath(root, key), value);
}

export function applySysctl(recommendations: readonly RecommendationOut[], options: SysctlOptions): ApplyOutcome {
  const root = options.procRoot ?? '/proc/sys';
  const { preview, values } = planSysctl(recommendations, options);
  if (preview.changes.length === 0) return { preview, applied: false, verified: true, notes: ['Nothing to change: the values are already set.'] };
  requireRoot('Changing sysctls', `pipefill apply --target linux ...`);
  const backup = backupPath(options.stateDir, 'linux', options.confPath);
  const live = Object.fromEntries(Object.keys(values).map((key) => [key, readLive(root, key)]));
  saveBackup(backup, { confPath: options.confPath, conf: fileSnapshot(options.confPath), live } satisfies SysctlBackup);
  try {
    setLive(root, values);
    replaceFile(options.confPath, confText(values), { newMode: 0o644 });
    const wrong = Object.entries(values).filter(([key, value]) => readLive(root, key) !== value);
    if (wrong.length > 0)
      throw new PipefillError(
        'verify-failed',
        `The kernel did not take ${wrong.map(([key]) => key).join(', ')}.`,
        'The values may be above a limit of this kernel.',
      );
  } catch (error) {
    throw undoFailedApply(error, {
      what: `the live values and ${options.confPath}`,
      where: options.confPath,
      backup,
      rollback: () => rollbackSysctl(options),
      undo: `pipefill apply --rollback --target linux --sysctl-conf ${options.confPath}`,
    });
  }
  return {
    preview,
    applied: true,
    verified: true,
    backup,
    notes: [`Live now and from ${options.confPath} after a reboot. Undo: pipefill apply --rollback --target linux`],
  };
}

export function rollbackSysctl(options: SysctlOptions): ApplyOutcome {
  const root = options.procRoot ?? '/proc/sys';
  const path = backupPath(options.stateDir, 'linux', options.confPath);
  const backup = loadBackup(path, SysctlBackupSchema);
  // The backup's name is derived from the file; one that names another file was not written for this one.
  if (fileIdentity(backup.confPath) !== fileIdentity(options.confPath))
    throw new PipefillError(
      'bad-backup',
      `The backup ${path} is for ${backup.confPath}, not ${options.confPath}; nothing was restored.`,
      'Pass the same --sysctl-conf as when applying.',
    );
  requireRoot('Restoring sysctls', 'pipefill apply --rollback --target linux');
  const changes = Object.entries(backup.live).map(([key, value]) => ({
    knob: key,
    name: key,
    from: readLive(root, key),
    to: value,
    command: `sysctl -w ${key}="${value}"`,
  }));
  setLive(root, backup.live);
  restoreFile(backup.confPath, backup.conf);
  const verified = Object.entries(backup.live).every(([key, value]) => readLive(root, key) === value) && matchesSnapshot(backup.confPath, backup.conf);
  if (verified) dropBackup(path);
  return {
    preview: {
      target: 'linux',
      where: backup.confPath,
      changes,
      steps: ['restore the live values', backup.conf === null ? `remove ${backup.confPath}` : `restore ${backup.confPath}`],
    },
    applied: true,
    verified,
    notes: verified ? ['Restored: the live values and the file are as they were.'] : [`Not everything read back as before; the backup stays at ${path}.`],
  };
}
