// Congestion control in the lab: what its servers send with, a namespace's
// default and its route's, and the host-wide list a namespace's default must
// come from. Names are checked before they reach a sysctl or a route.

import { readFileSync, writeFileSync } from 'node:fs';
import { PipefillError } from '../model/errors.js';
import { BRANCH_ADDRESS, DATACENTER_ADDRESS, DEVICE, NAMESPACE_PREFIX } from './lab-network.js';
import { run } from './lab-system.js';

/**
 * What the lab's servers (smbd, iperf3) send with unless told otherwise:
 * CUBIC, a stock Linux file server's default and what the samba server
 * profile assumes. The namespace would otherwise inherit the host's default,
 * which on these machines is BBR; a BBR sender paces a synchronous reader's
 * replies (XP's 60 KB reads ran 1.5 round trips each, 3.0 s for 1 MiB at
 * 52 Mb/s / 75 ms against CUBIC's 2.5 s) and drains its queue to four
 * packets every ten seconds (ProbeRTT: a 1 MiB read at 80 Mb/s / 45 ms took
 * 0.70 s instead of 0.40 in 3 of 14 runs), neither of which that profile
 * has. Set on the datacenter's route to the branch, so no host-wide list
 * of allowed congestion controls has to change.
 */
export const SERVER_CONGESTION = 'cubic';

/** A congestion control's name, checked before it reaches a sysctl or a route. */
export function checkedCongestion(congestion: string): string {
  if (!/^[a-z0-9_]{1,16}$/.test(congestion))
    throw new PipefillError('bad-input', `Not a congestion control name: ${JSON.stringify(congestion)}.`, 'For example cubic or reno.');
  return congestion;
}

/**
 * The congestion control of a lab namespace's route to its peer: its sockets to the other side use it, whatever the namespace's default.
 * `ackEverySegment` adds the route's `quickack 1`: its sockets ACK each segment as it arrives, whether or not their process has read it.
 */
export function setRouteCongestion(namespace: string, congestion: string, ackEverySegment = false): void {
  checkedCongestion(congestion);
  const [peer, local] = namespace.startsWith(`${NAMESPACE_PREFIX}dc-`) ? [BRANCH_ADDRESS, DATACENTER_ADDRESS] : [DATACENTER_ADDRESS, BRANCH_ADDRESS];
  run('ip', [
    '-n',
    namespace,
    'route',
    'replace',
    peer,
    'dev',
    DEVICE,
    'proto',
    'kernel',
    'scope',
    'link',
    'src',
    local,
    'congctl',
    congestion,
    ...(ackEverySegment ? ['quickack', '1'] : []),
  ]);
}

/**
 * Sets a lab namespace's congestion control: its default (new sockets take
 * it; net.ipv4 sysctls are per namespace) and its route to the other side,
 * which the lab's servers' sockets follow (SERVER_CONGESTION). With
 * `ackEverySegment`, that route's sockets also ACK every segment at once
 * (see setRouteCongestion), for tests that must not see this machine's
 * scheduling in the ACK stream (src/lab/queue.lab.int.test.ts says why).
 */
export function setCongestion(namespace: string, congestion: string, options: { readonly ackEverySegment?: boolean } = {}): void {
  checkedCongestion(congestion);
  run('ip', ['netns', 'exec', namespace, 'sysctl', '-q', '-w', `net.ipv4.tcp_congestion_control=${congestion}`]);
  setRouteCongestion(namespace, congestion, options.ackEverySegment ?? false);
}

const ALLOWED_CONGESTION = '/proc/sys/net/ipv4/tcp_allowed_congestion_control';

/**
 * Runs `body` with `congestion` allowed as a namespace default. Linux lets a
 * namespace other than the first default only to a congestion control in
 * net.ipv4.tcp_allowed_congestion_control, a host-wide list (a kernel whose
 * default is BBR may leave CUBIC out of it). When it is missing, it is added
 * for the run and the list is put back exactly as it was, even on failure.
 */
export async function withCongestionAllowed<T>(congestion: string, body: (changedHost: boolean) => Promise<T>): Promise<T> {
  const before = readFileSync(ALLOWED_CONGESTION, 'utf8').trim();
  if (before.split(/\s+/).includes(congestion)) return body(false);
  writeFileSync(ALLOWED_CONGESTION, `${before} ${congestion}`);
  try {
    return await body(true);
  } finally {
    writeFileSync(ALLOWED_CONGESTION, before);
  }
}
