// Which store a run goes to: `--store` (or the app's setting) names a
// PostgreSQL address or a SQLite file; nothing named, the embedded default
// in this user's data folder.

import { dirname, join, resolve } from 'node:path';
import { dataDirectory } from '../platform/data-dir.js';
import { ownedDirectory } from '../platform/safe-file.js';
import { postgresAddressHasPassword } from '../contract/history.js';
import { PipefillInputError } from '../model/errors.js';
import type { HistoryStore } from './history-store.js';
import { openPostgresStore } from './postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';

export const DEFAULT_STORE_FILE = 'history.sqlite';

export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDirectory(env), DEFAULT_STORE_FILE);
}

export type StoreSpec = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly connection: string };

export function parseStoreSpec(spec: string | undefined, env: NodeJS.ProcessEnv = process.env): StoreSpec {
  const text = spec ?? env.PIPEFILL_STORE;
  if (text === undefined || text === '') return { kind: 'sqlite', path: defaultStorePath(env) };
  if (/^postgres(ql)?:\/\//i.test(text)) {
    // A password on a command line or in the environment is read by every process of the machine (ps, /proc) and kept in shell histories.
    if (postgresAddressHasPassword(text))
      throw new PipefillInputError(
        'Leave the password out of the store address.',
        'Give it in PGPASSWORD or ~/.pgpass on this machine: postgres://USER@HOST[:PORT]/DATABASE.',
      );
    return { kind: 'postgres', connection: text };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    throw new PipefillInputError(
      `${text.split('://')[0]}:// is not a store Pipefill knows.`,
      'Give postgres://USER@HOST[:PORT]/DATABASE, or a SQLite file path.',
    );
  const path = text.startsWith('sqlite:') ? text.slice('sqlite:'.length) : text;
  if (path.trim() === '' || path.includes('\0'))
    throw new PipefillInputError('The store path is empty.', 'Give a file path, e.g. --store ~/pipefill-history.sqlite.');
  return { kind: 'sqlite', path: resolve(path) };
}

export async function openStore(spec: StoreSpec, env: NodeJS.ProcessEnv = process.env): Promise<HistoryStore> {
  if (spec.kind === 'postgres') return openPostgresStore(spec.connection);
  // The data folder is this user's own or not used: SQLite's journal beside the file could be a link planted there
  // (root's service run with another user's data folder, issue 47).
  if (resolve(dirname(spec.path)) === resolve(dataDirectory(env))) ownedDirectory(dirname(spec.path));
  return openSqliteStore(spec.path);
}
