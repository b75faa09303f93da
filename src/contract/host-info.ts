// What the service behind a front end offers: which shell it is, and a demo
// share when `pipefill ui --demo` (or `npm start`) started one on loopback,
// so a newcomer can run an assessment without a file server of their own.

import { z } from 'zod';

export const HostInfoSchema = z.object({
  shell: z.enum(['web', 'electron', 'cli']),
  version: z.string(),
  demo: z
    .object({
      share: z.string(),
      user: z.string(),
      /** A throwaway password for a loopback-only Samba server that Pipefill started and will stop. */
      password: z.string(),
      iperf: z.string().optional(),
    })
    .optional(),
});
export type HostInfo = z.infer<typeof HostInfoSchema>;
