// The README's promises, run as a person would: `npm run --silent pipefill`
// prints only the command's own output (so --json pipes), even when it has
// to build first; `npm start` shows the planner.

import { spawnSync } from 'node:child_process';
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

  it('npm start runs the what-if planner on the default branch link', () => {
    const run = spawnSync('npm', ['start', '--silent'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Europe branch, continental \(mean\): 33 Mb\/s, 109 ms RTT/);
    expect(run.stdout).toMatch(/Windows 10\/11, SMB3/);
  }, 120_000);

  it('a bad option exits 2 with the error on stderr and nothing on stdout', () => {
    const run = spawnSync('npm', ['run', '--silent', 'pipefill', '--', 'predict', '--client', 'win95'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/error: Missing --server/);
  }, 120_000);
});
