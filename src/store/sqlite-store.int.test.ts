// The history store's suite on SQLite files, and what only a file can do:
// be damaged, be locked by another program, be a symbolic link.

import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { openSqliteStore, sqliteSql } from './sqlite-store.js';
import { fixtureReport, historyStoreSuite } from '../test-support/store-suite.js';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'pipefill-store-'));
  folders.push(made);
  return made;
}

historyStoreSuite({
  name: 'SQLite',
  fresh: async () => {
    const path = join(folder(), 'history.sqlite');
    return {
      store: () => openSqliteStore(path),
      raw: async () => sqliteSql(path),
      everything: async () => ['', '-wal', '-shm'].map((suffix) => (existsSync(path + suffix) ? readFileSync(path + suffix).toString('latin1') : '')).join(''),
    };
  },
});

const by = { ranBy: 'ann', machine: 'helpdesk-07' };

describe('a SQLite history file', () => {
  it('is created on first use in WAL mode, in a folder only its owner can enter', async () => {
    const path = join(folder(), 'new', 'deeper', 'history.sqlite');
    const store = await openSqliteStore(path);
    await store.close();
    expect(lstatSync(join(path, '..')).mode & 0o777).toBe(0o700);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('that is damaged or not a database is refused as such, and left byte for byte as it was', async () => {
    const path = join(folder(), 'history.sqlite');
    const junk = Buffer.concat([Buffer.from('this is not a database, but somebody wants it kept\n'), Buffer.alloc(8192, 0x5a)]);
    writeFileSync(path, junk);
    await expect(openSqliteStore(path)).rejects.toMatchObject({ storeKind: 'store-corrupt', hint: expect.stringMatching(/left the file as it is/) });
    expect(readFileSync(path).equals(junk)).toBe(true);

    // A real store whose pages were overwritten in the middle.
    const damaged = join(folder(), 'history.sqlite');
    const store = await openSqliteStore(damaged);
    for (const name of ['lab-52mbit-75ms', 'lab-155mbit-32ms'] as const) await store.save({ kind: 'assessment', report: fixtureReport(name) }, by);
    await store.close();
    const bytes = readFileSync(damaged);
    bytes.fill(0xa5, 4096, bytes.length);
    writeFileSync(damaged, bytes);
    const before = readFileSync(damaged);
    const result = await openSqliteStore(damaged).then(
      async (opened) => {
        try {
          return await opened.list();
        } finally {
          await opened.close();
        }
      },
      (error: unknown) => error,
    );
    expect(result).toMatchObject({ storeKind: 'store-corrupt' });
    expect(readFileSync(damaged).equals(before)).toBe(true);
  });

  it('locked by another program gives a clear error after the busy wait, and the runs already stored stay', async () => {
    const path = join(folder(), 'history.sqlite');
    const store = await openSqliteStore(path, { busyTimeoutMs: 300 });
    const { id } = await store.save({ kind: 'assessment', report: fixtureReport('lab-52mbit-75ms') }, by);
    const holder = new Database(path);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      await expect(store.save({ kind: 'assessment', report: fixtureReport('lab-155mbit-32ms') }, by)).rejects.toMatchObject({
        storeKind: 'store-locked',
        message: expect.stringMatching(/stayed locked by another program/),
      });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect((await store.list()).map((run) => run.id)).toEqual([id]);
    // Once the other program lets go, the same save lands.
    expect((await store.save({ kind: 'assessment', report: fixtureReport('lab-155mbit-32ms') }, by)).created).toBe(true);
    await store.close();
  });

  it('in place of a symbolic link is refused: a save never follows one', async () => {
    const dir = folder();
    const target = join(dir, 'elsewhere');
    writeFileSync(target, 'precious');
    symlinkSync(target, join(dir, 'history.sqlite'));
    await expect(openSqliteStore(join(dir, 'history.sqlite'))).rejects.toMatchObject({ storeKind: 'store-refused' });
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });
});

const canMount = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/unshare');
const cliEntry = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

describe.skipIf(!canMount || !existsSync(cliEntry))('a SQLite history file on a full disk', () => {
  it('refuses the run that does not fit with a clear error, and every run stored before it stays readable', () => {
    // A 640 KiB tmpfs in a mount namespace of the test's own: it and the file on it are gone when the shell exits.
    const dir = folder();
    const disk = join(dir, 'disk');
    mkdirSync(disk);
    const base = JSON.parse(readFileSync(fileURLToPath(new URL('../report/fixtures/lab-52mbit-75ms.json', import.meta.url)), 'utf8'));
    const files = Array.from({ length: 12 }, (_, index) => {
      const path = join(dir, `run-${index}.json`);
      writeFileSync(path, JSON.stringify({ ...base, startedAt: `2026-03-${String(index + 10)}T08:00:00.000Z` }));
      return path;
    });
    const node = [process.execPath, ...ENGINE_NODE_FLAGS, cliEntry].map((part) => `'${part}'`).join(' ');
    const store = join(disk, 'history.sqlite');
    const script = `mount -t tmpfs -o size=640k tmpfs '${disk}' || exit 90
${node} history import ${files.map((file) => `'${file}'`).join(' ')} --store '${store}'; echo "import-exit $?"
${node} history list --json --store '${store}'; echo "list-exit $?"`;
    const ran = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], { encoding: 'utf8', timeout: 120_000 });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/import-exit 1/);
    expect(ran.stderr).toMatch(/error: The history store .*history\.sqlite is full[\s\S]*hint: Nothing stored was changed/);
    const imported = (ran.stderr.match(/: imported as run \d+/g) ?? []).length;
    expect(imported).toBeGreaterThan(0);
    expect(imported).toBeLessThan(files.length);
    const listed = JSON.parse(ran.stdout.slice(ran.stdout.indexOf('import-exit 1') + 'import-exit 1'.length, ran.stdout.indexOf('list-exit')));
    expect(ran.stdout).toMatch(/list-exit 0/);
    expect(listed).toHaveLength(imported);
  }, 150_000);
});
