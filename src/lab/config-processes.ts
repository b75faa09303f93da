// Processes a test server's smbd started that left its process group: Samba
// starts samba-dcerpcd (and its rpcd_* workers) on demand for a named pipe
// (`smbclient -L` listing shares), and that helper runs in a session of its
// own, so killing smbd's group left one behind after every `npm test`. Each
// names the server's own smb.conf on its command line, a path no other
// server shares: that is how they are found, by PID.

import { readdirSync, readFileSync } from 'node:fs';

/** The PIDs whose command line holds `--configfile=<configFile>` (Linux's /proc; none elsewhere). */
export function processesOfConfig(configFile: string): number[] {
  const wanted = `--configfile=${configFile}`;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').includes(wanted)) found.push(pid);
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found;
}

/** Kills (SIGKILL) every process started for `configFile` that is still running. */
export function killProcessesOfConfig(configFile: string): void {
  for (const pid of processesOfConfig(configFile)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * Kills every process of `configFile` and waits (bounded) until /proc shows none; returns any still listed.
 * SIGKILL is delivered asynchronously, so a killed helper keeps its command line for a moment, longer on a busy
 * machine, and one smbd forked just before the kill can start another helper after the first scan.
 */
export async function killProcessesOfConfigAndWait(configFile: string, timeoutMs = 5_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    killProcessesOfConfig(configFile);
    const left = processesOfConfig(configFile);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
