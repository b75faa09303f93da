// An ordinary account for tests of what a person who is not root can do
// (issue 49). The suite runs as root; it makes a system account with no
// login shell once, and each test gets a home folder of its own that the
// account owns. Commands run as it through setpriv, which drops root and
// execs the command itself, so signals reach the command, not a wrapper.

import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const UNPRIVILEGED_ACCOUNT = 'pipefill-nonroot';

/** Whether this machine can run a command as another account (Linux, root, setpriv). */
export const canActAsAnotherAccount = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');

export interface UnprivilegedAccount {
  readonly uid: number;
  readonly gid: number;
  /** The account's home for this test (its history store and data folder go there). */
  readonly home: string;
  /** The words before a command that run it as the account with `env` and nothing else of root's environment. */
  prefix(env?: NodeJS.ProcessEnv): string[];
  /** Removes the home folder. */
  remove(): void;
}

/** The account (made on first use) with a fresh home folder. */
export function unprivilegedAccount(): UnprivilegedAccount {
  const id = (flag: string) => Number(spawnSync('id', [flag, UNPRIVILEGED_ACCOUNT], { encoding: 'utf8' }).stdout.trim());
  if (spawnSync('id', [UNPRIVILEGED_ACCOUNT]).status !== 0) {
    const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', UNPRIVILEGED_ACCOUNT], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`useradd ${UNPRIVILEGED_ACCOUNT}: ${made.stderr}`);
  }
  const uid = id('-u');
  const gid = id('-g');
  const home = mkdtempSync(join(tmpdir(), 'pipefill-nonroot-'));
  chownSync(home, uid, gid);
  chmodSync(home, 0o700);
  const base = { PATH: `${dirname(process.execPath)}:/usr/sbin:/usr/bin:/sbin:/bin`, HOME: home, TMPDIR: home, LANG: 'C.UTF-8' };
  return {
    uid,
    gid,
    home,
    prefix: (env = {}) => [
      'setpriv',
      `--reuid=${uid}`,
      `--regid=${gid}`,
      '--clear-groups',
      '--',
      'env',
      '-i',
      ...Object.entries({ ...base, ...env }).map(([key, value]) => `${key}=${value ?? ''}`),
    ],
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
