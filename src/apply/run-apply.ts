// The services' side of the contract's apply call (src/contract/apply.ts):
// which applier a target goes to, and what a preview, an apply and a rollback
// each do there. The front end asks and confirms; this does. Every path is
// the person's own (or the applier's default), every recommendation is
// checked against the catalogue before it is shown or written.

import type { ApplyInput, ApplyOutcomeOut } from '../contract/apply.js';
import { ApplyInputSchema } from '../contract/apply.js';
import { PipefillInputError } from '../model/errors.js';
import { applyFstab, DEFAULT_FSTAB, planFstab, rollbackFstab } from './cifs-fstab.js';
import { exportTarget } from './export-scripts.js';
import { applySysctl, DEFAULT_SYSCTL_CONF, planSysctl, rollbackSysctl } from './linux-sysctl.js';
import type { ApplyOutcome, Preview } from './plan.js';
import { defaultStateDir } from './plan.js';
import { applySamba, planSamba, rollbackSamba } from './samba-conf.js';
import { trustedRecommendations } from './trusted.js';

/** A preview as an outcome: nothing applied, and why. */
const previewOnly = (preview: Preview): ApplyOutcome => ({
  preview,
  applied: false,
  verified: true,
  notes: [preview.changes.length === 0 ? 'Nothing to change.' : 'Dry run: nothing was changed.'],
});

/** What the person's input names, or a clear error for what a target needs and was not given. */
function pathsOf(input: ReturnType<typeof ApplyInputSchema.parse>) {
  const stateDir = input.stateDir ?? defaultStateDir();
  if (input.target === 'samba' && input.smbConf === undefined)
    throw new PipefillInputError('--target samba needs --smb-conf PATH.', 'Name the smb.conf to change.');
  if (input.target === 'fstab' && input.mountPoint === undefined)
    throw new PipefillInputError('--target fstab needs --mount-point DIR (the cifs mount to change).', 'Name the mount point of the share in the table.');
  return {
    stateDir,
    smbConf: input.smbConf ?? '',
    sysctl: { confPath: input.sysctlConf ?? DEFAULT_SYSCTL_CONF, stateDir },
    fstab: { fstab: input.fstab ?? DEFAULT_FSTAB, mountPoint: input.mountPoint ?? '', stateDir },
  };
}

/** An applier's outcome as the contract carries it. */
function outOf(outcome: ApplyOutcome): ApplyOutcomeOut {
  const { preview, written, backup } = outcome;
  return {
    preview: { ...preview, changes: preview.changes.map((change) => ({ ...change })), steps: [...preview.steps] },
    applied: outcome.applied,
    verified: outcome.verified,
    ...(backup === undefined ? {} : { backup }),
    ...(written === undefined ? {} : { written: [...written] }),
    notes: [...outcome.notes],
  };
}

/** Previews, applies or rolls back, as the input asks. */
export function runApply(untrusted: ApplyInput): ApplyOutcomeOut {
  return outOf(applyOutcome(untrusted));
}

function applyOutcome(untrusted: ApplyInput): ApplyOutcome {
  const input = ApplyInputSchema.parse(untrusted);
  const { stateDir, smbConf, sysctl, fstab } = pathsOf(input);
  const { target } = input;
  if (input.action === 'rollback') {
    if (target === 'linux') return rollbackSysctl(sysctl);
    if (target === 'fstab') return rollbackFstab(fstab);
    if (target === 'samba') return rollbackSamba(smbConf, stateDir);
    throw new PipefillInputError(
      `--rollback works for linux, samba and fstab; for ${target}, run the exported script's undo.`,
      'Run the script with its undo.',
    );
  }
  const recommendations = trustedRecommendations(input.recommendations);
  // Scripts for another machine: writing them is the whole action (a preview writes nothing).
  if (target === 'windows' || target === 'ontap' || target === 'macos')
    return exportTarget(target, recommendations, input.outDir ?? '.', { dryRun: input.action === 'preview' });
  if (input.action === 'preview') {
    const preview =
      target === 'linux'
        ? planSysctl(recommendations, sysctl).preview
        : target === 'fstab'
          ? planFstab(recommendations, fstab).preview
          : planSamba(recommendations, smbConf).preview;
    return previewOnly(preview);
  }
  return target === 'linux'
    ? applySysctl(recommendations, sysctl)
    : target === 'fstab'
      ? applyFstab(recommendations, fstab)
      : applySamba(recommendations, smbConf, stateDir);
}
