// A path MTU black hole to test against (issue 52): four network namespaces
// of the test's own, a client, two routers and a server, joined by veth
// pairs. The link between the routers carries 1400 bytes (or the MTU given)
// while the ends' interfaces say 1500, and the routers' own ICMP messages are
// dropped, as a firewall that drops ICMP does. So a 1500-byte packet either
// way is refused by the router before the hop and its "fragmentation needed"
// never arrives: full-size packets vanish both ways while small ones pass. Plain kernel forwarding, no shaping: the
// round trip is a fraction of a millisecond.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { inNamespace, run } from './lab-system.js';

/** The router's routing table for its own ICMP: a black hole. */
const ROUTER_ICMP_TABLE = '100';

export interface MtuHole {
  /** The namespace the client (Pipefill) runs in: `ip netns exec <client> ...`. */
  readonly client: string;
  /** The namespace for the server, and its address there. */
  readonly server: string;
  readonly serverAddress: string;
  /** Removes the namespaces (and with them their veths); never throws. */
  down(): void;
}

/** Whether this machine can build one: Linux, root, and iproute2's `ip`. */
export function canMakeMtuHole(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0 && ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip'].some(existsSync);
}

/**
 * Builds the four namespaces, client, two routers and server, the routers
 * joined by a hop of `hopMtu` bytes; names and addresses from this process's
 * PID, so parallel test files never meet. Two routers, so each direction
 * meets a router forwarding into the smaller link: a veth whose two ends
 * differ lets the kernel's segmentation-offloaded packets through unchecked.
 */
export function mtuHoleUp(hopMtu = 1400): MtuHole {
  if (!(Number.isInteger(hopMtu) && hopMtu >= 1280 && hopMtu < 1500)) throw new RangeError('The hop MTU is a whole number from 1280 to 1499.');
  const id = process.pid % 100_000;
  const net = `10.78.${process.pid % 250}`;
  const [client, near, far, server] = ['c', 'a', 'b', 's'].map((role) => `pf-mtu${role}-${id}`) as [string, string, string, string];
  const namespaces = [client, near, far, server];
  const made: string[] = [];
  // Only what this call made: a namespace of the same name that was there before is not ours (ip netns add refuses it).
  const down = () => {
    for (const namespace of made) spawnSync('ip', ['netns', 'delete', namespace], { stdio: 'ignore' });
  };
  try {
    for (const namespace of namespaces) {
      run('ip', ['netns', 'add', namespace]);
      made.push(namespace);
    }
    // Three links, each a /30: client-near (.0), near-far (.4, the hop), far-server (.8). Interface names stay under 16 characters.
    const links = [
      { ends: [client, near], names: [`pfmc${id}`, `pfma${id}`], subnet: 0, mtu: 1500 },
      { ends: [near, far], names: [`pfmab${id}`, `pfmba${id}`], subnet: 4, mtu: hopMtu },
      { ends: [far, server], names: [`pfmb${id}`, `pfms${id}`], subnet: 8, mtu: 1500 },
    ] as const;
    for (const link of links) {
      run('ip', ['link', 'add', link.names[0], 'netns', link.ends[0], 'type', 'veth', 'peer', 'name', link.names[1], 'netns', link.ends[1]]);
      for (const side of [0, 1] as const) {
        inNamespace(link.ends[side], 'ip', ['addr', 'add', `${net}.${link.subnet + 1 + side}/30`, 'dev', link.names[side]]);
        inNamespace(link.ends[side], 'ip', ['link', 'set', link.names[side], 'mtu', String(link.mtu), 'up']);
      }
    }
    for (const namespace of namespaces) inNamespace(namespace, 'ip', ['link', 'set', 'lo', 'up']);
    inNamespace(client, 'ip', ['route', 'add', 'default', 'via', `${net}.2`]);
    inNamespace(near, 'ip', ['route', 'add', `${net}.8/30`, 'via', `${net}.6`]);
    inNamespace(far, 'ip', ['route', 'add', `${net}.0/30`, 'via', `${net}.5`]);
    inNamespace(server, 'ip', ['route', 'add', 'default', 'via', `${net}.9`]);
    for (const router of [near, far]) {
      inNamespace(router, 'sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
      // The ICMP each router itself sends is dropped ("fragmentation needed" never arrives; ICMP forwarded between the
      // ends still passes): its own packets (iif lo) of protocol ICMP are routed to a black hole. Policy routing rather
      // than a tc filter, whose drop action is a module a kernel may lack.
      inNamespace(router, 'ip', ['route', 'add', 'blackhole', 'default', 'table', ROUTER_ICMP_TABLE]);
      inNamespace(router, 'ip', ['rule', 'add', 'iif', 'lo', 'ipproto', 'icmp', 'lookup', ROUTER_ICMP_TABLE]);
    }
    return { client, server, serverAddress: `${net}.10`, down };
  } catch (error) {
    down();
    throw error;
  }
}
