// What can go wrong with a history store, in words a person can act on. Each
// leaves what is stored as it was: Pipefill never repairs, truncates, moves or
// overwrites a store it cannot read.

import { PipefillError } from '../model/errors.js';

export type StoreErrorKind =
  'store-locked' | 'store-full' | 'store-corrupt' | 'store-newer' | 'store-foreign' | 'store-unreachable' | 'store-refused' | 'store-read-only';

export class StoreError extends PipefillError {
  override readonly name = 'StoreError';
  constructor(
    readonly storeKind: StoreErrorKind,
    message: string,
    hint: string,
    options?: { cause?: unknown },
  ) {
    super(storeKind, message, hint, options);
  }
}

const KEPT = 'Nothing stored was changed.';

export function lockedError(where: string, cause: unknown): StoreError {
  return new StoreError(
    'store-locked',
    `The history store ${where} stayed locked by another program.`,
    `${KEPT} Close the other Pipefill (or the tool holding the file) and run again, or save with --no-history.`,
    { cause },
  );
}

export function fullError(where: string, cause: unknown): StoreError {
  return new StoreError(
    'store-full',
    `The history store ${where} is full: the disk or the database has no room for this run.`,
    `${KEPT} Free some space (or delete old runs: pipefill history delete ID) and run again.`,
    { cause },
  );
}

export function corruptError(where: string, cause: unknown): StoreError {
  return new StoreError(
    'store-corrupt',
    `The history store ${where} is damaged or is not a database.`,
    `${KEPT} Pipefill left the file as it is: move it aside to start a new history, or give another with --store.`,
    { cause },
  );
}

export function newerError(where: string, found: number, known: number): StoreError {
  return new StoreError(
    'store-newer',
    `The history store ${where} was written by a newer Pipefill (schema ${found}; this one knows up to ${known}).`,
    `${KEPT} Update Pipefill, or give another store with --store.`,
  );
}

export function foreignError(where: string): StoreError {
  return new StoreError(
    'store-foreign',
    `${where} holds another program's tables, not a Pipefill history.`,
    `${KEPT} Give an empty database or a new file with --store.`,
  );
}

export function readOnlyError(where: string, cause: unknown): StoreError {
  return new StoreError(
    'store-read-only',
    `The history store ${where} cannot be written.`,
    `${KEPT} Check the file's and its folder's permissions, or give another with --store.`,
    { cause },
  );
}
