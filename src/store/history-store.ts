// The history store over either backend (sql.ts): save a run, list them,
// show one, delete one, a site's runs for its trend. The document is kept as
// Pipefill wrote it (the schema's own fields, re-serialised after checking,
// so nothing a file smuggled in, a password say, is ever stored); a run saved
// twice (an import repeated) is found by its digest and kept once.

import { createHash } from 'node:crypto';
import type { RunDocument, RunSummary, SiteTrendData, StoredRun, TrendRun } from '../contract/history.js';
import { runColumns, runDocumentOf, siteOf } from '../contract/history.js';
import type { Report } from '../contract/report.js';
import { MAX_REPORT_BYTES } from '../contract/report.js';
import { PipefillError, PipefillInputError } from '../model/errors.js';
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
  /** One site's trend over its most recent runs (at most MAX_TREND_RUNS), from their columns. */
  siteTrendData(site: string): Promise<SiteTrendData>;
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

/**
 * The columns a list shows, each text cut to a bound: a row kept by an older
 * Pipefill (before documents were bounded field by field) or written straight
 * into a team store cannot make a list carry megabytes.
 */
const SUMMARY_COLUMNS =
  'id, kind, substr(share, 1, 1024) AS share, substr(site, 1, 1024) AS site, substr(started_at, 1, 64) AS started_at, substr(ran_by, 1, 256) AS ran_by, substr(machine, 1, 256) AS machine, substr(saved_at, 1, 64) AS saved_at, link_mbps, rtt_ms, readiness_met, substr(headline, 1, 2048) AS headline';
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

/** A stored document this Pipefill reads, or undefined (a newer Pipefill's, or damaged). */
function readDocument(text: string | undefined): RunDocument | undefined {
  if (text === undefined || text.length > MAX_REPORT_BYTES) return undefined;
  try {
    return runDocumentOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function storedRunOf(row: RunRow): StoredRun {
  const document = readDocument(row.document);
  if (!document) {
    throw new PipefillError(
      'store-unreadable-run',
      `Run ${Number(row.id)} of ${summaryOf(row).share.slice(0, 200)} cannot be read by this Pipefill: a newer Pipefill kept it, or it is damaged.`,
      'Update Pipefill to show it; every other run is unaffected (`pipefill history delete ID` removes it).',
    );
  }
  return {
    summary: summaryOf(row),
    report: document.kind === 'assessment' ? document.report : null,
    capacity: document.kind === 'capacity' ? document.capacity : null,
  };
}

function checkId(id: number): void {
  if (!(Number.isSafeInteger(id) && id > 0))
    throw new PipefillInputError(`${id} is not a run number.`, 'Run numbers are whole numbers from 1 up, as `pipefill history list` shows them.');
}

async function tablesOf(sql: Sql): Promise<string[]> {
  const rows =
    sql.dialect === 'sqlite'
      ? await sql.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      : await sql.all<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
        );
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
          `INSERT INTO runs (kind, share, site, started_at, ran_by, machine, saved_at, link_mbps, rtt_ms, readiness_met, headline, document, document_sha256, peak_mbps)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [
            columns.kind,
            columns.share,
            columns.site,
            columns.startedAt,
            by.ranBy.slice(0, 256),
            by.machine.slice(0, 256),
            new Date().toISOString(),
            columns.linkMbps,
            columns.rttMs,
            columns.readinessMet,
            columns.headline,
            text,
            digest,
            columns.peakMbps,
          ],
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
    async siteTrendData(site) {
      const key = siteOf(site);
      const rows = await sql.all<{
        id: number | string;
        kind: 'assessment' | 'capacity';
        started_at: string;
        peak_mbps: number | null;
        readiness_met: boolean | number | null;
        headline: string;
      }>(
        'SELECT id, kind, substr(started_at, 1, 64) AS started_at, peak_mbps, readiness_met, substr(headline, 1, 8192) AS headline FROM runs WHERE site = ? ORDER BY started_at DESC, id DESC LIMIT ?',
        [key, MAX_TREND_RUNS],
      );
      const runs: TrendRun[] = rows.map((row) => ({
        id: Number(row.id),
        kind: row.kind,
        startedAt: row.started_at,
        peakMbps: row.peak_mbps === null ? null : Number(row.peak_mbps),
        readinessMet: row.readiness_met === null ? null : Boolean(row.readiness_met),
        headline: row.headline,
      }));
      const ids = new Set(runs.map((run) => run.id));
      const rates = (
        await sql.all<{ run_id: number | string; generation: string; workload: string; measured_mbps: number }>(
          'SELECT g.run_id, substr(g.generation, 1, 256) AS generation, substr(g.workload, 1, 100) AS workload, g.measured_mbps FROM run_generations g JOIN runs r ON r.id = g.run_id WHERE r.site = ?',
          [key],
        )
      )
        .filter((row) => ids.has(Number(row.run_id)))
        .map((row) => ({ runId: Number(row.run_id), generation: row.generation, workload: row.workload, mbps: Number(row.measured_mbps) }));
      // What changed: the last two assessments' documents, the only ones read whole, each within a report's size.
      const assessments = runs.filter((run) => run.kind === 'assessment').slice(0, 2);
      const lastTwo: Report[] = [];
      for (const run of assessments) {
        const [row] = await sql.all<{ document: string | null }>(
          'SELECT CASE WHEN length(document) <= ? THEN document END AS document FROM runs WHERE id = ?',
          [MAX_REPORT_BYTES, run.id],
        );
        const document = readDocument(row?.document ?? undefined);
        if (document?.kind === 'assessment') lastTwo.push(document.report);
      }
      // An assessment this Pipefill cannot read kept no generation rows (it was saved by a newer one, or migrated unread).
      const withRates = new Set(rates.map((rate) => rate.runId));
      const unreadable = runs.filter((run) => run.kind === 'assessment' && !withRates.has(run.id)).length;
      return { site, runs, generationRates: rates, lastTwoAssessments: lastTwo, unreadable };
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
