// A private smbd and an iperf3 server on loopback, stopped together: the
// fixture of the probe and assessment tests, and the demo share of
// `pipefill ui --demo` (what `npm start` offers a newcomer with no share).

import { spawn } from 'node:child_process';
import type { SambaOptions } from './samba.js';
import { freePort, SambaServer } from './samba.js';

export interface LoopbackServers {
  readonly samba: SambaServer;
  readonly iperfPort: number;
  stop(): Promise<void>;
  /** At once and synchronously (SIGKILL, and Samba's folder removed), for a process on its way out. */
  killNow(): void;
}

export async function startLoopbackServers(options: SambaOptions & { readonly iperfPort?: number } = {}): Promise<LoopbackServers> {
  const { iperfPort: givenIperfPort, ...sambaOptions } = options;
  const samba = await SambaServer.start(sambaOptions);
  const iperfPort = givenIperfPort ?? (await freePort());
  const iperf = spawn('iperf3', ['-s', '-B', '127.0.0.1', '-p', String(iperfPort)], { stdio: 'ignore' });
  // Without iperf3 the probe falls back to an SMB read pipeline; no crash here.
  iperf.once('error', () => undefined);
  // iperf3 has no readiness signal on stdout in server mode; half a second is ample on loopback.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    samba,
    iperfPort,
    stop: async () => {
      iperf.kill();
      await samba.stop();
    },
    killNow: () => {
      iperf.kill('SIGKILL');
      samba.discard();
    },
  };
}
