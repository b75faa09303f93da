// What the service behind a front end offers: which shell it is, and a demo
// share when `pipefill ui --demo` (or `npm start`) started one (behind the
// WAN lab's branch link where the machine allows it, else on loopback),
// so a newcomer can run an assessment without a file server of their own.

import { z } from 'zod';
import { formatDuration, formatRate } from '../model/units.js';

export const HostInfoSchema = z.object({
  shell: z.enum(['web', 'electron', 'cli']),
  version: z.string(),
  /** The Kerberos ticket the person holds on the machine the service runs on: a share named by its server logs on with it, no password (issue 50). */
  kerberos: z.object({ principal: z.string().max(256) }).optional(),
  demo: z
    .object({
      share: z.string(),
      user: z.string(),
      /** A throwaway password for a loopback-only Samba server that Pipefill started and will stop. */
      password: z.string(),
      iperf: z.string().optional(),
      /**
       * Where the demo share sits: on this machine (loopback: nothing between
       * the client and it), or behind the WAN lab's emulated branch link with
       * a server setting that holds copies back. Absent from an older host: loopback.
       */
      path: z
        .discriminatedUnion('kind', [
          z.object({ kind: z.literal('loopback') }),
          z.object({
            kind: z.literal('branch'),
            bandwidthBitsPerSecond: z.number().positive(),
            rttMs: z.number().positive(),
            serverSetting: z.string().max(200),
          }),
        ])
        .optional(),
    })
    .optional(),
});
export type HostInfo = z.infer<typeof HostInfoSchema>;

/** What the Start view says of the demo share: where it sits and what to expect of it. */
export function describeDemo(demo: NonNullable<HostInfo['demo']>): string {
  const path = demo.path ?? { kind: 'loopback' as const };
  if (path.kind === 'branch') {
    return `The demo share (${demo.share}) is a Samba server Pipefill started for this session behind an emulated branch link (${formatRate(path.bandwidthBitsPerSecond)}, ${formatDuration(path.rttMs)} round trip; real TCP in network namespaces), set to ${path.serverSetting}, which holds a client to fewer requests at once than Samba's default. Assess it and see what Pipefill finds. It stops when Pipefill does.`;
  }
  return `The demo share (${demo.share}) is a Samba server Pipefill started on this machine for this session: nothing lies between you and it, so its copies should run as fast as this machine moves data, and the assessment says so. It stops when Pipefill does.`;
}
