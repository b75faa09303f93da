// `pipefill ui --demo` told to stop the way `npm start` tells it: Ctrl-C
// reaches the app twice (the terminal's, then npm's forward of it). The
// second one, arriving while the demo share is being stopped, must not end
// the app half-way: smbd and every helper of its configuration are gone,
// its folder with them, and the app exits 0.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { processesOfConfig } from '../lab/config-processes.js';
import { sambaAvailable } from '../lab/samba.js';

const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

/** Polls (every 50 ms, at most `ms`) until `done` holds. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return done();
}

/** The configuration file of the smbd that listens on `port` (its command line names it). */
function smbdConfigOnPort(port: number): string | undefined {
  const listening = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }).stdout;
  const pid = /pid=(\d+)/.exec(listening)?.[1];
  if (pid === undefined) return undefined;
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return argv.find((arg) => arg.startsWith('--configfile='))?.slice('--configfile='.length);
}

describe.skipIf(!sambaAvailable())('pipefill ui, stopped as npm start stops it', () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
  });

  it('stops its demo share to the last helper and exits 0 when a second Ctrl-C arrives during the stop', async () => {
    child = spawn(process.execPath, [cli, 'ui', '--demo', '--demo-path', 'loopback', '--no-open'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const started = child;
    let stdout = '';
    let stderr = '';
    started.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      started.once('exit', (code, signal) => resolve({ code, signal })),
    );
    expect(await until(() => /http:\/\/127\.0\.0\.1:\d+\//.test(stdout) || started.exitCode !== null, 60_000), stderr).toBe(true);
    const port = Number(/the demo share is \/\/127\.0\.0\.1:(\d+)\/share/.exec(stderr)?.[1]);
    const config = smbdConfigOnPort(port);
    expect(config, stderr).toBeDefined();
    const configFile = config ?? '';
    expect(processesOfConfig(configFile).length).toBeGreaterThan(0);

    started.kill('SIGINT');
    // npm's forward comes once the app has begun to stop: the line it prints says when.
    expect(await until(() => stderr.includes('pipefill ui: stopping'), 20_000), stderr).toBe(true);
    started.kill('SIGINT');

    expect(await exited).toEqual({ code: 0, signal: null });
    expect(processesOfConfig(configFile)).toEqual([]);
    expect(existsSync(dirname(configFile))).toBe(false);
    expect(stderr).not.toMatch(/\n\s+at \S/);
  }, 120_000);
});
