// The little SQL the history store needs, over either backend: queries with
// `?` placeholders, one transaction at a time, and errors already sorted into
// the kinds a person can act on (store-errors.ts). SQLite and PostgreSQL
// differ below this line and nowhere above it.

export type SqlValue = string | number | boolean | null;

export interface SqlRunResult {
  readonly changes: number;
}

export interface Sql {
  readonly dialect: 'sqlite' | 'postgres';
  all<Row>(text: string, params?: readonly SqlValue[]): Promise<Row[]>;
  run(text: string, params?: readonly SqlValue[]): Promise<SqlRunResult>;
  /**
   * Runs `work` in one transaction that holds the store's write lock from its
   * start (SQLite BEGIN IMMEDIATE; PostgreSQL an advisory lock), so two
   * Pipefill processes migrating or saving at once take turns.
   */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
