// The history store's behaviour, written once and run against each backend
// (sqlite-store.int.test.ts, postgres-store.int.test.ts): the same saves,
// lists, trends, deletes, migrations and refusals must hold on both.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDocument } from '../contract/history.js';
import { runColumns, runDocumentOf } from '../contract/history.js';
import type { Report } from '../contract/report.js';
import { ReportSchema } from '../contract/report.js';
import { packageRoot } from '../platform/package-root.js';
import { CAPACITY_FIXTURE } from './capacity-fixture.js';
import type { HistoryStore } from '../store/history-store.js';
import { migrate } from '../store/history-store.js';
import { SCHEMA_VERSION } from '../store/migrations.js';
import type { Sql } from '../store/sql.js';
import { StoreError } from '../store/store-errors.js';
import { siteTrend } from '../presentation/site-trend.js';

export function fixtureReport(name: 'lab-155mbit-32ms' | 'lab-52mbit-75ms'): Report {
  return ReportSchema.parse(JSON.parse(readFileSync(join(packageRoot(), 'src', 'report', 'fixtures', `${name}.json`), 'utf8')));
}

const by = { ranBy: 'ann', machine: 'helpdesk-07' };

export interface Backend {
  readonly name: string;
  /** A new, empty store. */
  readonly fresh: () => Promise<{ readonly store: () => Promise<HistoryStore>; readonly raw: () => Promise<Sql>; readonly everything: () => Promise<string> }>;
}

