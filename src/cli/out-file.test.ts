// --out files (issue 35, items 8 and 9): checked before any work, written
// beside the name and renamed into place, never through a link planted at
// the name, and a failed write leaves the old file whole.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../test-support/cli-run.js';
import { checkOutPath, openOutFile, withOutFile, writeOutFile } from './out-file.js';

const dir = mkdtempSync(join(tmpdir(), 'pipefill-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = new URL('../report/fixtures/lab-52mbit-75ms.json', import.meta.url).pathname;

describe('--out files', () => {
  it('refuses a folder that does not exist and a name that is a folder, before any work', () => {
    expect(() => checkOutPath(join(dir, 'missing', 'r.json'))).toThrow(/the folder .*missing does not exist/);
    mkdirSync(join(dir, 'a-folder'));
    expect(() => checkOutPath(join(dir, 'a-folder'))).toThrow(/is a folder/);
    expect(checkOutPath(join(dir, 'new.json'))).toBe(join(dir, 'new.json'));
  });

  it('replaces a link planted at the name instead of writing through it', () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    const planted = join(dir, 'report.json');
    symlinkSync(victim, planted);
    writeOutFile(planted, '{"ok":true}\n');
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readFileSync(planted, 'utf8')).toBe('{"ok":true}\n');
  });

  it('leaves the old file whole, and no temporary file, when the export fails half-way', async () => {
    const target = join(dir, 'export.json');
    writeFileSync(target, 'the previous export');
    await expect(
      withOutFile(target, async (file) => {
        file.write('[{"half":');
        throw new Error('the store went away');
      }),
    ).rejects.toMatchObject({ kind: 'write-failed', message: expect.stringMatching(/^Could not write .*export\.json: the store went away\.$/) });
    expect(readFileSync(target, 'utf8')).toBe('the previous export');
    expect(readdirSync(dir).filter((name) => name.includes('.pipefill-'))).toEqual([]);
    const file = openOutFile(target);
    file.write('new');
    file.abort();
    expect(readFileSync(target, 'utf8')).toBe('the previous export');
  });

  it('assess and capacity check --out before asking for a password; report export too', async () => {
    const missing = join(dir, 'nowhere', 'r.json');
    for (const args of [
      ['assess', '--share', '//127.0.0.1/share', '--user', 'u', '--out', missing],
      ['capacity', '--share', '//127.0.0.1/share', '--user', 'u', '--out', missing],
      ['report', 'export', fixture, '--format', 'json', '--out', missing],
    ]) {
      const { code, err } = await runCliCaptured(...args);
      expect(code, args.join(' ')).toBe(2);
      expect(err).toMatch(/^error: Cannot write .*nowhere\/r\.json: the folder .* does not exist\.$/m);
      expect(err).not.toMatch(/password/i);
    }
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });
});
