// The history store over either backend (sql.ts): save a run, list them,
// show one, delete one, a site's runs for its trend. The document is kept as
// Pipefill wrote it (the schema's own fields, re-serialised after checking,
// so nothing a file smuggled in, a password say, is ever stored); a run saved
// twice (an import repeated) is found by its digest and kept once.

import { createHash } from 'node:crypto';
import type { RunDocument, RunSummary, StoredRun } from '../contract/history.js';
import { runColumns, runDocumentOf, siteOf } from '../contract/history.js';
import { PipefillInputError } from '../model/errors.js';
import { foreignError, newerError } from './store-errors.js';
import { MIGRATIONS, SCHEMA_VERSION, insertGenerations } from './migrations.js';
import type { Sql } from './sql.js';

/** Who saved a run and where: an account and a host name, never a secret. */
export interface SavedBy {
  readonly ranBy: string;
  readonly machine: string;
}

export interface SaveResult {
  readonly id: number;
  /** False when the same run was already stored (an import repeated). */
  readonly created: boolean;
}

export interface HistoryStore {
  /** Where it is, for messages: a file path, or a PostgreSQL address without its password. */
  readonly where: string;
  save(document: RunDocument, by: SavedBy): Promise<SaveResult>;
  list(filter?: { readonly site?: string | undefined; readonly limit?: number | undefined }): Promise<RunSummary[]>;
  get(id: number): Promise<StoredRun | undefined>;
  /** One site's most recent runs (at most MAX_TREND_RUNS), oldest first. */
  siteRuns(site: string): Promise<StoredRun[]>;
  delete(id: number): Promise<boolean>;
  close(): Promise<void>;
}

interface RunRow {
  id: number | string;
  kind: 'assessment' | 'capacity';
  share: string;
  site: string;
  started_at: string;
  ran_by: string;
  machine: string;
  saved_at: string;
  link_mbps: number | null;
  rtt_ms: number | null;
  readiness_met: boolean | number | null;
  headline: string;
  document?: string;
}

const SUMMARY_COLUMNS = 'id, kind, share, site, started_at, ran_by, machine, saved_at, link_mbps, rtt_ms, readiness_met, headline';
/** A list answers at most this many runs (sixty branches, monthly, for years). */
export const MAX_LISTED_RUNS = 10_000;
/** A trend reads at most this many whole documents (a site checked monthly for forty years), so memory stays bounded. */
export const MAX_TREND_RUNS = 500;

function summaryOf(row: RunRow): RunSummary {
  return {
    id: Number(row.id),
    kind: row.kind,
    share: row.share,
    site: row.site,
    startedAt: row.started_at,
    ranBy: row.ran_by,
    machine: row.machine,
    savedAt: row.saved_at,
    linkMbps: row.link_mbps === null ? null : Number(row.link_mbps),
    rttMs: row.rtt_ms === null ? null : Number(row.rtt_ms),
    readinessMet: row.readiness_met === null ? null : Boolean(row.readiness_met),
    headline: row.headline,
  };
}

function storedRunOf(row: RunRow): StoredRun {
  const document = runDocumentOf(JSON.parse(row.document ?? 'null'));
  return { summary: summaryOf(row), report: document.kind === 'assessment' ? document.report : null, capacity: document.kind === 'capacity' ? document.capacity : null };
}

function checkId(id: number): void {
  if (!(Number.isSafeInteger(id) && id > 0)) throw new PipefillInputError(`${id} is not a run number.`, 'Run numbers are whole numbers from 1 up, as `pipefill history list` shows them.');
}

async function tablesOf(sql: Sql): Promise<string[]> {
  const rows =
    sql.dialect === 'sqlite'
      ? await sql.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      : await sql.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
  return rows.map((row) => row.name);
}

