import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupPath, fileSnapshot, loadBackup, matchesSnapshot, restoreFile, saveBackup } from '../apply/plan.js';
import { rollbackSysctl } from '../apply/linux-sysctl.js';
import { rollbackSamba } from '../apply/samba-conf.js';
import { authenticationFileText, withAuthenticationFile } from '../lab/smbclient-auth.js';
import { freshWorkDirectory, openNewLog, privateDirectory, replaceFile, UnsafePathError } from './safe-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pipefill-safe-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('replacing a configuration file', () => {
  it('keeps the mode, leaves no temporary file, and replaces the bytes whole', () => {
    const file = join(dir, 'smb.conf');
    writeFileSync(file, 'old\n');
    chmodSync(file, 0o640);
    const inodeBefore = lstatSync(file).ino;
    replaceFile(file, 'new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(lstatSync(file).mode & 0o7777).toBe(0o640);
    // A new inode: the old bytes were never truncated in place.
    expect(lstatSync(file).ino).not.toBe(inodeBefore);
    expect(readdirSync(dir)).toEqual(['smb.conf']);
  });

  it('writes through a symlinked configuration to its target and keeps the link', () => {
    mkdirSync(join(dir, 'real'));
    const real = join(dir, 'real', 'smb.conf');
    writeFileSync(real, 'old\n');
    const link = join(dir, 'smb.conf');
    symlinkSync(real, link);
    replaceFile(link, 'new\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(real);
    expect(readFileSync(real, 'utf8')).toBe('new\n');
  });

  it('refuses a link to nowhere instead of creating its target', () => {
    const link = join(dir, '90-pipefill.conf');
    symlinkSync(join(dir, 'elsewhere', 'passwd'), link);
    expect(() => replaceFile(link, 'x')).toThrow(UnsafePathError);
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  });

  it('restores bytes and mode from a snapshot, and removes a file that did not exist', () => {
    const file = join(dir, 'a.conf');
    writeFileSync(file, 'before\n');
    chmodSync(file, 0o600);
    const snapshot = fileSnapshot(file);
    replaceFile(file, 'after\n', { newMode: 0o644 });
    chmodSync(file, 0o644);
    expect(matchesSnapshot(file, snapshot)).toBe(false);
    restoreFile(file, snapshot);
    expect(matchesSnapshot(file, snapshot)).toBe(true);
    expect(lstatSync(file).mode & 0o7777).toBe(0o600);
    restoreFile(file, null);
    expect(existsSync(file)).toBe(false);
  });
});

describe('backups', () => {
  it('are created once, 0600, and never through a planted link', () => {
    const path = backupPath(join(dir, 'state'), 'samba', '/etc/samba/smb.conf');
    saveBackup(path, { smbConf: '/etc/samba/smb.conf', content: null });
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(() => saveBackup(path, {})).toThrow(/still there/);
    const planted = backupPath(join(dir, 'state'), 'linux', '/etc/sysctl.d/90-pipefill.conf');
    symlinkSync(join(dir, 'victim'), planted);
    expect(() => saveBackup(planted, {})).toThrow();
    expect(existsSync(join(dir, 'victim'))).toBe(false);
  });

  it("go only into a state folder of this user's own: a planted link there is refused", () => {
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'planted-state'));
    expect(() => saveBackup(backupPath(join(dir, 'planted-state'), 'samba', '/etc/samba/smb.conf'), {})).toThrow(UnsafePathError);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
  });

  it('that fail their schema are refused and nothing is restored', () => {
    const smbConf = join(dir, 'smb.conf');
    writeFileSync(smbConf, '[global]\n');
    const state = join(dir, 'state');
    const path = backupPath(state, 'samba', smbConf);
    mkdirSync(state);
    // A backup edited to restore somewhere else, or to carry something that is not a snapshot.
    writeFileSync(path, JSON.stringify({ smbConf: '/etc/passwd', content: { bytes: 'eA==', mode: 420, uid: 0, gid: 0 } }));
    expect(() => rollbackSamba(smbConf, state)).toThrow(/not \//);
    writeFileSync(path, JSON.stringify({ smbConf, content: { bytes: 'not base64!', mode: 420, uid: 0, gid: 0 } }));
    expect(() => rollbackSamba(smbConf, state)).toThrow(/not one Pipefill wrote/);
    writeFileSync(path, '{"smbConf":');
    expect(() => loadBackup(path, { safeParse: () => ({ success: true, data: {} }) } as never)).toThrow(/not JSON/);
    expect(readFileSync(smbConf, 'utf8')).toBe('[global]\n');
  });
});

