// tcpdump writing a capture of one TCP port's traffic for the `pipefill
// analyze` tests: on loopback, or on the WAN lab's link inside a namespace
// (the branch's side, where a person's capture of their own copy is taken).

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';

export interface CaptureAt {
  /** The network namespace to capture in (the lab's branch); this one when absent. */
  readonly namespace?: string;
  readonly device: string;
  readonly port: number;
}

/** tcpdump writing whole packets to `path`; resolves once it listens. */
export async function startCapture(at: CaptureAt, path: string): Promise<ChildProcess> {
  // A buffer (-B, KiB) that holds the whole capture: on loopback a segment is up to 64 KiB, and a full buffer drops packets.
  const tcpdump = ['tcpdump', '-i', at.device, '-s', '0', '-B', '131072', '--immediate-mode', '-U', '-w', path, `tcp port ${at.port}`];
  // `ip netns exec` execs tcpdump in place: the signal that stops it reaches it.
  const [command = 'tcpdump', ...args] = at.namespace ? ['ip', 'netns', 'exec', at.namespace, ...tcpdump] : tcpdump;
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  // Polled every 50 ms for at most 10 s.
  for (let wait = 0; wait < 200 && !said.includes('listening on') && child.exitCode === null; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!said.includes('listening on')) {
    child.kill('SIGKILL');
    throw new Error(`tcpdump did not start: ${said}`);
  }
  return child;
}

export async function stopCapture(child: ChildProcess, path: string): Promise<void> {
  // tcpdump writes what it has read (-U) but stops reading at SIGINT: first let the file stop growing
  // (half a second unchanged, polled every 100 ms for at most 10 s), or the copy's last packets are lost.
  let size = -1;
  for (let still = 0, polls = 0; still < 5 && polls < 100; polls++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = statSync(path).size;
    still = now === size ? still + 1 : 0;
    size = now;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
