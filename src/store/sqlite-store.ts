// The embedded default: one SQLite file in the user's data folder, in WAL
// mode so a reader never waits on a writer, and a five-second busy wait so
// two Pipefill processes saving at once take turns rather than fail.
// better-sqlite3: maintained, synchronous (no thread pool between a save and
// its commit). From 13 it is a Node-API addon whose package carries its
// binaries for every platform, so nothing is compiled or downloaded at
// install, and it outlives Node's own ABI changes (12.x aborted at exit on
// Node 24.19+, in its statements' destructors).

import { lstatSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { corruptError, fullError, lockedError, readOnlyError, StoreError } from './store-errors.js';
import type { HistoryStore } from './history-store.js';
import { historyStoreOn } from './history-store.js';
import type { Sql, SqlValue } from './sql.js';

/** How long a save waits for another process's write to finish. */
export const BUSY_TIMEOUT_MS = 5_000;

function storeError(where: string, error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return error;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return lockedError(where, error);
  if (code.startsWith('SQLITE_FULL')) return fullError(where, error);
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) return corruptError(where, error);
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM')) return readOnlyError(where, error);
  return error;
}

/** Per file (resolved path): the end of the queue of this process's work on it. */
const queues = new Map<string, Promise<unknown>>();

const bindable = (params: readonly SqlValue[]) => params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));

export interface SqliteOptions {
  /** How long a write waits for another process's (default BUSY_TIMEOUT_MS). */
  readonly busyTimeoutMs?: number;
}

/**
 * WAL mode is kept in the file, so only its first user sets it. Two
 * processes that create the file at once both try, and SQLite answers the
 * loser "busy" at once, without its busy wait (seen: 3 in 15 runs of two
 * imports started together): so try again, briefly, within the busy timeout.
 */
function enterWalMode(db: Database.Database, busyTimeoutMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + busyTimeoutMs;
  // Bounded by the deadline: at most busyTimeoutMs / 10 attempts.
  for (;;) {
    try {
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

/** A connection to the file, without the history schema (the store's and the tests' way in). */
export function sqliteSql(path: string, options: SqliteOptions = {}): Sql {
  // The file is the person's own; a symbolic link in its place could point a save at anything.
  try {
    if (lstatSync(path).isSymbolicLink())
      throw new StoreError('store-refused', `${path} is a symbolic link, not a history file.`, 'Give the file itself with --store.');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let db: Database.Database | undefined;
  try {
    const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
    db = new Database(path, { timeout: busyTimeoutMs });
    enterWalMode(db, busyTimeoutMs);
    db.pragma('foreign_keys = ON');
  } catch (error) {
    db?.close();
    throw storeError(path, error);
  }
  const open = db;
  // better-sqlite3 is synchronous: SQLite's busy wait would block this whole
  // thread while another connection of the same process holds the lock across
  // an await, and that one could never commit. So within a process, every
  // connection to one file queues here; SQLite's lock and busy wait are left
  // for other processes.
  const key = resolve(path);
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return next;
  };
  const direct = (inTransaction: boolean): Sql => ({
    dialect: 'sqlite',
    all: async <Row>(text: string, params: readonly SqlValue[] = []) => {
      try {
        return open.prepare(text).all(...bindable(params)) as Row[];
      } catch (error) {
        throw storeError(path, error);
      }
    },
    run: async (text, params = []) => {
      try {
        return { changes: open.prepare(text).run(...bindable(params)).changes };
      } catch (error) {
        throw storeError(path, error);
      }
    },
    transaction: async (work) => {
      if (inTransaction) return work(direct(true));
      try {
        open.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw storeError(path, error);
      }
      try {
        const result = await work(direct(true));
        open.exec('COMMIT');
        return result;
      } catch (error) {
        if (open.inTransaction) open.exec('ROLLBACK');
        throw storeError(path, error);
      }
    },
    close: async () => {
      open.close();
    },
  });
  const inner = direct(false);
  const sql: Sql = {
    dialect: 'sqlite',
    all: (text, params) => exclusive(() => inner.all(text, params)),
    run: (text, params) => exclusive(() => inner.run(text, params)),
    transaction: (work) => exclusive(() => inner.transaction(work)),
    close: () => exclusive(() => inner.close()),
  };
  return sql;
}

export async function openSqliteStore(path: string, options: SqliteOptions = {}): Promise<HistoryStore> {
  return historyStoreOn(sqliteSql(path, options), path);
}
