// An apply whose disk refuses the write (issue 47, item 5): a file system
// that is full, and one mounted read-only, each a small tmpfs the test mounts
// (as root) and unmounts; nothing of the machine's own is touched. The answer
// is one typed line with what to do, the file as it was, and no backup left
// behind to block the next apply.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main.js';

const canMount = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/testparm');
if (!canMount) console.warn('SKIPPED: the refused-disk apply tests need Linux, root (to mount a tmpfs) and testparm.');

const SMB_CONF = '[global]\n  smb2 max credits = 16\n[share]\n  path = /nonexistent\n';

describe.skipIf(!canMount)('apply --target samba on a disk that refuses the write', () => {
  let dir: string;
  let disk: string;
  let mounted = false;
  const run = async (args: string[]) => {
    let text = '';
    const code = await runCli(args, { out: (t) => (text += `${t}\n`), err: (t) => (text += `${t}\n`) });
    return { code, text };
  };
  const smbConf = () => join(disk, 'smb.conf');
  const state = () => join(dir, 'state');
  const apply = (extra: string[] = []) =>
    run(['apply', '--target', 'samba', '--smb-conf', smbConf(), '--from', join(dir, 'rec.json'), '--state-dir', state(), '--yes', ...extra]);
  const mount = (...options: string[]) => spawnSync('mount', ['-t', 'tmpfs', '-o', ['size=128k', ...options].join(','), 'pipefill-test', disk]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pipefill-apply-disk-'));
    disk = join(dir, 'disk');
    mkdirSync(disk);
    expect(mount().status).toBe(0);
    mounted = true;
    writeFileSync(smbConf(), SMB_CONF);
    const recommend = await run([
      'recommend',
      '--bandwidth',
      '155mbit',
      '--rtt',
      '75ms',
      '--client',
      'win10-smb3',
      '--server',
      'samba',
      '--smb-conf',
      smbConf(),
      '--json',
    ]);
    expect(recommend.code).toBe(0);
    writeFileSync(join(dir, 'rec.json'), recommend.text);
  });
  afterAll(() => {
    if (mounted) spawnSync('umount', [disk]);
    rmSync(dir, { recursive: true, force: true });
  });

  const expectRefusedCleanly = (result: { code: number; text: string }, why: RegExp, hint: RegExp) => {
    expect(result.code).toBe(1);
    expect(result.text).toMatch(why);
    expect(result.text).toMatch(hint);
    expect(result.text).toMatch(/it was rolled back: smb\.conf is as it was before/);
    // One typed line and its hint: no stack.
    expect(result.text).not.toMatch(/\n\s+at /);
    expect(readFileSync(smbConf(), 'utf8')).toBe(SMB_CONF);
    // No backup to block the next apply, and no temporary on the disk.
    expect(existsSync(state()) ? readdirSync(state()) : []).toEqual([]);
  };

  it('a full disk: says so and what to do, leaves smb.conf and no backup; with room again the apply goes through', async () => {
    // Fill the disk to the last byte.
    const filler = join(disk, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(256 * 1024));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    const refused = await apply();
    expectRefusedCleanly(
      refused,
      /Applying failed \(ENOSPC: no space left on device/,
      /hint: The file system holding .*smb\.conf is full: free some space there, then apply again\./,
    );
    expect(readdirSync(disk).sort()).toEqual(['filler', 'smb.conf']);
    rmSync(filler);
    const applied = await apply();
    expect(applied.code, applied.text).toBe(0);
    const rolled = await run(['apply', '--rollback', '--target', 'samba', '--smb-conf', smbConf(), '--state-dir', state(), '--yes']);
    expect(rolled.code, rolled.text).toBe(0);
    expect(readFileSync(smbConf(), 'utf8')).toBe(SMB_CONF);
  });

  it('a read-only disk: says so and what to do, leaves smb.conf and no backup', async () => {
    expect(spawnSync('mount', ['-o', 'remount,ro', disk]).status).toBe(0);
    try {
      const refused = await apply();
      expectRefusedCleanly(refused, /Applying failed \(EROFS: read-only file system/, /hint: .*smb\.conf is on a file system mounted read-only/);
    } finally {
      spawnSync('mount', ['-o', 'remount,rw', disk]);
    }
  });

  it('a full disk for the backup: nothing is changed, and no half backup is left', async () => {
    // The state folder on the full disk this time.
    const stateOnDisk = join(disk, 'state');
    const filler = join(disk, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(256 * 1024));
    } catch {
      // full
    }
    try {
      const refused = await run(['apply', '--target', 'samba', '--smb-conf', smbConf(), '--from', join(dir, 'rec.json'), '--state-dir', stateOnDisk, '--yes']);
      expect(refused.code).toBe(1);
      expect(refused.text).toMatch(/The backup could not be written to .* \(ENOSPC[^\n]*\); nothing was changed\./);
      expect(refused.text).not.toMatch(/\n\s+at /);
      expect(readFileSync(smbConf(), 'utf8')).toBe(SMB_CONF);
      expect(existsSync(stateOnDisk) ? readdirSync(stateOnDisk) : []).toEqual([]);
    } finally {
      rmSync(filler, { force: true });
      rmSync(stateOnDisk, { recursive: true, force: true });
    }
  });
});
