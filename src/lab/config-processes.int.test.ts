// A helper a test server started outside its process group is found by the
// server's own config path, and only that one.

import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { killProcessesOfConfig, processesOfConfig } from './config-processes.js';

const started: number[] = [];
/** A process in a session of its own, as samba-dcerpcd runs, naming `configFile` as Samba's helpers do. */
function helperFor(configFile: string): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', '--', `--configfile=${configFile}`], { detached: true, stdio: 'ignore' });
  child.unref();
  const pid = child.pid ?? -1;
  started.push(pid);
  return pid;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterEach(() => {
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe.skipIf(process.platform !== 'linux')("the helpers a server's smbd left behind", () => {
  it('are found by their config path and killed, and another server\u2019s are not', async () => {
    const ours = helperFor('/dev/shm/pipefill-samba-ours/smb.conf');
    const theirs = helperFor('/dev/shm/pipefill-samba-theirs/smb.conf');
    // Until both have exec'd (a busy machine can take longer than a fixed wait): bounded at 5 s.
    const listed = (configFile: string) => processesOfConfig(configFile).length > 0;
    for (let tries = 0; tries < 250 && !(listed('/dev/shm/pipefill-samba-ours/smb.conf') && listed('/dev/shm/pipefill-samba-theirs/smb.conf')); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(processesOfConfig('/dev/shm/pipefill-samba-ours/smb.conf')).toEqual([ours]);
    // A path that is a prefix of another's names nothing of the other.
    expect(processesOfConfig('/dev/shm/pipefill-samba-ours/smb.con')).toEqual([]);
    killProcessesOfConfig('/dev/shm/pipefill-samba-ours/smb.conf');
    for (let tries = 0; tries < 250 && alive(ours); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(ours)).toBe(false);
    expect(alive(theirs)).toBe(true);
  });
});
