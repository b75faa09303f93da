// A connection's server process brought to the state a person's own
// connection is in before anything on it is timed. Samba serves each
// connection from a process of its own, and glibc's allocator in it sizes
// its buffers by the largest it has freed so far: a process whose first
// large transfer was a read of 1 MiB requests keeps handing memory back to
// the kernel and faulting it in again. On loopback against a Samba signing
// with AES-128-GMAC, Windows 11's 256 MiB read took smbd 190-200 ms of CPU
// where its first transfer was that read, and 100-120 ms where it had
// written first; the copy ran 0.66-0.79 ns a byte against 0.37-0.47, and
// the same process's later reads stayed slow. Fixing the allocator's
// thresholds (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) in smbd's
// environment took the difference away, and so did one large request
// each way first (2026-11-28). A person's connection has lived since
// logon and moved large files already; the calibration's sessions and the
// copies' now start alike, so the costs the one measures hold for the other.
//
// Only where the hosts are measured (a fast path: FAST_PATH_RTT_MS): there
// their work is what paces a copy, and the warm-up costs milliseconds. On a
// long path it would cost seconds and change nothing a round trip does not
// hide; the callers decide.

import { WARM_UP_REQUEST_BYTES } from '../model/calibration-bytes.js';
import type { RequestOptions } from '../smb/request-frames.js';
import { Access, CreateOption, Disposition } from '../smb/messages.js';
import type { SmbSession } from '../smb/session.js';
import { PatternSource } from './pattern.js';
import { TimelineRecorder } from './timeline.js';
import { transferFileWithDepth } from './transfer.js';

/**
 * One request of the largest size the session allows written to `path` (a
 * scratch file of this run's, which must not exist) and read back. Nothing
 * is timed. The file stays for the scratch folder's removal, which empties
 * each file first where a recycle bin would keep it (scratch.ts remove).
 */
export async function warmServerProcess(session: SmbSession, path: string, options: RequestOptions = {}): Promise<void> {
  const { maxReadSize, maxWriteSize } = session.negotiated;
  const bytes = Math.min(WARM_UP_REQUEST_BYTES, maxReadSize, maxWriteSize);
  if (!(Number.isInteger(bytes) && bytes > 0)) return;
  const handle = await session.create(
    { path, access: Access.readData | Access.writeData, disposition: Disposition.create, options: CreateOption.nonDirectory },
    options,
  );
  try {
    const pattern = new PatternSource('warm-up', path);
    for (const op of ['write', 'read'] as const) {
      await transferFileWithDepth({
        session,
        fileId: handle.fileId,
        op,
        fileBytes: bytes,
        pipeline: { depth: 1, chunkBytes: bytes, requestBytes: bytes },
        pattern,
        verify: false,
        recorder: new TimelineRecorder(),
        label: 'warm-up',
        ...(options.signal ? { signal: options.signal } : {}),
      });
    }
  } finally {
    await session.close(handle.fileId, options).catch(() => undefined);
  }
}
