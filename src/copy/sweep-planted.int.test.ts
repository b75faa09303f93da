// Never touch what is not ours (issue 47, item 1 and 4): every command that
// makes a scratch folder sweeps what dead runs left first. Against a real
// smbd (which follows symbolic links and lists them as plain files and
// folders, and here with `wide links = yes`), four things planted in
// `.pipefill-` folders must come through copy-test, assess --quick, capacity
// and probe byte for byte; a dead run's own folder must still go; and a
// client whose clock runs two days ahead must leave a live run's folder be.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SambaServer } from '../lab/samba.js';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { runCliCaptured } from '../test-support/cli-run.js';
import { crashRun } from '../test-support/dead-run.js';
import { ScratchFolder } from './scratch.js';
import { SmbSession } from '../smb/session.js';

const cliEntry = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const PASSWORD_ENV = 'PIPEFILL_SWEEP_TEST_PASSWORD';

/** Every path below `root` with what it is: a link's target, a file's bytes (hex), a folder. */
function snapshot(root: string): Record<string, string> {
  const seen: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      const key = relative(root, path);
      if (stat.isSymbolicLink()) seen[key] = `link -> ${readlinkSync(path)}`;
      else if (stat.isDirectory()) {
        seen[key] = 'folder';
        walk(path);
      } else seen[key] = `file ${stat.nlink} ${readFileSync(path).toString('hex')}`;
    }
  };
  walk(root);
  return seen;
}

/** Writable by the share's user, as a colleague's files would be: what the old sweep could empty. */
function writable(path: string, data?: Buffer): void {
  if (data) writeFileSync(path, data);
  else mkdirSync(path, { recursive: true });
  chmodSync(path, data ? 0o666 : 0o777);
}

describe("the sweep of dead runs' folders, against smbd with planted links", () => {
  let server: SambaServer;
  let outside: string;
  let planted: Record<string, string>;
  let plantedOutside: Record<string, string>;
  beforeAll(async () => {
    server = await SambaServer.start({
      // A link out of the share is followed too: the fourth case.
      globals: { 'allow insecure wide links': 'yes' },
      shareOptions: { 'wide links': 'yes' },
    });
    outside = mkdtempSync(join(tmpdir(), 'pipefill-outside-share-'));
    chmodSync(outside, 0o777);
    const root = server.sharePath;
    // 1. An orphan folder (no lease), any stamp, holding a file that is a link to another folder's file.
    writable(join(root, 'victim'));
    writable(join(root, 'victim', 'important.txt'), randomBytes(4053));
    writable(join(root, '.pipefill-20261127T000000-aaaaaaa1'));
    symlinkSync('../victim/important.txt', join(root, '.pipefill-20261127T000000-aaaaaaa1', 'bandwidth-probe.bin'));
    // 2. A stale-named entry that is a link to a sibling data folder holding names Pipefill uses.
    writable(join(root, 'data'));
    writable(join(root, 'data', 'calibration-1.bin'), randomBytes(1000));
    writable(join(root, 'data', 'source'));
    writable(join(root, 'data', 'source', 'file001.dat'), randomBytes(2000));
    symlinkSync('data', join(root, '.pipefill-20200101T000000-bbbbbbb2'));
    // 3. A hard link to a shared file in a stale folder.
    writable(join(root, 'shared'));
    writable(join(root, 'shared', 'report.bin'), randomBytes(3000));
    writable(join(root, '.pipefill-20200101T000000-ccccccc3'));
    linkSync(join(root, 'shared', 'report.bin'), join(root, '.pipefill-20200101T000000-ccccccc3', 'calibration-2.bin'));
    // 4. With wide links, a link to a file outside the share.
    writable(join(outside, 'secret.bin'), randomBytes(5000));
    writable(join(root, '.pipefill-20200101T000000-ddddddd4'));
    symlinkSync(join(outside, 'secret.bin'), join(root, '.pipefill-20200101T000000-ddddddd4', 'calibration-3.bin'));
    planted = snapshot(root);
    plantedOutside = snapshot(outside);
    process.env[PASSWORD_ENV] = server.credentials.password;
  }, 60_000);
  afterAll(async () => {
    Reflect.deleteProperty(process.env, PASSWORD_ENV);
    await server?.stop();
    if (outside) rmSync(outside, { recursive: true, force: true });
  });

  const login = () => ['--share', `//127.0.0.1:${server.port}/share`, '--user', server.credentials.user, '--password-env', PASSWORD_ENV];

  /** A run that died: its folder, lease gone with its connection, a file in it. */
  async function deadRunFolder(): Promise<string> {
    const session = await SmbSession.open(server.share, server.credentials);
    const folder = await ScratchFolder.create(session);
    writable(join(server.sharePath, folder.name, 'source-file'));
    writable(join(server.sharePath, folder.name, 'source-file', 'pipefill-test.bin'), randomBytes(100));
    await crashRun(session, server.sharePath, folder.name);
    return folder.name;
  }

  it.each([
    ['copy-test', ['copy-test', '--profile', 'win10-smb3', '--op', 'write', '--workload', 'file:1MiB']],
    ['assess --quick', ['assess', '--quick', '--profiles', 'pipefill-max', '--server', 'samba', '--no-history']],
    [
      'capacity',
      ['capacity', '--profile', 'xp-smb1', '--op', 'read', '--clients', '1', '--seconds', '1', '--warmup', '0.3', '--file-size', '1MiB', '--no-history'],
    ],
    ['probe', ['probe', '--seconds', '1']],
  ])(
    '%s leaves every planted link, hard link and target byte for byte, and still sweeps a dead run',
    async (_name, args) => {
      const dead = await deadRunFolder();
      // The orphan with no lease (case 1) is older than... nothing: it has no marker, so age and lease do not matter.
      const result = await runCliCaptured(...args.slice(0, 1), ...login(), ...args.slice(1));
      expect(result.code, result.err).toBe(0);
      expect(snapshot(server.sharePath)).toEqual(planted);
      expect(snapshot(outside)).toEqual(plantedOutside);
      expect(Object.keys(snapshot(server.sharePath))).not.toContain(dead);
    },
    120_000,
  );

  it('a client whose clock runs two days ahead leaves a live run\'s folder alone (faketime "+2d")', async () => {
    const session = await SmbSession.open(server.share, server.credentials);
    try {
      const live = await ScratchFolder.createChecked(session);
      writable(join(server.sharePath, live.name, 'source-file'));
      writable(join(server.sharePath, live.name, 'source-file', 'pipefill-test.bin'), randomBytes(100));
      const before = snapshot(join(server.sharePath, live.name));
      const child = spawn(
        'faketime',
        [
          // Multi-threaded (node's libuv pool); the monotonic clock left alone, so timers run on real time.
          '-m',
          '--exclude-monotonic',
          '-f',
          '+2d',
          process.execPath,
          ...ENGINE_NODE_FLAGS,
          cliEntry,
          'copy-test',
          ...login(),
          '--profile',
          'win10-smb3',
          '--op',
          'write',
          '--workload',
          'file:1MiB',
        ],
        // The password given to this child alone: a run in this process took it out of the environment.
        { env: { ...process.env, [PASSWORD_ENV]: server.credentials.password }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, stderr).toBe(0);
      expect(snapshot(join(server.sharePath, live.name))).toEqual(before);
      await live.remove();
    } finally {
      await session.end();
    }
    expect(snapshot(server.sharePath)).toEqual(planted);
  }, 60_000);
});
