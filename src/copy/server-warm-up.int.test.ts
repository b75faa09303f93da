// A connection's server process warmed before anything on it is timed
// (server-warm-up.ts), against a real smbd: Windows 11's signed read of 1 MiB
// requests, on a connection whose first transfer it is, has smbd fault its
// buffers in from the kernel again and again; after one large request each
// way it does not. Page faults, not times: what the allocator does is the
// same on a busy machine as on an idle one.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SambaServer, sambaAvailable } from '../lab/samba.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { parseSharePath } from '../model/share-path.js';
import { parseWorkload } from '../model/workloads.js';
import { SmbSession } from '../smb/session.js';
import { timedCopy } from './copy-test.js';
import { ScratchFolder } from './scratch.js';
import { warmServerProcess } from './server-warm-up.js';

/** Minor page faults of every process in smbd's process group (the server and its per-connection children). */
function minorFaultsOf(group: number): number {
  let faults = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After the command's closing parenthesis: state, ppid, pgrp, session, tty, tpgid, flags, minflt (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === group) faults += Number(fields[7]);
  }
  return faults;
}

describe.skipIf(!sambaAvailable() || process.platform !== 'linux')("a connection's server process warmed before its copies", () => {
  it("Windows 11's first signed read faults smbd's buffers in page by page; after the warm-up it does not", async () => {
    const server = await SambaServer.start();
    const group = server.pid ?? 0;
    const share = parseSharePath(`//127.0.0.1:${server.port}/share`);
    const credentials = { user: 'pipefill', password: server.password };
    const owner = await SmbSession.open(share, credentials, { offer: CLIENT_PROFILES['pipefill-max'].offer });
    const scratch = await ScratchFolder.create(owner);
    try {
      // The read source laid by Pipefill's own pipeline on its own connection, as an assessment lays it.
      const workload = parseWorkload('file:64MiB');
      const root = scratch.path('source');
      await owner.makeDirectory(root);
      await timedCopy({ session: owner, workload, seed: 'warm-up-test', verify: false }, 'pipefill-max', 'write', root);
      const faultsOfRead = async (warm: boolean): Promise<number> => {
        const reader = await SmbSession.open(share, credentials, { offer: CLIENT_PROFILES['win11-24h2'].offer });
        try {
          expect(reader.negotiated.signing).not.toBeNull();
          if (warm) await warmServerProcess(reader, scratch.path('warm-up-1.bin'));
          const before = minorFaultsOf(group);
          await timedCopy({ session: reader, workload, seed: 'warm-up-test', verify: true }, 'win11-24h2', 'read', root);
          return minorFaultsOf(group) - before;
        } finally {
          await reader.end();
        }
      };
      const cold = await faultsOfRead(false);
      const warmed = await faultsOfRead(true);
      // Cold: 10,500-13,700 of the 16,384 pages the 64 MiB passed through on an idle machine, 2,800 beside a busy
      // loop (a slower server has fewer buffers out at once, and hands fewer back). Warmed: 2-28 either way (2026-11-28).
      expect(warmed).toBeLessThan(Math.max(200, cold / 8));
      await scratch.remove();
      expect(server.shareContents()).toEqual([]);
    } finally {
      await owner.end();
      await server.stop();
    }
  }, 120_000);
});
