// The local source's folder and the sweep of those a killed process left.

import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkload } from '../model/workloads.js';
import { LocalSource, removeOrphanedSources } from './local-source.js';

/** A pid no process has: above Linux's largest pid_max (2^22). */
const DEAD_PID = 2 ** 30;
const HOUR_MS = 60 * 60 * 1000;

describe('removeOrphanedSources', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'pipefill-sweep-test-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  /** A folder as LocalSource.create makes one, with a file, last changed `ageMs` ago. */
  const folder = (name: string, ageMs: number) => {
    const path = join(directory, name);
    mkdirSync(path);
    writeFileSync(join(path, 'f.bin'), 'x');
    const when = (Date.now() - ageMs) / 1000;
    utimesSync(path, when, when);
    return path;
  };

  it('removes a dead process’s old folder and keeps a live one’s, a young one, other names, files and links', () => {
    const dead = folder(`pipefill-source-${DEAD_PID}-abcDEF`, 2 * HOUR_MS);
    folder(`pipefill-source-${DEAD_PID}-young1`, 60_000);
    folder(`pipefill-source-${process.ppid}-parent`, 2 * HOUR_MS);
    folder(`pipefill-source-${process.pid}-itself`, 2 * HOUR_MS);
    folder('pipefill-source-abcDEF', 2 * HOUR_MS); // the name before the pid was in it: whose, unknown
    folder(`pipefill-source-${DEAD_PID}-toolong7`, 2 * HOUR_MS);
    writeFileSync(join(directory, `pipefill-source-${DEAD_PID}-afile1`), 'x');
    const target = folder('elsewhere', 2 * HOUR_MS);
    symlinkSync(target, join(directory, `pipefill-source-${DEAD_PID}-link12`));

    expect(removeOrphanedSources(directory)).toEqual([dead]);
    expect(readdirSync(directory).sort()).toEqual(
      [
        `pipefill-source-${DEAD_PID}-young1`,
        `pipefill-source-${process.ppid}-parent`,
        `pipefill-source-${process.pid}-itself`,
        'pipefill-source-abcDEF',
        `pipefill-source-${DEAD_PID}-toolong7`,
        `pipefill-source-${DEAD_PID}-afile1`,
        'elsewhere',
        `pipefill-source-${DEAD_PID}-link12`,
      ].sort(),
    );
    expect(readdirSync(target)).toEqual(['f.bin']);
  });

  it('a folder that does not exist is nothing to sweep', () => {
    expect(removeOrphanedSources(join(directory, 'missing'))).toEqual([]);
  });
});

describe('LocalSource.create', () => {
  it('names its folder with this process’s pid, and removes it', async () => {
    const source = await LocalSource.create(parseWorkload('file:1MiB'), 'seed');
    try {
      expect(source.root.startsWith(join(tmpdir(), `pipefill-source-${process.pid}-`))).toBe(true);
      expect(readdirSync(source.root)).toHaveLength(1);
    } finally {
      await source.close();
      source.remove();
    }
    expect(() => readdirSync(source.root)).toThrow(/ENOENT/);
  });
});
