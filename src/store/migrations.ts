// The history store's schema, one numbered step at a time. A store records
// the steps it has taken in pipefill_schema; opening it takes the missing ones
// in one transaction (so a crash leaves it at a step, never between two), and
// refuses a store that has taken steps this Pipefill does not know.
//   1: runs, one row per run, the whole document as written, the columns a
//      list and a site query need.
//   2: run_generations, one row per generation a run measured (its workload,
//      time, rate and limit), filled for the runs already stored: what a trend needs,
//      queryable without parsing every document.
//   3: runs.peak_mbps, a capacity run's most Mb/s together (the trend's capacity
//      line), filled for the capacity runs already stored that this Pipefill reads.

import type { RunColumns } from '../contract/history.js';
import { runColumns, runDocumentOf } from '../contract/history.js';
import type { Sql } from './sql.js';

export interface Migration {
  readonly version: number;
  readonly apply: (sql: Sql) => Promise<void>;
}

export async function insertGenerations(sql: Sql, runId: number, columns: RunColumns): Promise<void> {
  for (const [generation, measure] of Object.entries(columns.generations)) {
    await sql.run('INSERT INTO run_generations (run_id, generation, workload, measured_seconds, measured_mbps, limited_by) VALUES (?, ?, ?, ?, ?, ?)', [
      runId,
      generation,
      measure.workload,
      measure.seconds,
      measure.mbps,
      measure.limitedBy,
    ]);
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    apply: async (sql) => {
      const id = sql.dialect === 'sqlite' ? 'id INTEGER PRIMARY KEY AUTOINCREMENT' : 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY';
      const real = sql.dialect === 'sqlite' ? 'REAL' : 'DOUBLE PRECISION';
      await sql.run(`CREATE TABLE runs (
        ${id},
        kind TEXT NOT NULL CHECK (kind IN ('assessment', 'capacity')),
        share TEXT NOT NULL,
        site TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ran_by TEXT NOT NULL,
        machine TEXT NOT NULL,
        saved_at TEXT NOT NULL,
        link_mbps ${real},
        rtt_ms ${real},
        readiness_met BOOLEAN,
        headline TEXT NOT NULL,
        document TEXT NOT NULL,
        document_sha256 TEXT NOT NULL UNIQUE
      )`);
      await sql.run('CREATE INDEX runs_by_site ON runs (site, started_at)');
    },
  },
  {
    version: 2,
    apply: async (sql) => {
      const real = sql.dialect === 'sqlite' ? 'REAL' : 'DOUBLE PRECISION';
      const runId = sql.dialect === 'sqlite' ? 'INTEGER' : 'BIGINT';
      await sql.run(`CREATE TABLE run_generations (
        run_id ${runId} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        generation TEXT NOT NULL,
        workload TEXT NOT NULL,
        measured_seconds ${real} NOT NULL,
        measured_mbps ${real} NOT NULL,
        limited_by TEXT NOT NULL,
        PRIMARY KEY (run_id, generation)
      )`);
      const stored = await sql.all<{ id: number | string }>("SELECT id FROM runs WHERE kind = 'assessment' ORDER BY id");
      // One document at a time; one this Pipefill cannot read keeps no rows (the trend counts it as unreadable).
      for (const { id } of stored) {
        const columns = await columnsOfStoredRun(sql, id);
        if (columns) await insertGenerations(sql, Number(id), columns);
      }
    },
  },
  {
    version: 3,
    apply: async (sql) => {
      await sql.run(`ALTER TABLE runs ADD COLUMN peak_mbps ${sql.dialect === 'sqlite' ? 'REAL' : 'DOUBLE PRECISION'}`);
      const stored = await sql.all<{ id: number | string }>("SELECT id FROM runs WHERE kind = 'capacity' ORDER BY id");
      for (const { id } of stored) {
        const columns = await columnsOfStoredRun(sql, id);
        if (columns?.peakMbps != null) await sql.run('UPDATE runs SET peak_mbps = ? WHERE id = ?', [columns.peakMbps, id]);
      }
    },
  },
];

/** A stored run's columns from its document, or undefined when this Pipefill cannot read the document. */
async function columnsOfStoredRun(sql: Sql, id: number | string): Promise<RunColumns | undefined> {
  const [row] = await sql.all<{ document: string }>('SELECT document FROM runs WHERE id = ?', [id]);
  try {
    return runColumns(runDocumentOf(JSON.parse(row?.document ?? 'null')));
  } catch {
    return undefined;
  }
}

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));
