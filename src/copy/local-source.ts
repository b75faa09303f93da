// The local side of a write test: real files on this machine, with seeded
// pattern contents, that the test copies to the share as a copy tool would.
// They are written, and flushed to disk, before the clock starts (as the
// read test's source is written to the share first) and removed afterwards.
//
// Reading them costs a page-cache copy on libuv's thread pool, not AES on
// the main thread, and lands in a pool of reused 512 KiB buffers, so a
// write keeps the network busy and its memory bounded.

import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Workload } from '../model/workloads.js';
import { MAX_IN_FLIGHT_BYTES } from './drivers.js';
import { cancelledError } from '../smb/errors.js';
import type { FileRange } from '../smb/frame-writer.js';
import type { WriteSource } from './transfer.js';
import { PatternSource } from './pattern.js';

/**
 * Local reads go in pieces of this size, a request's data in several read
 * side by side. Small enough that a recycled piece is still in the CPU's
 * cache when the next read fills it: the page-cache copy into a cold buffer
 * was the largest cost of a signed write (perf: 23% of the process's
 * samples). Measured on loopback, 256 MiB, 4 x 2 MiB requests, 5 alternating
 * rounds (2026-11-24): signed (AES-128-GMAC) 852 -> 960 MB/s against
 * smbclient put's 994; through Node's socket 1039 -> 1154; sealed
 * (AES-128-GCM) 713 -> 742. The sender addon's own slices are this size too.
 */
export const LOCAL_PIECE_BYTES = 512 * 1024;
/** Buffers kept for reuse: enough for the in-flight budget and some slack, so a deep pipeline allocates none either. */
const POOLED_PIECES = MAX_IN_FLIGHT_BYTES / LOCAL_PIECE_BYTES + 8;
const GENERATE_BYTES = 16 * 1024 * 1024;

/** A source folder's name: `pipefill-source-<pid>-XXXXXX`, so a later run can tell a dead process's leftover from a live one's. */
const SOURCE_PREFIX = 'pipefill-source-';
const SOURCE_NAME = /^pipefill-source-(\d{1,10})-[A-Za-z0-9]{6}$/;
/**
 * A dead process's folder is removed only once it is this old: a process in
 * another PID namespace that shares the temp directory (a container) looks
 * dead from here, and an assessment uses its source for minutes at most.
 */
const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the local sources that a process killed before its clean-up left
 * in `directory` (a 256 MiB file each, by default): folders with Pipefill's
 * name, of a process that no longer runs, owned by this user, not links, and
 * older than an hour. Anything else with a like name is left alone: the temp
 * directory is shared with other users. Returns the folders removed.
 */
export function removeOrphanedSources(directory = tmpdir(), nowMs = Date.now()): string[] {
  const removed: string[] = [];
  let entries;
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const entry of entries) {
    const pid = Number(SOURCE_NAME.exec(entry.name)?.[1] ?? NaN);
    if (!entry.isDirectory() || !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const path = join(directory, entry.name);
    try {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || nowMs - stat.mtimeMs < ORPHAN_MIN_AGE_MS || processAlive(pid)) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove: another run's sweep, or a change under us.
    }
  }
  return removed;
}

export class LocalSource {
  private readonly pool: Buffer[] = [];
  private readonly handles = new Map<string, Promise<FileHandle>>();

  private constructor(
    readonly root: string,
    private readonly owned: boolean,
  ) {}

