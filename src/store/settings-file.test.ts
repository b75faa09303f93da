import { chownSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../contract/settings.js';
import { readSettings, writeSettings } from './settings-file.js';

const dir = mkdtempSync(join(tmpdir(), 'pipefill-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the services' settings file", () => {
  it('keeps what was set, privately, and reads the defaults where there is none', () => {
    const path = join(dir, 'data', 'settings.json');
    expect(readSettings(path)).toEqual(DEFAULT_SETTINGS);
    writeSettings({ keepHistory: false, teamStore: 'postgres://team@db/pipefill' }, path);
    expect(readSettings(path)).toEqual({ keepHistory: false, teamStore: 'postgres://team@db/pipefill' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('reads a damaged, foreign or oversized file as the defaults, and never writes a password', () => {
    const path = join(dir, 'damaged.json');
    for (const text of [
      '{',
      '[]',
      JSON.stringify({ keepHistory: 'no' }),
      JSON.stringify({ keepHistory: false, teamStore: 'postgres://t:pw@db/p' }),
      ' '.repeat(100_000),
    ]) {
      writeFileSync(path, text);
      expect(readSettings(path)).toEqual(DEFAULT_SETTINGS);
    }
    expect(() => writeSettings({ keepHistory: true, teamStore: 'postgres://team@db/p?pass%77ord=x' }, path)).toThrow(/password/);
    expect(readFileSync(path, 'utf8')).not.toContain('pass%77ord');
  });
});

describe('the settings file is written where it is, never through a link (issue 47)', () => {
  /** A file nobody meant Pipefill to write: root-owned, 0600, where a link in the data folder points. */
  const victim = () => {
    const path = join(dir, `victim-${Math.random().toString(16).slice(2)}`);
    writeFileSync(path, 'root only', { mode: 0o600 });
    return path;
  };

  it('refuses a link in its place and leaves what it points to as it was', () => {
    const target = victim();
    const folder = mkdtempSync(join(dir, 'own-'));
    symlinkSync(target, join(folder, 'settings.json'));
    expect(() => writeSettings({ ...DEFAULT_SETTINGS, keepHistory: false }, join(folder, 'settings.json'))).toThrow(/is a link/);
    expect(readFileSync(target, 'utf8')).toBe('root only');
    expect(lstatSync(join(folder, 'settings.json')).isSymbolicLink()).toBe(true);
  });

  // `sudo -E pipefill ui`, or PIPEFILL_DATA_DIR naming another user's folder: root must not write in it at all.
  it.runIf(process.getuid?.() === 0)('as root, refuses a data folder another user owns (a link planted there or not)', () => {
    const target = victim();
    const folder = mkdtempSync(join(dir, 'someone-'));
    chownSync(folder, 65534, 65534);
    symlinkSync(target, join(folder, 'settings.json'));
    expect(() => writeSettings({ ...DEFAULT_SETTINGS, keepHistory: false }, join(folder, 'settings.json'))).toThrow(/belongs to user 65534/);
    rmSync(join(folder, 'settings.json'));
    expect(() => writeSettings({ ...DEFAULT_SETTINGS, keepHistory: false }, join(folder, 'settings.json'))).toThrow(/not a folder of this user's own/);
    expect(readFileSync(target, 'utf8')).toBe('root only');
    expect(readdirSync(folder)).toEqual([]);
  });
});
