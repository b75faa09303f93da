// pipefill apply: previews the changes, asks (unless --yes), backs up,
// applies, reads back; --rollback restores the exact previous state. Linux
// sysctls and a reachable Samba smb.conf are changed here; Windows, ONTAP and
// macOS get scripts to run there.

import { readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { PipefillApi } from '../../contract/api.js';
import type { RecommendationOut, RecommendResult } from '../../contract/recommend.js';
import { RecommendResultSchema } from '../../contract/recommend.js';
import { checkReportSize, ReportSchema } from '../../contract/report.js';
import type { ClientProfileId } from '../../model/client-profiles.js';
import { CLIENT_PROFILE_IDS } from '../../model/client-profiles.js';
import { PipefillInputError } from '../../model/errors.js';
import { runWindowsScript } from '../../apply/export-scripts.js';
import { DEFAULT_SYSCTL_CONF } from '../../apply/linux-sysctl.js';
import type { ApplyOutcomeOut, ApplyTarget } from '../../contract/apply.js';
import { APPLY_TARGETS, requireRoot } from '../../apply/plan.js';
import { trustedRecommendations } from '../../apply/trusted.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';

export const APPLY_USAGE = `pipefill apply --target <linux|samba|fstab|windows|ontap|macos> --from <recommend.json|report.json> [--smb-conf PATH]
  [--fstab PATH --mount-point DIR] [--include-protection] [--client <id>] [--dry-run] [--yes] [--json] [--out DIR]
  [--sysctl-conf PATH] [--state-dir DIR]
pipefill apply --rollback --target <linux|samba|fstab> [--smb-conf PATH] [--fstab PATH --mount-point DIR] [--yes] [--json]
  Shows each change (current -> new), asks, backs up, applies, and reads the values back; a failure
  rolls back what was done. linux: this machine's TCP sysctls (live and ${DEFAULT_SYSCTL_CONF}),
  as root. samba: the smb.conf given (checked with testparm first), then smbd reloads. fstab: the cifs
  mount options (seal, multichannel, rsize...) of one /etc/fstab line, checked with findmnt --verify;
  the mount takes them at its next mount. windows:
  writes pipefill-apply.ps1 (records the previous values; -Rollback restores them) and a .reg file;
  ontap, macos: the commands and their undo, to run by hand. --include-protection also applies the
  signing and encryption settings that recommend lists apart with their cost (never weaker ones).`;

const OPTIONS = {
  target: { type: 'string' },
  from: { type: 'string' },
  'smb-conf': { type: 'string' },
  client: { type: 'string' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
  rollback: { type: 'boolean' },
  out: { type: 'string' },
  'sysctl-conf': { type: 'string' },
  'state-dir': { type: 'string' },
  'include-protection': { type: 'boolean' },
  fstab: { type: 'string' },
  'mount-point': { type: 'string' },
} as const;

const DEFAULT_CLIENT: Readonly<Record<ApplyTarget, ClientProfileId>> = {
  linux: 'linux-cifs',
  fstab: 'linux-cifs',
  samba: 'win10-smb3',
  windows: 'win10-smb3',
  ontap: 'win10-smb3',
  macos: 'win10-smb3',
};

function parseTarget(text: string | undefined): ApplyTarget {
  if (text === undefined || !(APPLY_TARGETS as readonly string[]).includes(text))
    throw new PipefillInputError(
      `--target must be one of ${APPLY_TARGETS.join(', ')}${text === undefined ? '' : `, not ${JSON.stringify(text)}`}.`,
      APPLY_USAGE,
    );
  return text as ApplyTarget;
}

/** Recommendations from a `recommend --json` file, or computed from an assessment report. */
async function loadRecommendations(
  path: string,
  target: ApplyTarget,
  client: ClientProfileId | undefined,
  smbConf: string | undefined,
  api: PipefillApi,
  includeProtection: boolean,
): Promise<RecommendationOut[]> {
  let json: unknown;
  try {
    checkReportSize(statSync(path).size, path);
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    if (error instanceof PipefillInputError) throw error;
    throw new PipefillInputError(
      `Cannot read ${path} as JSON: ${error instanceof Error ? error.message : String(error)}.`,
      'Give the output of `pipefill recommend --json`, or an assessment report.',
    );
  }
  const recommended = RecommendResultSchema.safeParse(json);
  // Checked against the catalogue here, before any preview: a file from elsewhere is not code.
  if (recommended.success) return trustedRecommendations([...recommended.data.recommendations, ...(includeProtection ? recommended.data.protections : [])]);
  const report = ReportSchema.safeParse(json);
  if (!report.success)
    throw new PipefillInputError(`${path} is neither recommendations (pipefill recommend --json) nor an assessment report.`, 'Give one of those two.');
  const result: RecommendResult = await api.recommend({
    report: report.data,
    client: client ?? DEFAULT_CLIENT[target],
    server: target === 'samba' ? 'samba' : report.data.options.server,
    ...(smbConf ? { smbConf } : {}),
  });
  return [...result.recommendations, ...(includeProtection ? result.protections : [])];
}

export function formatPreview(preview: ApplyOutcomeOut['preview']): string {
  const changes =
    preview.changes.length === 0 ? ['  (no changes)'] : preview.changes.flatMap((c) => [`  ${c.name}: ${c.from} -> ${c.to}`, `      ${c.command}`]);
  return [`${preview.target}: ${preview.where}`, ...changes, 'Steps:', ...preview.steps.map((step, index) => `  ${index + 1}. ${step}`)].join('\n');
}

function formatOutcome(outcome: ApplyOutcomeOut): string {
  const status = outcome.written
    ? `Written: ${outcome.written.join(', ')}`
    : outcome.applied
      ? outcome.verified
        ? 'Applied and read back.'
        : 'Applied, but not everything read back.'
      : 'Nothing was changed.';
  return [status, ...outcome.notes].join('\n');
}

async function confirm(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY) throw new PipefillInputError('Not applied: there is no terminal to ask on.', 'Review the preview (--dry-run), then pass --yes.');
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

export async function applyCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, APPLY_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, APPLY_USAGE);
  const target = parseTarget(optional(values, 'target'));
  const smbConf = optional(values, 'smb-conf');
  if (target === 'samba' && smbConf === undefined) throw new PipefillInputError('--target samba needs --smb-conf PATH.', APPLY_USAGE);
  const mountPoint = optional(values, 'mount-point');
  if (target === 'fstab' && mountPoint === undefined)
    throw new PipefillInputError('--target fstab needs --mount-point DIR (the cifs mount to change).', APPLY_USAGE);
  // The paths the person named, as the contract's apply call takes them (the services fill in the defaults).
  const named = (key: string, option: string) => (optional(values, option) === undefined ? {} : { [key]: optional(values, option) });
  const where = {
    target,
    ...named('smbConf', 'smb-conf'),
    ...named('sysctlConf', 'sysctl-conf'),
    ...named('fstab', 'fstab'),
    ...named('mountPoint', 'mount-point'),
    ...named('stateDir', 'state-dir'),
    ...named('outDir', 'out'),
  };
  // What changes this machine says so before anything starts (issue 49); a preview (--dry-run) needs no root.
  if (target === 'linux' && values['dry-run'] !== true) requireRoot("Changing this machine's TCP settings", `pipefill apply ${argv.join(' ')}`);
  const show = (outcome: ApplyOutcomeOut) =>
    values.json ? printJson(output, outcome) : output.out(`${formatPreview(outcome.preview)}\n\n${formatOutcome(outcome)}`);

  if (values.rollback === true) {
    if (target !== 'linux' && target !== 'samba' && target !== 'fstab')
      throw new PipefillInputError(`--rollback works for linux, samba and fstab; for ${target}, run the exported script's undo.`, APPLY_USAGE);
    if (!(await confirm(`Restore the state from before Pipefill's last apply (${target})?`, values.yes === true))) return;
    show(await api.apply({ ...where, action: 'rollback' }));
    return;
  }

  const from = optional(values, 'from');
  if (from === undefined) throw new PipefillInputError('--from is required: recommendations (pipefill recommend --json) or a report.', APPLY_USAGE);
  const client = optional(values, 'client');
  if (client !== undefined && !(CLIENT_PROFILE_IDS as readonly string[]).includes(client))
    throw new PipefillInputError(`Unknown client ${JSON.stringify(client)}.`, `Valid: ${CLIENT_PROFILE_IDS.join(', ')}.`);
  const recommendations = await loadRecommendations(from, target, client as ClientProfileId | undefined, smbConf, api, values['include-protection'] === true);
  const dryRun = values['dry-run'] === true;

  if (target === 'windows' || target === 'ontap' || target === 'macos') {
    // Writing the scripts is the whole action (a dry run writes nothing).
    const exported = await api.apply({ ...where, action: dryRun ? 'preview' : 'apply', recommendations });
    // On Windows itself the script runs here (elevated or it refuses); elsewhere writing it is the whole action.
    const script = exported.written?.[0];
    if (target === 'windows' && process.platform === 'win32' && script && (await confirm('Run the script now?', values.yes === true))) {
      show({ ...exported, applied: true, verified: true, notes: [...runWindowsScript(script), `Undo: powershell -File ${script} -Rollback`] });
      return;
    }
    show(exported);
    return;
  }

  const previewed = await api.apply({ ...where, action: 'preview', recommendations });
  if (dryRun || previewed.preview.changes.length === 0) {
    show(previewed);
    return;
  }
  if (!values.json) output.err(formatPreview(previewed.preview));
  if (!(await confirm('Apply these changes?', values.yes === true))) {
    output.err('Not applied.');
    return;
  }
  show(await api.apply({ ...where, action: 'apply', recommendations }));
}
