// The README's promises, run as a person would: `npm run --silent pipefill`
// prints only the command's own output (so --json pipes), even when it has
// to build first; `npm start` starts the app (the web mode here, where
// Electron's binary cannot be installed) with the planner and a demo share.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('launchers', () => {
  it('npm run --silent pipefill -- predict --json prints JSON alone on stdout, even while building', () => {
    const stamp = join(root, 'dist', '.build-stamp');
    // Make the build look stale, so this run has to rebuild before answering.
    if (existsSync(stamp)) utimesSync(stamp, new Date(0), new Date(0));
    const run = spawnSync(
      'npm',
      ['run', '--silent', 'pipefill', '--', 'predict', '--client', 'win7-smb2', '--server', 'samba', '--op', 'write', '--workload', 'file:32MiB', '--bandwidth', '52mbit', '--rtt', '75ms', '--json'],
      { cwd: root, encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/building/);
    const result = JSON.parse(run.stdout) as { seconds: number; workload: string };
    expect(result.workload).toBe('file:32MiB');
    expect(result.seconds).toBeGreaterThan(5);
  }, 120_000);

  it('npm start runs the app: the web mode, with its address on stdout and a demo share, until stopped', async () => {
    const child = spawn('npm', ['start', '--silent', '--', '--no-open'], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      // Bounded: at most 120 s (a first start builds), checked every 100 ms.
      for (let i = 0; i < 1200 && !/http:\/\/127\.0\.0\.1:\d+\/#token=/.test(stdout) && child.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const url = /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(stdout)?.[0];
      expect(url, stderr).toBeDefined();
      expect(stderr).toMatch(/starting the web mode instead/);
      const origin = new URL(url ?? '').origin;
      const token = (url ?? '').split('#token=')[1] ?? '';
      const page = await fetch(`${origin}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<div id="root">/);
      const info = await fetch(`${origin}/api/hostInfo`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
      const frame = JSON.parse((await info.text()).trim()) as { type: string; value: { shell: string; demo?: { share: string } } };
      expect(frame.value.shell).toBe('web');
      if (existsSync('/usr/sbin/smbd')) expect(frame.value.demo?.share).toMatch(/^\/\/127\.0\.0\.1:\d+\/share$/);
    } finally {
      // Its whole process group: npm, the launcher, and the demo's servers.
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    }
  }, 150_000);

  it('a bad option exits 2 with the error on stderr and nothing on stdout', () => {
    const run = spawnSync('npm', ['run', '--silent', 'pipefill', '--', 'predict', '--client', 'win95'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/error: Missing --server/);
  }, 120_000);
});
