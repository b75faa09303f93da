// A Pipefill service in a child process (`pipefill service --stdio`), as the
// typed contract: the web host serves this API as it would the local one.
// `commandPrefix` says where the child runs: `ip netns exec <branch>` puts
// its sockets behind the WAN lab's emulated link (`pipefill ui --demo`).
// When the child exits, every call still waiting fails with a clear error;
// when this process exits, the child's stdin closes and it cancels its calls
// (which cleans the share's scratch up) and ends.

import { spawn } from 'node:child_process';
import type { PipefillApi } from '../contract/api.js';
import { apiOverLines, MAX_LINE_CHARS } from '../contract/line-transport.js';
import { PipefillError } from '../model/errors.js';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { takePgPassword } from '../platform/pg-password.js';
import { readLines } from '../platform/line-stream.js';

export interface ServiceProcess {
  readonly api: PipefillApi;
  readonly pid: number;
  /** Closes the child's stdin (it cancels its calls and ends) and waits for it, at most `graceMs`, then kills it. */
  stop(graceMs?: number): Promise<void>;
  /** Kills the child now (for an exit handler, which cannot wait). */
  killNow(): void;
}

/**
 * Starts `[...commandPrefix, node, <engine flags>, cliEntry, 'service', '--stdio']`
 * with `env` added to this process's environment (a history store goes there,
 * PIPEFILL_STORE, not on a command line every user can read).
 * Its stderr is passed through to this process's (its notes and faults show).
 */
export function startServiceProcess(options: {
  readonly commandPrefix: readonly string[];
  readonly cliEntry: string;
  readonly env?: Readonly<Record<string, string>>;
}): ServiceProcess {
  // The child drives copies: it starts with the engine's flags, as every launcher does (src/platform/engine-flags.ts).
  const argv = [...options.commandPrefix, process.execPath, ...ENGINE_NODE_FLAGS, options.cliEntry, 'service', '--stdio'];
  const [command, ...args] = argv;
  if (command === undefined) throw new PipefillError('internal', 'No command for the service process.', 'This is a fault in Pipefill.');
  // The service is Pipefill itself: it gets the team database's password this process took out of its environment.
  const pgPassword = takePgPassword();
  const child = spawn(command, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...(pgPassword === undefined ? {} : { PGPASSWORD: pgPassword }), ...options.env },
  });
  const client = apiOverLines((line) => {
    if (child.stdin.writable) child.stdin.write(`${line}\n`);
  });
  // A write after the child went away must not bring this process down: its calls fail through `close` below.
  child.stdin.on('error', () => undefined);
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => {
    const gone = (why: string) => {
      if (exited) return;
      exited = true;
      client.close(
        new PipefillError(
          'service-gone',
          `Pipefill's service process ${why}.`,
          'Restart Pipefill (Ctrl-C, then start it again); its error above says why it stopped.',
        ),
      );
      resolve();
    };
    child.once('exit', (code, signal) => gone(signal ? `was stopped (${signal})` : `exited with code ${code}`));
    child.once('error', (error) => gone(`could not start (${error.message})`));
  });
  readLines(child.stdout, MAX_LINE_CHARS, { onLine: (line) => client.receive(line) });
  const killNow = () => {
    if (!exited) child.kill('SIGKILL');
  };
  return {
    api: client.api,
    pid: child.pid ?? 0,
    stop: async (graceMs = 10_000) => {
      child.stdin.end();
      const timer = setTimeout(killNow, graceMs);
      await exitedPromise;
      clearTimeout(timer);
    },
    killNow,
  };
}