  /** Writes every file of `workload` under a new private folder in the system temp directory; stops on `signal`. */
  static async create(workload: Workload, seed: string, signal?: AbortSignal): Promise<LocalSource> {
    removeOrphanedSources();
    const root = mkdtempSync(join(tmpdir(), `${SOURCE_PREFIX}${process.pid}-`));
    const source = new LocalSource(root, true);
    let buffer: Buffer | undefined;
    try {
      for (const file of workload.files) {
        const path = join(root, file.path);
        mkdirSync(dirname(path), { recursive: true });
        const pattern = new PatternSource(seed, file.path);
        const handle = await open(path, 'w');
        try {
          for (let offset = 0; offset < file.bytes; offset += GENERATE_BYTES) {
            if (signal?.aborted) throw cancelledError();
            // One buffer for the whole workload: garbage freed later would cost the timed copy CPU.
            const piece = (buffer ??= Buffer.allocUnsafeSlow(GENERATE_BYTES)).subarray(0, Math.min(GENERATE_BYTES, file.bytes - offset));
            pattern.fill(piece, offset);
            await handle.write(piece);
          }
          // On disk before the clock starts: otherwise the kernel writes the dirty pages back while the copy
          // reads them, and the timed copy pays for that writeback (the CLI's 256 MiB write on loopback ran
          // at 0.79x smbclient put, whose source sat on tmpfs).
          await handle.sync();
        } finally {
          await handle.close();
        }
      }
      return source;
    } catch (error) {
      source.remove();
      throw error;
    }
  }

  /** A source over one existing file (the benchmark's), not removed by remove(). */
  static forFile(path: string): LocalSource {
    const source = new LocalSource(dirname(path), false);
    source.handles.set('', open(path, 'r'));
    return source;
  }

  private handle(relativePath: string): Promise<FileHandle> {
    let handle = this.handles.get(relativePath);
    if (!handle) {
      handle = open(join(this.root, relativePath), 'r');
      this.handles.set(relativePath, handle);
    }
    return handle;
  }

  /** `length` bytes of a file at `offset`, in pooled pieces of at most LOCAL_PIECE_BYTES. Give them back with release(). */
  async read(relativePath: string, offset: number, length: number): Promise<Buffer[]> {
    const handle = await this.handle(relativePath);
    const reads: Promise<Buffer>[] = [];
    for (let done = 0; done < length; done += LOCAL_PIECE_BYTES) {
      const size = Math.min(LOCAL_PIECE_BYTES, length - done);
      const piece = (this.pool.pop() ?? Buffer.allocUnsafeSlow(LOCAL_PIECE_BYTES)).subarray(0, size);
      reads.push(
        handle.read(piece, 0, size, offset + done).then(({ bytesRead }) => {
          if (bytesRead !== size) throw new Error(`The local source ${relativePath} ended early at ${offset + done + bytesRead}.`);
          return piece;
        }),
      );
    }
    return Promise.all(reads);
  }

  /**
   * `length` bytes of a file at `offset` as a range of its open descriptor,
   * for a connection whose sender reads them itself. The sender takes its own
   * duplicate of the descriptor, so closing the file afterwards is safe.
   */
  async range(relativePath: string, offset: number, length: number): Promise<FileRange> {
    const handle = await this.handle(relativePath);
    return { fd: handle.fd, offset, length };
  }

  /** Returns pieces once nothing needs them (the write they carried has completed). */
  release(pieces: readonly Buffer[]): void {
    for (const piece of pieces) {
      if (this.pool.length < POOLED_PIECES && piece.buffer.byteLength === LOCAL_PIECE_BYTES)
        this.pool.push(Buffer.from(piece.buffer, piece.byteOffset, LOCAL_PIECE_BYTES));
    }
  }

  /** One file of this source as the transfer engine reads it. */
  writeSource(relativePath: string): WriteSource {
    return {
      read: (offset, length) => this.read(relativePath, offset, length),
      release: (pieces) => this.release(pieces),
      range: (offset, length) => this.range(relativePath, offset, length),
    };
  }

  /** Closes the files (one per file of a directory set: closed as each is done). */
  async closeFile(relativePath: string): Promise<void> {
    const handle = this.handles.get(relativePath);
    this.handles.delete(relativePath);
    if (handle) await (await handle).close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.handles.values()].map(async (handle) => (await handle).close().catch(() => undefined)));
    this.handles.clear();
  }

  /** Removes the folder and everything in it (only a folder this source made). */
  remove(): void {
    if (this.owned) rmSync(this.root, { recursive: true, force: true });
  }
}
