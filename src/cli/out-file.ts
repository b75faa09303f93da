// Files the CLI writes where a person said (--out): checked before any work
// (before the password prompt, before a minute of copies), and written by a
// temporary file renamed into place, so a failed write leaves the old file
// whole and a link planted at the name is replaced, never written through.

import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, fsyncSync, lstatSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { PipefillError, PipefillInputError } from '../model/errors.js';

/** The absolute path of `path`, once its folder is known to exist and take files and the name is not a folder. */
export function checkOutPath(path: string): string {
  if (path.trim() === '' || path.includes('\0')) throw new PipefillInputError('--out needs a file name.', 'For example --out report.json.');
  const target = resolve(path);
  const folder = dirname(target);
  let folderOk = false;
  try {
    folderOk = statSync(folder).isDirectory();
    accessSync(folder, constants.W_OK);
  } catch {
    throw new PipefillInputError(
      `Cannot write ${path}: ${folderOk ? 'its folder does not take new files' : `the folder ${folder} does not exist`}.`,
      'Give --out a file in a folder you can write to.',
    );
  }
  let existing;
  try {
    existing = lstatSync(target);
  } catch {
    // Nothing there yet: it will be created.
  }
  if (existing?.isDirectory()) throw new PipefillInputError(`${path} is a folder.`, 'Give --out a file name, e.g. --out report.json.');
  return target;
}

/** An --out file being written: lines or chunks go to a temporary file beside it; commit renames it into place. */
export interface OutFile {
  write(text: string | Buffer): void;
  commit(): void;
  abort(): void;
}

export function openOutFile(path: string): OutFile {
  const target = checkOutPath(path);
  const temporary = `${dirname(target)}/.${basename(target)}.pipefill-${randomBytes(6).toString('hex')}.tmp`;
  // O_EXCL|O_NOFOLLOW: a name someone planted fails here instead of being written through.
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  return {
    write: (text) => {
      const bytes = typeof text === 'string' ? Buffer.from(text) : text;
      for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
    },
    commit: () => {
      try {
        fsyncSync(fd);
        close();
        // rename replaces whatever the name was (a file, or a link: the link itself, not what it points to).
        renameSync(temporary, target);
      } catch (error) {
        close();
        rmSync(temporary, { force: true });
        throw error;
      }
    },
    abort: () => {
      close();
      rmSync(temporary, { force: true });
    },
  };
}

/** A failed write as a one-line error a person can act on (a full disk, a folder gone meanwhile). */
function writeFailed(path: string, error: unknown): PipefillError {
  if (error instanceof PipefillError) return error;
  return new PipefillError(
    'write-failed',
    `Could not write ${path}: ${error instanceof Error ? error.message : String(error)}.`,
    'Free some space or choose another --out; nothing was left half-written.',
  );
}

/** Opens `path` as openOutFile does, any failure as a one-line `write-failed` error. */
function openOrFail(path: string): OutFile {
  try {
    return openOutFile(path);
  } catch (error) {
    throw writeFailed(path, error);
  }
}

/** Commits `file`, or on any failure removes it (the old file stays whole) and throws the one-line error. */
function commitOrAbort(path: string, file: OutFile): void {
  try {
    file.commit();
  } catch (error) {
    file.abort();
    throw writeFailed(path, error);
  }
}

/** Writes a whole --out file (see openOutFile); any failure is a one-line `write-failed` error and leaves the old file as it was. */
export function writeOutFile(path: string, content: string | Buffer): void {
  const file = openOrFail(path);
  try {
    file.write(content);
  } catch (error) {
    file.abort();
    throw writeFailed(path, error);
  }
  commitOrAbort(path, file);
}

/** Runs `body` on a streamed --out file, committing it when `body` ends; on any failure nothing is left half-written. */
export async function withOutFile(path: string, body: (file: OutFile) => Promise<void>): Promise<void> {
  const file = openOrFail(path);
  try {
    await body(file);
  } catch (error) {
    file.abort();
    throw writeFailed(path, error);
  }
  commitOrAbort(path, file);
}
