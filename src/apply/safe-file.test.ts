import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PipefillError } from '../model/errors.js';
import { backupPath, fileSnapshot, loadBackup, matchesSnapshot, restoreFile, saveBackup } from './plan.js';
import { rollbackSamba } from './samba-conf.js';
import { replaceFile } from './safe-file.js';

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
    expect(() => replaceFile(link, 'x')).toThrow(PipefillError);
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