describe('private folders and new files', () => {
  it('makes a 0700 folder, closes one of ours that others could read, and refuses a planted link', () => {
    const mine = privateDirectory(join(dir, 'state'));
    expect(lstatSync(mine).mode & 0o777).toBe(0o700);
    chmodSync(mine, 0o755);
    privateDirectory(mine);
    expect(lstatSync(mine).mode & 0o777).toBe(0o700);
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'planted'));
    expect(() => privateDirectory(join(dir, 'planted'))).toThrow(UnsafePathError);
  });

  it('opens a log only if nothing is there yet, never through a link', () => {
    symlinkSync(join(dir, 'victim.log'), join(dir, 'wanem.log'));
    expect(() => openNewLog(join(dir, 'wanem.log'))).toThrow();
    expect(existsSync(join(dir, 'victim.log'))).toBe(false);
  });

  it('gives smbclient its password in a 0600 file that is gone afterwards, and no line breaks in it', () => {
    let seen = '';
    withAuthenticationFile({ user: 'u', password: 'p w' }, (path) => {
      seen = path;
      expect(lstatSync(path).mode & 0o777).toBe(0o600);
      expect(lstatSync(join(path, '..')).mode & 0o777).toBe(0o700);
      expect(readFileSync(path, 'utf8')).toBe('username = u\npassword = p w\n');
    });
    expect(existsSync(seen)).toBe(false);
    expect(() => authenticationFileText({ user: 'u', password: 'x\nusername = root' })).toThrow(/line break/);
  });
});

describe('a sysctl backup', () => {
  it('that would restore a sysctl Pipefill never changes is refused, and nothing is written', () => {
    const conf = join(dir, '90-pipefill.conf');
    const state = join(dir, 'state');
    mkdirSync(state);
    const path = backupPath(state, 'linux', conf);
    writeFileSync(path, JSON.stringify({ confPath: conf, conf: null, live: { 'kernel.core_pattern': '|/tmp/x' } }));
    expect(() => rollbackSysctl({ confPath: conf, stateDir: state, procRoot: join(dir, 'proc') })).toThrow(/not one Pipefill wrote/);
    writeFileSync(path, JSON.stringify({ confPath: conf, conf: null, live: { 'net.ipv4.tcp_wmem': '4096 16384 4194304\nevil' } }));
    expect(() => rollbackSysctl({ confPath: conf, stateDir: state, procRoot: join(dir, 'proc') })).toThrow(/not one Pipefill wrote/);
    expect(existsSync(conf)).toBe(false);
  });
});

describe('what a killed write left (issue 47)', () => {
  /** The id of a process that has ended. */
  const deadPid = () => spawnSync('true').pid ?? 0;
  const hours = (n: number) => new Date(Date.now() - n * 60 * 60 * 1000);

  it('the next replace of the file clears its own dead temporaries, and nothing else', () => {
    const file = join(dir, 'smb.conf');
    writeFileSync(file, 'old\n');
    const dead = `.smb.conf.pipefill-${deadPid()}-0123456789ab.tmp`;
    const live = `.smb.conf.pipefill-1-0123456789ab.tmp`;
    const oldLegacy = '.smb.conf.pipefill-aaaaaaaaaaaa.tmp';
    const newLegacy = '.smb.conf.pipefill-bbbbbbbbbbbb.tmp';
    const otherFile = `.fstab.pipefill-${deadPid()}-0123456789ab.tmp`;
    for (const name of [dead, live, oldLegacy, newLegacy, otherFile]) writeFileSync(join(dir, name), 'half');
    utimesSync(join(dir, oldLegacy), hours(2), hours(2));
    // A link of a dead temporary's name: not a file of ours, never removed (nor what it points to).
    writeFileSync(join(dir, 'target'), 'keep');
    const linked = `.smb.conf.pipefill-${deadPid()}-ba9876543210.tmp`;
    symlinkSync(join(dir, 'target'), join(dir, linked));
    replaceFile(file, 'new\n');
    expect(readdirSync(dir).sort()).toEqual([live, newLegacy, otherFile, linked, 'smb.conf', 'target'].sort());
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('keep');
  });

  it('a fresh work folder clears the ones of its kind whose process is gone', () => {
    const dead = `pipefill-smbconf-${deadPid()}-AbC123`;
    const live = 'pipefill-smbconf-1-AbC123';
    const oldLegacy = 'pipefill-smbconf-Xy9876';
    for (const name of [dead, live, oldLegacy]) mkdirSync(join(dir, name));
    writeFileSync(join(dir, dead, 'smb.conf'), 'half');
    utimesSync(join(dir, oldLegacy), hours(2), hours(2));
    writeFileSync(join(dir, 'elsewhere'), 'keep');
    symlinkSync(dir, join(dir, `pipefill-smbconf-${deadPid()}-Link00`));
    const made = freshWorkDirectory(dir, 'pipefill-smbconf');
    expect(made).toMatch(new RegExp(`/pipefill-smbconf-${process.pid}-[A-Za-z0-9]{6}$`));
    const left = readdirSync(dir);
    expect(left).toContain(live);
    expect(left).not.toContain(dead);
    expect(left).not.toContain(oldLegacy);
    expect(left.filter((name) => name.endsWith('-Link00'))).toHaveLength(1);
    expect(readFileSync(join(dir, 'elsewhere'), 'utf8')).toBe('keep');
  });
});