export function historyStoreSuite(backend: Backend): void {
  describe(`the history store on ${backend.name}`, () => {
    it("keeps each run's document as written, lists a site's runs whatever the slashes and case, and gives its trend", async () => {
      const { store: open } = await backend.fresh();
      const store = await open();
      try {
        expect(await store.list()).toEqual([]);
        const older = fixtureReport('lab-52mbit-75ms');
        const newer = fixtureReport('lab-155mbit-32ms');
        const first = await store.save({ kind: 'assessment', report: older }, by);
        const second = await store.save({ kind: 'assessment', report: newer }, by);
        const capacity = await store.save({ kind: 'capacity', capacity: CAPACITY_FIXTURE }, by);
        expect([first.created, second.created, capacity.created]).toEqual([true, true, true]);
        const all = await store.list();
        expect(all).toHaveLength(3);
        // Newest first.
        expect(all.map((run) => run.startedAt)).toEqual(
          all
            .map((run) => run.startedAt)
            .sort()
            .reverse(),
        );
        expect(all.find((run) => run.id === second.id)).toMatchObject({
          kind: 'assessment',
          site: '10.77.0.2/share',
          share: '//10.77.0.2/share',
          ranBy: 'ann',
          machine: 'helpdesk-07',
          readinessMet: null,
        });
        expect((await store.list({ site: '\\\\10.77.0.2\\SHARE' })).map((run) => run.id)).toEqual([second.id, first.id]);
        expect((await store.list({ site: '//branch-fs/data' }))[0]).toMatchObject({ kind: 'capacity', readinessMet: CAPACITY_FIXTURE.readiness?.met ?? null });
        const shown = await store.get(first.id);
        expect(shown?.report).toEqual(older);
        expect(shown?.capacity).toBeNull();
        expect((await store.get(capacity.id))?.capacity).toEqual(CAPACITY_FIXTURE);
        expect(await store.get(999_999)).toBeUndefined();
        const trend = await store.siteTrendData('//10.77.0.2/share').then(siteTrend);
        expect(trend.runs).toBe(2);
        // Each series holds the runs that measured it like with like, oldest first; between them, both runs.
        const series = Object.values(trend.generations);
        expect(
          series.every(
            (points) =>
              points.map((point) => point.id).join() ===
              points
                .map((point) => point.id)
                .sort((a, b) => a - b)
                .join(),
          ),
        ).toBe(true);
        expect([...new Set(series.flatMap((points) => points.map((point) => point.id)))].sort((a, b) => a - b)).toEqual(
          [first.id, second.id].sort((a, b) => a - b),
        );
        expect(series.some((points) => points.length === 2)).toBe(true);
        expect(trend.changes).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^bandwidth now 1\d\d Mb\/s, was \d\d\.\d Mb\/s$/),
            expect.stringMatching(/^round trip now 3\d\.\d ms, was 7\d\.\d$/),
          ]),
        );
      } finally {
        await store.close();
      }
    });

    it('keeps a run saved twice once, deletes a run with its rows, and refuses a run number that is not one', async () => {
      const { store: open, raw } = await backend.fresh();
      const store = await open();
      try {
        const report = fixtureReport('lab-155mbit-32ms');
        const saved = await store.save({ kind: 'assessment', report }, by);
        expect(await store.save({ kind: 'assessment', report: structuredClone(report) }, { ranBy: 'bob', machine: 'other' })).toEqual({
          id: saved.id,
          created: false,
        });
        expect(await store.list()).toHaveLength(1);
        expect(await store.delete(saved.id)).toBe(true);
        expect(await store.delete(saved.id)).toBe(false);
        expect(await store.get(saved.id)).toBeUndefined();
        await expect(store.get(0)).rejects.toThrow(/not a run number/);
        await expect(store.delete(-3)).rejects.toThrow(/not a run number/);
      } finally {
        await store.close();
      }
      const sql = await raw();
      try {
        expect(await sql.all('SELECT * FROM run_generations')).toEqual([]);
      } finally {
        await sql.close();
      }
    });

    it('stores no field a file smuggled in: a password in an imported report never reaches the store', async () => {
      const { store: open, everything } = await backend.fresh();
      const store = await open();
      const hostile = { ...JSON.parse(JSON.stringify(fixtureReport('lab-52mbit-75ms'))), password: 'hunter2-NEVER-STORED' };
      hostile.target = { ...hostile.target, password: 'hunter2-NEVER-STORED' };
      try {
        const document: RunDocument = runDocumentOf(hostile);
        const { id } = await store.save(document, by);
        expect(JSON.stringify((await store.get(id))?.report)).not.toContain('hunter2');
      } finally {
        await store.close();
      }
      expect(await everything()).not.toContain('hunter2');
    });

    it('migrates a store from the previous schema, filling the new table from the runs it holds', async () => {
      const { store: open, raw } = await backend.fresh();
      const sql = await raw();
      const report = fixtureReport('lab-52mbit-75ms');
      try {
        await migrate(sql, 'test', 1);
        const text = JSON.stringify(report);
        await sql.run(
          `INSERT INTO runs (kind, share, site, started_at, ran_by, machine, saved_at, link_mbps, rtt_ms, readiness_met, headline, document, document_sha256) VALUES ('assessment', ?, ?, ?, 'ann', 'old', ?, 52, 75, NULL, 'h', ?, 'digest-of-an-old-run')`,
          [report.target.share, '10.77.0.2/share', report.startedAt, report.startedAt, text],
        );
        expect((await sql.all<{ version: number }>('SELECT version FROM pipefill_schema')).map((row) => Number(row.version))).toEqual([1]);
      } finally {
        await sql.close();
      }
      const store = await open();
      try {
        const [run] = await store.list();
        expect((await store.get(run?.id ?? 0))?.report).toEqual(report);
      } finally {
        await store.close();
      }
      const after = await raw();
      try {
        expect((await after.all<{ version: number }>('SELECT version FROM pipefill_schema ORDER BY version')).map((row) => Number(row.version))).toEqual([
          1, 2, 3,
        ]);
        expect(SCHEMA_VERSION).toBe(3);
        const rows = await after.all<{ generation: string; workload: string; measured_mbps: number }>(
          'SELECT generation, workload, measured_mbps FROM run_generations ORDER BY generation',
        );
        expect(rows).toHaveLength(report.diagnosis.findings.length);
        // The columns as runColumns derives them from the document (a file's rate once under way where it shows one).
        const [key, first] = Object.entries(runColumns({ kind: 'assessment', report }).generations)[0] ?? [];
        const row = rows.find((candidate) => candidate.generation === key);
        expect(row?.workload).toBe(first?.workload);
        expect(Number(row?.measured_mbps)).toBeCloseTo(first?.mbps ?? NaN, 6);
      } finally {
        await after.close();
      }
    });

    it("refuses a store from a newer Pipefill, and a database of another program's tables, and changes neither", async () => {
      const { store: open, raw } = await backend.fresh();
      const first = await open();
      const { id } = await first.save({ kind: 'assessment', report: fixtureReport('lab-52mbit-75ms') }, by);
      await first.close();
      const sql = await raw();
      await sql.run('INSERT INTO pipefill_schema (version, applied_at) VALUES (99, ?)', [new Date().toISOString()]);
      await sql.close();
      const refused = await open().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreError);
      expect((refused as StoreError).storeKind).toBe('store-newer');
      expect((refused as StoreError).message).toMatch(/newer Pipefill \(schema 99; this one knows up to 3\)/);
      const check = await raw();
      try {
        expect((await check.all<{ id: number }>('SELECT id FROM runs')).map((row) => Number(row.id))).toEqual([id]);
      } finally {
        await check.close();
      }

      const other = await backend.fresh();
      const foreign = await other.raw();
      await foreign.run('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER)');
      await foreign.close();
      await expect(other.store()).rejects.toMatchObject({ storeKind: 'store-foreign' });
      const still = await other.raw();
      try {
        expect(await still.all('SELECT * FROM invoices')).toEqual([]);
      } finally {
        await still.close();
      }
    });

    it('refuses a document with an unbounded field, and a list stays bounded whatever a row holds (issue 35, item 4)', async () => {
      const { store: open, raw } = await backend.fresh();
      const store = await open();
      try {
        const huge = JSON.parse(JSON.stringify(fixtureReport('lab-52mbit-75ms'))) as Report;
        expect(() => runDocumentOf({ ...huge, target: { ...huge.target, share: `//fs/${'x'.repeat(2_000_000)}` } })).toThrow(/share/);
        expect(() => runDocumentOf({ ...huge, diagnosis: { ...huge.diagnosis, headline: 'h'.repeat(100_000) } })).toThrow(
          /document\.diagnosis\.headline holds 100000 characters/,
        );
        // A row written straight into a team store (or by an older Pipefill) with a 2 MB share: the list still answers, cut to bounds.
        const { id } = await store.save({ kind: 'assessment', report: huge }, by);
        const sql = await raw();
        try {
          await sql.run('UPDATE runs SET share = ?, headline = ? WHERE id = ?', [`//fs/${'y'.repeat(2_000_000)}`, 'z'.repeat(2_000_000), id]);
        } finally {
          await sql.close();
        }
        const [row] = await store.list();
        expect(row?.share.length).toBe(1024);
        expect(row?.headline.length).toBe(2048);
      } finally {
        await store.close();
      }
    });

    it("skips and counts a run this Pipefill cannot read: the site's trend, list and export go on; showing it says why (issue 35, item 9)", async () => {
      const { store: open, raw } = await backend.fresh();
      const store = await open();
      try {
        const older = await store.save({ kind: 'assessment', report: fixtureReport('lab-52mbit-75ms') }, by);
        const newer = await store.save({ kind: 'assessment', report: fixtureReport('lab-155mbit-32ms') }, by);
        // A newer Pipefill's row: a schema this one does not know (and no generation rows it would understand).
        const sql = await raw();
        try {
          await sql.run('UPDATE runs SET document = ? WHERE id = ?', [JSON.stringify({ schemaVersion: 99, somethingNew: true }), newer.id]);
          await sql.run('DELETE FROM run_generations WHERE run_id = ?', [newer.id]);
        } finally {
          await sql.close();
        }
        const trend = await store.siteTrendData('//10.77.0.2/share').then(siteTrend);
        expect(trend.runs).toBe(2);
        expect(trend.unreadable).toBe(1);
        expect(Object.values(trend.generations).every((points) => points.map((point) => point.id).join() === String(older.id))).toBe(true);
        expect(await store.list()).toHaveLength(2);
        await expect(store.get(newer.id)).rejects.toMatchObject({
          kind: 'store-unreadable-run',
          message: expect.stringMatching(/^Run \d+ of \/\/10\.77\.0\.2\/share cannot be read by this Pipefill/),
        });
        expect((await store.get(older.id))?.report).toBeTruthy();
      } finally {
        await store.close();
      }
    });

    it('a trend over hundreds of runs reads their columns, not their documents: memory stays bounded (issue 35, item 4)', async () => {
      const { store: open } = await backend.fresh();
      const store = await open();
      try {
        const base = fixtureReport('lab-155mbit-32ms');
        // Each run carries some 2 MB of copies' timelines; 40 of them are 80 MB of documents the trend must not load.
        const bulky = {
          ...base,
          copyTests: Array.from({ length: Math.ceil((2 * 1024 * 1024) / JSON.stringify(base.copyTests).length) }, () => base.copyTests).flat(),
        };
        for (let index = 0; index < 40; index++) {
          await store.save({ kind: 'assessment', report: { ...bulky, startedAt: `2026-01-01T00:${String(index).padStart(2, '0')}:00.000Z` } }, by);
        }
        const before = process.memoryUsage().rss;
        const trend = await store.siteTrendData('//10.77.0.2/share').then(siteTrend);
        expect(trend.runs).toBe(40);
        expect(Object.values(trend.generations)[0]).toHaveLength(40);
        // The trend parses the last two documents (what changed between them): under 64 MiB of RSS on four fresh
        // clones and 86 MB on a fifth, which the old 64 MiB bound failed. All forty would be 80 MB of text before
        // parsing, several hundred parsed: 192 MiB tells the two apart with room on both sides.
        expect(process.memoryUsage().rss - before).toBeLessThan(192 * 1024 * 1024);
      } finally {
        await store.close();
      }
    }, 120_000);

    it('two stores saving at once, on separate connections, both land', async () => {
      const { store: open } = await backend.fresh();
      const [a, b] = await Promise.all([open(), open()]);
      try {
        const base = fixtureReport('lab-155mbit-32ms');
        const runs = (prefix: string) => Array.from({ length: 8 }, (_, index) => ({ ...base, startedAt: `2026-0${prefix}-1${index}T00:00:00.000Z` }));
        const saved = await Promise.all([
          ...runs('1').map((report) => a.save({ kind: 'assessment', report }, by)),
          ...runs('2').map((report) => b.save({ kind: 'assessment', report }, by)),
        ]);
        expect(new Set(saved.map((result) => result.id)).size).toBe(16);
        expect(await a.list()).toHaveLength(16);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
