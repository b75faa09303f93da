import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
