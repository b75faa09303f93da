// The demo share behind a branch link: on Linux as root, `pipefill ui --demo`
// brings up the WAN lab (src/lab/wan-lab.ts) with a link a branch office
// has and a Samba setting that holds copies back, so a newcomer's first
// assessment finds a real limit with a real fix, measured on real kernel
// TCP. Elsewhere the demo is a loopback share (src/lab/loopback-servers.ts).

import { existsSync } from 'node:fs';
import type { HostInfo } from '../contract/host-info.js';
import { PipefillError } from '../model/errors.js';
import { sambaAvailable } from './samba.js';
import type { LabState } from './wan-lab.js';
import { labDown, labEndpoints, labUp, removeLabNow } from './wan-lab.js';

/**
 * The branch: 100 Mb/s and 40 ms, a regional office on a leased line, and a
 * Samba server that grants 16 credits (smb2 max credits = 16; Samba's
 * default is 8192). With 16 credits a Windows 11 client keeps one 1 MiB
 * request in flight, so each waits out a round trip the link could have
 * carried data in: the lab's default assessment here names the credits and
 * their fix with the time it saves, after the copy tool's threads for the
 * small files (src/assess/assess.lab.int.test.ts holds it to that;
 * src/report/fixtures/lab-100mbit-40ms-credits16.json is one such report).
 */
export const DEMO_BRANCH_LINK = { bandwidthBitsPerSecond: 100e6, rttMs: 40 } as const;
export const DEMO_SERVER_SETTINGS: Readonly<Record<string, string>> = { 'smb2 max credits': '16' };

const IPERF3_PATHS = ['/usr/bin/iperf3', '/usr/local/bin/iperf3'];

export type DemoPath = NonNullable<NonNullable<HostInfo['demo']>['path']>;

/** Why the branch demo cannot run here, or undefined when it can. */
export function branchDemoUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'the WAN lab runs on Linux only';
  if (process.getuid?.() !== 0) return 'the WAN lab needs root (it makes network namespaces)';
  if (!existsSync('/dev/net/tun')) return '/dev/net/tun is missing';
  if (!sambaAvailable()) return 'Samba is not installed (apt-get install samba)';
  if (!['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip'].some((path) => existsSync(path))) return 'the ip command is missing (apt-get install iproute2)';
  return undefined;
}

export interface BranchDemo {
  readonly state: LabState;
  readonly demo: NonNullable<HostInfo['demo']>;
  /** The command that runs a process inside the branch (its sockets cross the link). */
  readonly commandPrefix: readonly string[];
  stop(): Promise<void>;
  killNow(): void;
}

export async function startBranchDemo(): Promise<BranchDemo> {
  // Without iperf3 the probe measures the line with SMB reads (and says so): the demo does not need it.
  const state = await labUp(DEMO_BRANCH_LINK, { sambaGlobals: DEMO_SERVER_SETTINGS, iperf: IPERF3_PATHS.some((path) => existsSync(path)) });
  const endpoints = labEndpoints(state);
  if (endpoints.share === undefined || endpoints.user === undefined || endpoints.password === undefined) {
    removeLabNow(state);
    throw new PipefillError('lab-failed', 'The lab came up without its Samba server.', 'Run `pipefill lab down` and start again.');
  }
  const setting = Object.entries(DEMO_SERVER_SETTINGS)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ');
  let stopped = false;
  return {
    state,
    demo: {
      share: endpoints.share,
      user: endpoints.user,
      password: endpoints.password,
      ...(endpoints.iperf ? { iperf: endpoints.iperf } : {}),
      path: { kind: 'branch', bandwidthBitsPerSecond: DEMO_BRANCH_LINK.bandwidthBitsPerSecond, rttMs: DEMO_BRANCH_LINK.rttMs, serverSetting: setting },
    },
    commandPrefix: ['ip', 'netns', 'exec', state.branch],
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await labDown(state.id);
    },
    killNow: () => {
      if (stopped) return;
      stopped = true;
      removeLabNow(state);
    },
  };
}
