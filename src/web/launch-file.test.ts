import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeLaunchFile } from './launch-file.js';

const dir = mkdtempSync(join(tmpdir(), 'pipefill-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the hand-off page the browser opens (issue 35, item 11)', () => {
  it('carries the launch address in a file only this account reads, and none on the command line', () => {
    const url = 'http://127.0.0.1:41155/#launch=vwijhOMBjx_skW8DmyojtB7Emzcw3hcP';
    const file = writeLaunchFile(url, join(dir, 'runtime'));
    expect(file.href).toMatch(/^file:\/\/\/.*\/runtime\/open-[0-9a-f]{16}\.html$/);
    expect(file.href).not.toContain('vwijh');
    const path = fileURLToPath(file.href);
    expect(readFileSync(path, 'utf8')).toContain(`content="0;url=${url}"`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'runtime')).mode & 0o777).toBe(0o700);
    file.remove();
    expect(existsSync(path)).toBe(false);
  });

  it('refuses anything but a launch address on 127.0.0.1 (nothing else is written into a page)', () => {
    expect(() => writeLaunchFile('http://127.0.0.1:1/#launch=x"><script>', join(dir, 'runtime'))).toThrow(/Not a launch address/);
    expect(() => writeLaunchFile('https://evil.example/#launch=abc', join(dir, 'runtime'))).toThrow(/Not a launch address/);
  });
});