/** Brings a store to this Pipefill's schema (or refuses it, unchanged), in one transaction. */
export async function migrate(sql: Sql, where: string, upTo: number = SCHEMA_VERSION): Promise<void> {
  await sql.transaction(async (tx) => {
    const tables = await tablesOf(tx);
    if (!tables.includes('pipefill_schema')) {
      if (tables.length > 0) throw foreignError(where);
      await tx.run('CREATE TABLE pipefill_schema (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    }
    const [row] = await tx.all<{ version: number | string | null }>('SELECT MAX(version) AS version FROM pipefill_schema');
    const current = Number(row?.version ?? 0);
    if (current > SCHEMA_VERSION) throw newerError(where, current, SCHEMA_VERSION);
    for (const migration of MIGRATIONS) {
      if (migration.version <= current || migration.version > upTo) continue;
      await migration.apply(tx);
      await tx.run('INSERT INTO pipefill_schema (version, applied_at) VALUES (?, ?)', [migration.version, new Date().toISOString()]);
    }
  });
}

/** A store on an open connection, brought to this Pipefill's schema first. */
export async function historyStoreOn(sql: Sql, where: string): Promise<HistoryStore> {
  try {
    await migrate(sql, where);
  } catch (error) {
    await sql.close().catch(() => undefined);
    throw error;
  }
  return {
    where,
    async save(document, by) {
      const columns = runColumns(document);
      const text = JSON.stringify(document.kind === 'assessment' ? document.report : document.capacity);
      const digest = createHash('sha256').update(text).digest('hex');
      return sql.transaction(async (tx) => {
        const [existing] = await tx.all<{ id: number | string }>('SELECT id FROM runs WHERE document_sha256 = ?', [digest]);
        if (existing) return { id: Number(existing.id), created: false };
        const [inserted] = await tx.all<{ id: number | string }>(
          `INSERT INTO runs (kind, share, site, started_at, ran_by, machine, saved_at, link_mbps, rtt_ms, readiness_met, headline, document, document_sha256)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [columns.kind, columns.share, columns.site, columns.startedAt, by.ranBy, by.machine, new Date().toISOString(), columns.linkMbps, columns.rttMs, columns.readinessMet, columns.headline, text, digest],
        );
        if (!inserted) throw new Error('The store returned no id for the saved run.');
        const id = Number(inserted.id);
        await insertGenerations(tx, id, columns);
        return { id, created: true };
      });
    },
    async list(filter = {}) {
      const limit = Math.min(MAX_LISTED_RUNS, Math.max(1, Math.floor(filter.limit ?? MAX_LISTED_RUNS)));
      const rows =
        filter.site === undefined
          ? await sql.all<RunRow>(`SELECT ${SUMMARY_COLUMNS} FROM runs ORDER BY started_at DESC, id DESC LIMIT ?`, [limit])
          : await sql.all<RunRow>(`SELECT ${SUMMARY_COLUMNS} FROM runs WHERE site = ? ORDER BY started_at DESC, id DESC LIMIT ?`, [siteOf(filter.site), limit]);
      return rows.map(summaryOf);
    },
    async get(id) {
      checkId(id);
      const [row] = await sql.all<RunRow>(`SELECT ${SUMMARY_COLUMNS}, document FROM runs WHERE id = ?`, [id]);
      return row ? storedRunOf(row) : undefined;
    },
    async siteRuns(site) {
      const rows = await sql.all<RunRow>(`SELECT ${SUMMARY_COLUMNS}, document FROM runs WHERE site = ? ORDER BY started_at DESC, id DESC LIMIT ?`, [siteOf(site), MAX_TREND_RUNS]);
      return rows.reverse().map(storedRunOf);
    },
    async delete(id) {
      checkId(id);
      return sql.transaction(async (tx) => {
        await tx.run('DELETE FROM run_generations WHERE run_id = ?', [id]);
        return (await tx.run('DELETE FROM runs WHERE id = ?', [id])).changes > 0;
      });
    },
    close: () => sql.close(),
  };
}
