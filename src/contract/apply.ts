// Applying recommendations to this machine, through the contract: a preview
// (each change from what to what, on which target), the change with a backup
// and a check that it took, or a rollback to the state before Pipefill's last
// apply. A local-only call: it changes the machine the services run on, so
// the CLI on that machine asks for it, and neither the web mode nor the
// Electron page may (transport.ts, LOCAL_ONLY_METHODS). The recommendations
// are checked against the knob catalogue by the services before anything is
// shown or written: a file from elsewhere is not code.

import { z } from 'zod';
import { RecommendationSchema } from './recommendation.js';

export const APPLY_TARGETS = ['linux', 'samba', 'fstab', 'windows', 'ontap', 'macos'] as const;
export type ApplyTarget = (typeof APPLY_TARGETS)[number];

export const ApplyInputSchema = z
  .object({
    target: z.enum(APPLY_TARGETS),
    /** preview: nothing changes; apply: back up, change, read back; rollback: restore the backup of the last apply. */
    action: z.enum(['preview', 'apply', 'rollback']),
    recommendations: z.array(RecommendationSchema).default([]),
    /** samba: the smb.conf to change. */
    smbConf: z.string().min(1).optional(),
    /** linux: the sysctl file Pipefill writes (default /etc/sysctl.d/90-pipefill.conf). */
    sysctlConf: z.string().min(1).optional(),
    /** fstab: the table, and the cifs mount in it to change. */
    fstab: z.string().min(1).optional(),
    mountPoint: z.string().min(1).optional(),
    /** Where backups are kept (default: /var/lib/pipefill/apply as root, else the user's state folder). */
    stateDir: z.string().min(1).optional(),
    /** windows, ontap, macos: the folder the scripts are written to. */
    outDir: z.string().min(1).optional(),
  })
  .strict();
export type ApplyInput = z.input<typeof ApplyInputSchema>;

export const ApplyOutcomeSchema = z.object({
  preview: z.object({
    target: z.enum(APPLY_TARGETS),
    /** Where: the smb.conf, the sysctl file, the script written. */
    where: z.string(),
    changes: z.array(z.object({ knob: z.string(), name: z.string(), from: z.string(), to: z.string(), command: z.string() })),
    /** What Pipefill runs, in order. */
    steps: z.array(z.string()),
  }),
  applied: z.boolean(),
  verified: z.boolean(),
  /** The backup a rollback restores. */
  backup: z.string().optional(),
  /** The files written for a person to run. */
  written: z.array(z.string()).optional(),
  notes: z.array(z.string()),
});
export type ApplyOutcomeOut = z.infer<typeof ApplyOutcomeSchema>;
