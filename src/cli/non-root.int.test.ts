// The app for a person who is not root (issue 49): the built CLI's `ui
// --demo`, run as an unprivileged account this test makes, starts its demo
// share on loopback (smbd serving as that account, its password database
// written by pdbedit), and the share answers a quick assessment made as the
// same account; with smbd unusable for it, the app still starts and says in
// one line why there is no demo share; `apply` as that account is one line
// naming sudo. The suite runs as root, which is what makes the account.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../contract/report.js';
import { sambaAvailable } from '../lab/samba.js';
import type { UnprivilegedAccount } from '../test-support/unprivileged-account.js';
import { canActAsAnotherAccount, UNPRIVILEGED_ACCOUNT, unprivilegedAccount } from '../test-support/unprivileged-account.js';

const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const repository = fileURLToPath(new URL('../..', import.meta.url));

describe.skipIf(!canActAsAnotherAccount || !sambaAvailable())('the app as a person who is not root', () => {
  let account: UnprivilegedAccount;
  let home: string;
  const running: ChildProcessWithoutNullStreams[] = [];

  beforeAll(() => {
    account = unprivilegedAccount();
    home = account.home;
  });
  afterAll(() => {
    for (const child of running) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // That group has ended already.
      }
    }
    account?.remove();
  });

  /** A command as the account. */
  const asAccount = (args: readonly string[], env: NodeJS.ProcessEnv = {}) => {
    const [command = 'setpriv', ...rest] = [...account.prefix(env), ...args];
    return spawnSync(command, rest, { encoding: 'utf8', timeout: 240_000 });
  };

  /** `pipefill ui --demo --no-open` as the account, until it has printed its address (and the demo's line, or why there is none). */
  async function startUi(
    prefix: readonly string[] = [],
    app: readonly string[] = [process.execPath, cli, 'ui', '--demo', '--no-open'],
  ): Promise<{ child: ChildProcessWithoutNullStreams; stderr: () => string; stdout: () => string }> {
    const [command = 'setpriv', ...rest] = [...prefix, ...account.prefix(), ...app];
    const child = spawn(command, rest, { stdio: ['pipe', 'pipe', 'pipe'], cwd: repository, detached: true });
    running.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Polled every 100 ms for at most 60 s: the address comes after the demo share is up (or given up).
    const deadline = Date.now() + 60_000;
    while (!/http:\/\/127\.0\.0\.1:\d+\//.test(stdout) && child.exitCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return { child, stderr: () => stderr, stdout: () => stdout };
  }

  async function stopUi(child: ChildProcessWithoutNullStreams): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Ctrl-C, as a terminal sends it: to the whole process group (npm and the app under it); the app stops its demo share on the way out.
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
    return Promise.race([exited, new Promise<number | null>((resolve) => setTimeout(() => resolve(-1), 20_000))]);
  }

  it('serves the app and a demo share on loopback that a quick assessment, as the same person, reaches', async () => {
    const ui = await startUi();
    try {
      expect(ui.stdout(), ui.stderr()).toMatch(/http:\/\/127\.0\.0\.1:\d+\//);
      expect(ui.stderr()).toContain('the demo share is on loopback');
      const demo = /the demo share is (\/\/127\.0\.0\.1:\d+\/share), user (\S+), password (\S+) /.exec(ui.stderr());
      const iperf = /--iperf (127\.0\.0\.1:\d+)/.exec(ui.stderr());
      expect(demo, ui.stderr()).not.toBeNull();
      const [, share = '', user = '', password = ''] = demo ?? [];
      const report = join(home, 'report.json');
      const assessed = asAccount(
        [
          process.execPath,
          cli,
          'assess',
          '--share',
          share,
          '--user',
          user,
          '--password-env',
          'PIPEFILL_DEMO_PASSWORD',
          ...(iperf?.[1] ? ['--iperf', iperf[1]] : []),
          '--quick',
          '--yes',
          '--no-history',
          '--out',
          report,
          '--json',
        ],
        { PIPEFILL_DEMO_PASSWORD: password },
      );
      expect(assessed.status, assessed.stderr).toBe(0);
      const parsed = ReportSchema.parse(JSON.parse(assessed.stdout));
      expect(parsed.verdict?.lines[0]).toMatch(/^Your copies with /);
      expect(assessed.stderr).not.toMatch(/\n\s+at \S/);

      // apply, as this person: one line and a hint that names sudo, before anything is touched.
      const applied = asAccount([process.execPath, cli, 'apply', '--target', 'linux', '--from', report, '--yes']);
      expect(applied.status).not.toBe(0);
      expect(applied.stderr.trim().split('\n')).toHaveLength(2);
      expect(applied.stderr).toMatch(/^error: .*\nhint: .*sudo/);
    } finally {
      expect(await stopUi(ui.child)).toBe(0);
    }
  }, 300_000);

  it('npm start, as this person, prints the address, offers the demo share, and names a missing package in one sudo line', async () => {
    // The clone is root's here: npm start runs the build it finds (saying so if the sources are newer) rather than failing.
    // MIT Kerberos's headers out of sight (an empty folder over theirs, in a mount namespace of the test's own): libkrb5-dev is "missing".
    const hideHeaders = ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs none /usr/include/gssapi && exec "$@"', 'sh'];
    const started = await startUi(hideHeaders, ['npm', 'start', '--', '--no-open']);
    try {
      expect(started.stdout(), started.stderr()).toMatch(/http:\/\/127\.0\.0\.1:\d+\/#launch=/);
      expect(started.stderr()).toMatch(/the demo share is \/\/127\.0\.0\.1:\d+\/share, user pipefill/);
      const install = started
        .stderr()
        .split('\n')
        .filter((line) => line.includes('apt-get'));
      expect(install).toEqual([expect.stringMatching(/^pipefill: starting without libkrb5-dev .*: sudo apt-get install -y libkrb5-dev$/)]);
      expect(started.stderr()).not.toMatch(/\n\s+at \S/);
    } finally {
      // npm passes Ctrl-C on to the app (a second one, after the terminal's): the app stops its demo share
      // (and removes its folder) before npm exits. (npm itself then ends by SIGINT, as a shell does at Ctrl-C.)
      await stopUi(started.child);
      expect(spawnSync('pgrep', ['-u', UNPRIVILEGED_ACCOUNT]).stdout.toString().trim()).toBe('');
    }
  }, 180_000);

  it('starts without a demo share where smbd cannot run for this person, and says why in one line', async () => {
    // smbd out of this person's reach: in a mount namespace of the test's own, /usr/sbin/smbd is an empty file.
    const empty = join(home, 'no-smbd');
    spawnSync('sh', ['-c', `: > '${empty}'`]);
    const ui = await startUi(['unshare', '--mount', '--propagation', 'private', 'sh', '-c', `mount --bind '${empty}' /usr/sbin/smbd && exec "$@"`, 'sh']);
    try {
      expect(ui.stdout(), ui.stderr()).toMatch(/http:\/\/127\.0\.0\.1:\d+\//);
      const said = ui
        .stderr()
        .split('\n')
        .filter((line) => line.includes('no demo share'));
      expect(said, ui.stderr()).toHaveLength(1);
      expect(said[0]).toMatch(/the Planner and your own shares work without it/);
      expect(ui.stderr()).not.toContain('the demo share is on loopback');
      expect(ui.stderr()).not.toMatch(/\n\s+at \S/);
    } finally {
      expect(await stopUi(ui.child)).toBe(0);
    }
  }, 120_000);
});
