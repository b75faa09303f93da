// Which lab experiments a change touches, read off the project's own import
// graph: the docs or the page touch none, the native addons all, a file of
// the engine those whose tests (or the CLI commands they run) depend on it.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { labTestsTouchedBy } from './lib/lab-selection.mjs';

const root = join(import.meta.dirname, '..');
const tests = execFileSync('git', ['ls-files', 'src/**/*.lab.int.test.ts', 'src/**/*.serial.int.test.ts'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const touched = (...changed: string[]) => labTestsTouchedBy(root, changed, tests).map(({ test }) => test);

describe('the lab experiments a change touches', () => {
  it('finds the lab tests', () => {
    expect(tests).toContain('src/assess/promise.lab.int.test.ts');
    expect(tests).toContain('src/assess/signed-loopback.serial.int.test.ts');
  });

  it('none for the docs, the page or the web host that the lab never runs', () => {
    expect(touched('docs/lab.md', 'README.md', 'app/renderer/src/app.tsx')).toEqual([]);
    // The promise experiment runs the CLI's assess command, which never reaches the web host.
    expect(touched('src/web/host.ts')).not.toContain('src/assess/promise.lab.int.test.ts');
  });

  it('all of them for the native addons or the lab runner', () => {
    expect(touched('native/wanem/src/forwarder.c')).toEqual(tests);
    expect(touched('scripts/lib/setup.mjs')).toEqual(tests);
  });

  it('those that depend on an engine file, through their imports and the commands they run, with the reason', () => {
    const selected = labTestsTouchedBy(root, ['src/copy/transfer.ts', 'docs/lab.md'], tests);
    expect(selected.map(({ test }) => test)).toContain('src/assess/promise.lab.int.test.ts');
    expect(selected.map(({ test }) => test)).toContain('src/assess/signed-loopback.serial.int.test.ts');
    expect(selected.every(({ because }) => because === 'src/copy/transfer.ts')).toBe(true);
    // A test file changed is its own reason.
    expect(touched('src/lab/queue.lab.int.test.ts')).toEqual(['src/lab/queue.lab.int.test.ts']);
  });
});
