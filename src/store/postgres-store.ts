// A team's store: one PostgreSQL database that many people's Pipefills save
// into. node-postgres (pg), the maintained pure-JavaScript client: nothing to
// build. A transaction takes an advisory lock first, so two Pipefills that
// migrate or save at once take turns; a lock not had within five seconds is
// a clear "locked" error, not a hang.

import pg from 'pg';
import { takePgPassword } from '../platform/pg-password.js';
import { StoreError, fullError, lockedError, readOnlyError } from './store-errors.js';
import type { HistoryStore } from './history-store.js';
import { historyStoreOn } from './history-store.js';
import type { Sql, SqlValue } from './sql.js';

const LOCK_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * A server that took the connection and then stalls (a VPN dropped without a
 * reset looks the same) must not hold a history call for ever: each query
 * has this long on the client's clock (node-postgres's query_timeout), the
 * server ends a statement running that long itself (statement_timeout), and
 * TCP keep-alives find a dead peer on an idle connection. A history call's
 * queries are small; a save of a 16 MiB document takes well under this.
 */
const QUERY_TIMEOUT_MS = 10_000;
/** pg_advisory_xact_lock's key for the history store: the text "pipefill-history" read as a number. */
const ADVISORY_LOCK_KEY = 0x70_66_68_73;

/** The address without its password, for every message Pipefill prints. */
export function redactedAddress(connection: string): string {
  try {
    const url = new URL(connection);
    if (url.password) url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.toString();
  } catch {
    return 'the PostgreSQL address given';
  }
}

function storeError(where: string, error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown })?.code;
  if (code === '55P03' || code === '40P01') return lockedError(where, error);
  if (code === '53100' || code === '53200' || code === '54000') return fullError(where, error);
  if (code === '25006' || code === '42501') return readOnlyError(where, error);
  if (code === '28P01' || code === '28000' || code === '3D000') {
    return new StoreError(
      'store-refused',
      `PostgreSQL at ${where} refused Pipefill: ${(error as Error).message}.`,
      'Check the user, its password (PGPASSWORD or ~/.pgpass; never in a saved setting) and the database name.',
      { cause: error },
    );
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || /timeout/i.test((error as Error)?.message ?? '')) {
    return new StoreError(
      'store-unreachable',
      `PostgreSQL at ${where} cannot be reached (${(error as Error).message}).`,
      'Check the address and that the server is running; nothing was saved.',
      { cause: error },
    );
  }
  return error;
}

const numbered = (text: string) => {
  let index = 0;
  return text.replace(/\?/g, () => `$${++index}`);
};

export interface PostgresOptions {
  /** How long a transaction waits for another's lock (default LOCK_TIMEOUT_MS). */
  readonly lockTimeoutMs?: number;
  /** How long one query may take before the call fails as unreachable (default QUERY_TIMEOUT_MS). */
  readonly queryTimeoutMs?: number;
}

/** A connection pool to the database, without the history schema (the store's and the tests' way in). */
export function postgresSql(connection: string, options: PostgresOptions = {}): Sql {
  const where = redactedAddress(connection);
  const lockTimeout = Math.max(1, Math.floor(options.lockTimeoutMs ?? LOCK_TIMEOUT_MS));
  const queryTimeout = Math.max(100, Math.floor(options.queryTimeoutMs ?? QUERY_TIMEOUT_MS));
  const password = takePgPassword();
  const pool = new pg.Pool({
    connectionString: connection,
    // PGPASSWORD, taken out of the environment (src/platform/pg-password.ts); without it node-postgres reads ~/.pgpass.
    ...(password === undefined ? {} : { password }),
    max: 4,
    connectionTimeoutMillis: Math.min(CONNECT_TIMEOUT_MS, queryTimeout),
    query_timeout: queryTimeout,
    statement_timeout: queryTimeout,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: `-c lock_timeout=${lockTimeout}`,
  });
  // A dropped idle connection is the pool's to replace, not a crash.
  pool.on('error', () => undefined);
  const on = (client: pg.Pool | pg.PoolClient, inTransaction: boolean): Sql => ({
    dialect: 'postgres',
    all: async <Row>(text: string, params: readonly SqlValue[] = []) => {
      try {
        return (await client.query(numbered(text), [...params])).rows as Row[];
      } catch (error) {
        throw storeError(where, error);
      }
    },
    run: async (text, params = []) => {
      try {
        return { changes: (await client.query(numbered(text), [...params])).rowCount ?? 0 };
      } catch (error) {
        throw storeError(where, error);
      }
    },
    transaction: async (work) => {
      if (inTransaction) return work(on(client, true));
      let session: pg.PoolClient;
      let failed: unknown;
      try {
        session = await pool.connect();
      } catch (error) {
        throw storeError(where, error);
      }
      try {
        await session.query('BEGIN');
        await session.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEY]);
        const result = await work(on(session, true));
        await session.query('COMMIT');
        return result;
      } catch (error) {
        failed = error;
        await session.query('ROLLBACK').catch(() => undefined);
        throw storeError(where, error);
      } finally {
        // A connection that failed (a stalled server's, say) is destroyed, not handed to the next call.
        session.release(failed === undefined ? undefined : failed instanceof Error ? failed : new Error(String(failed)));
      }
    },
    // A pool whose server stalls may never finish saying goodbye: closing waits at most two seconds.
    close: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pool.end().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
      clearTimeout(timer);
    },
  });
  return on(pool, false);
}

export async function openPostgresStore(connection: string, options: PostgresOptions = {}): Promise<HistoryStore> {
  return historyStoreOn(postgresSql(connection, options), redactedAddress(connection));
}
