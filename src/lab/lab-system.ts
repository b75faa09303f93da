// The system calls the WAN lab is made of: the checks that it can run here,
// commands that must succeed, processes watched and killed by PID, and the
// forwarder built from its C source. Nothing here knows a lab's layout.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PipefillError } from '../model/errors.js';

/** How long a lab's process may take to show it started. */
const START_TIMEOUT_MS = 10_000;

/** Throws where the lab cannot run: not Linux, not root, or no TUN device. */
export function requireLab(): void {
  if (process.platform !== 'linux')
    throw new PipefillError('lab-unsupported', 'The WAN lab runs on Linux only.', 'Use a Linux machine (network namespaces and /dev/net/tun are needed).');
  if (process.getuid?.() !== 0)
    throw new PipefillError('lab-unsupported', 'The WAN lab needs root.', 'Run it again with sudo (it creates network namespaces and TUN devices).');
  if (!existsSync('/dev/net/tun')) throw new PipefillError('lab-unsupported', '/dev/net/tun is missing.', 'Load the tun module or run where it exists.');
}

/** Runs a command that must succeed; where it does not, its own error output is the message. */
export function run(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0)
    throw new PipefillError(
      'lab-failed',
      `${command} ${args.join(' ')} failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`,
      'Run `pipefill lab down` and try again; the message above says what the system refused.',
    );
  return result.stdout;
}

export const inNamespace = (namespace: string, command: string, args: readonly string[]) => run('ip', ['netns', 'exec', namespace, command, ...args]);

/** Builds the forwarder from native/wanem/wanem.c when it is missing or older than its source. */
export function forwarderBinary(): string {
  const source = fileURLToPath(new URL('../../native/wanem/wanem.c', import.meta.url));
  const binary = fileURLToPath(new URL('../../native/wanem/build/pipefill-wanem', import.meta.url));
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
    mkdirSync(join(binary, '..'), { recursive: true });
    run('cc', ['-O2', '-Wall', '-Wextra', '-o', binary, source]);
  }
  return binary;
}

/** Signals a process's group (the lab starts each in its own), else the process; one already gone is no error. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Whether a process of this PID exists (signal 0 checks without sending). */
export function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `check` holds, or throws naming `what` after START_TIMEOUT_MS. */
export async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  // Polls every 50 ms, at most START_TIMEOUT_MS / 50 times.
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new PipefillError('lab-failed', `${what} did not start within ${START_TIMEOUT_MS / 1000} s.`, 'Run `pipefill lab down` and try again.');
}
