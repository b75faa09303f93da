// Applying smb.conf settings to a Samba server whose configuration Pipefill
// can reach: the edited file is checked with testparm before it replaces the
// original, smbd is told to reload, and testparm reads the values back. The
// backup is the file's exact bytes.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { RecommendationOut } from '../contract/recommend.js';
import { PipefillError } from '../model/errors.js';
import { parseTestparmGlobals, SAMBA_PARAMETERS, testparm } from './current-values.js';
import type { ApplyOutcome, Change, Preview } from './plan.js';
import { hasControl, trustedRecommendations } from './trusted.js';
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
import { freshWorkDirectory, replaceFile } from '../platform/safe-file.js';

const SambaBackupSchema = z.object({ smbConf: z.string(), content: FileSnapshotSchema }).strict();
type SambaBackup = z.infer<typeof SambaBackupSchema>;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Sets `parameter = value` in [global]: replaces the line that sets it there
 * (spacing and case as Samba reads them), or adds it right after [global].
 * Other sections and comments stay as they are (pure).
 */
export function setGlobalParameter(text: string, parameter: string, value: string): string {
  // A newline in a value would open a section of its own ([evil] path = /): never written.
  if (hasControl(parameter) || hasControl(value))
    throw new PipefillError(
      'bad-input',
      `Refusing to write smb.conf parameter ${JSON.stringify(parameter)}: the value holds a line break or another control character.`,
      'Produce the recommendations again with `pipefill recommend --json`.',
    );
  const lines = text.split('\n');
  const words = parameter.split(/\s+/).map(escapeRegExp).join('\\s*');
  const matcher = new RegExp(`^\\s*${words}\\s*=`, 'i');
  let section = '';
  let globalHeader = -1;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const header = /^\s*\[(.+)\]\s*$/.exec(line);
    if (header) {
      section = header[1]?.trim().toLowerCase() ?? '';
      if (section === 'global' && globalHeader < 0) globalHeader = index;
      continue;
    }
    if (section === 'global' && matcher.test(line)) {
      lines[index] = `   ${parameter} = ${value}`;
      return lines.join('\n');
    }
  }
  if (globalHeader < 0) return `[global]\n   ${parameter} = ${value}\n${text}`;
  lines.splice(globalHeader + 1, 0, `   ${parameter} = ${value}`);
  return lines.join('\n');
}

const asConfValue = (value: RecommendationOut['value']) => (typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value));

export function planSamba(untrusted: readonly RecommendationOut[], smbConf: string): { preview: Preview; edited: string } {
  const recommendations = trustedRecommendations(untrusted);
  let original: string;
  try {
    original = readFileSync(smbConf, 'utf8');
  } catch (error) {
    throw new PipefillError(
      'bad-input',
      `Cannot read ${smbConf}: ${error instanceof Error ? error.message : String(error)}.`,
      "Point --smb-conf at the server's smb.conf.",
    );
  }
  const globals = parseTestparmGlobals(testparm(smbConf));
  let edited = original;
  const changes: Change[] = [];
  for (const r of recommendations) {
    const parameter = SAMBA_PARAMETERS[r.id];
    if (!parameter) continue;
    const to = asConfValue(r.value);
    const from = globals.get(parameter) ?? '(default)';
    if (from.toLowerCase() === to.toLowerCase()) continue;
    edited = setGlobalParameter(edited, parameter, to);
    changes.push({ knob: r.id, name: parameter, from, to, command: `${parameter} = ${to}` });
  }
  return {
    edited,
    preview: {
      target: 'samba',
      where: smbConf,
      changes,
      steps: [
        'check the edited file with testparm',
        `back up ${smbConf}`,
        `write ${smbConf}`,
        `smbcontrol --configfile=${resolve(smbConf)} smbd reload-config`,
        'read the values back with testparm',
      ],
    },
  };
}

/** testparm on the candidate before it replaces anything. */
function validate(next: string): void {
  // Named by this process, so the next apply clears what a killed one left (and only its own user's).
  const dir = freshWorkDirectory(tmpdir(), 'pipefill-smbconf');
  try {
    const file = join(dir, 'smb.conf');
    writeFileSync(file, next);
    testparm(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function reload(smbConf: string): string | undefined {
  const run = spawnSync('smbcontrol', [`--configfile=${resolve(smbConf)}`, 'smbd', 'reload-config'], { encoding: 'utf8', timeout: 15_000 });
  if (run.status === 0) return undefined;
  const output = `${run.stdout}${run.stderr}`.trim();
  // No smbd running for this configuration: the file is what it will read at start.
  if (/Can't find pid|No such process|not running/i.test(output) || run.error)
    return `smbd did not reload (${output || run.error?.message}); the new values apply when it next starts.`;
  throw new PipefillError('reload-failed', `smbcontrol could not reload smbd: ${output}`, 'Check that smbd runs with this smb.conf.');
}

export function applySamba(recommendations: readonly RecommendationOut[], smbConf: string, stateDir: string): ApplyOutcome {
  const { preview, edited } = planSamba(recommendations, smbConf);
  if (preview.changes.length === 0) return { preview, applied: false, verified: true, notes: ['Nothing to change: smb.conf already has these values.'] };
  validate(edited);
  const backup = backupPath(stateDir, 'samba', smbConf);
  saveBackup(backup, { smbConf, content: fileSnapshot(smbConf) } satisfies SambaBackup);
  const notes: string[] = [];
  try {
    notes.push(...replaceFile(smbConf, edited));
    const note = reload(smbConf);
    if (note) notes.push(note);
    const globals = parseTestparmGlobals(testparm(smbConf));
    const wrong = preview.changes.filter((change) => (globals.get(change.name) ?? '').toLowerCase() !== change.to.toLowerCase());
    if (wrong.length > 0)
      throw new PipefillError(
        'verify-failed',
        `testparm does not read back ${wrong.map((c) => c.name).join(', ')}.`,
        'An include or a share section may override them.',
      );
  } catch (error) {
    throw undoFailedApply(error, {
      what: 'smb.conf',
      where: smbConf,
      backup,
      rollback: () => rollbackSamba(smbConf, stateDir),
      undo: `pipefill apply --rollback --target samba --smb-conf ${smbConf}`,
    });
  }
  return { preview, applied: true, verified: true, backup, notes: [...notes, `Undo: pipefill apply --rollback --target samba --smb-conf ${smbConf}`] };
}

export function rollbackSamba(smbConf: string, stateDir: string): ApplyOutcome {
  const path = backupPath(stateDir, 'samba', smbConf);
  const backup = loadBackup(path, SambaBackupSchema);
  if (fileIdentity(backup.smbConf) !== fileIdentity(smbConf))
    throw new PipefillError(
      'bad-backup',
      `The backup ${path} is for ${backup.smbConf}, not ${smbConf}; nothing was restored.`,
      'Pass the same --smb-conf as when applying.',
    );
  const notes: string[] = restoreFile(backup.smbConf, backup.content);
  try {
    const note = reload(backup.smbConf);
    if (note) notes.push(note);
  } catch (error) {
    notes.push(`The file is restored but smbd did not reload: ${error instanceof Error ? error.message : String(error)}`);
  }
  const verified = matchesSnapshot(backup.smbConf, backup.content);
  if (verified) dropBackup(path);
  return {
    preview: { target: 'samba', where: backup.smbConf, changes: [], steps: [`restore ${backup.smbConf} byte for byte`, 'smbcontrol smbd reload-config'] },
    applied: true,
    verified,
    notes: [...notes, verified ? 'Restored: smb.conf is byte-identical to before.' : `smb.conf did not read back as before; the backup stays at ${path}.`],
  };
}
