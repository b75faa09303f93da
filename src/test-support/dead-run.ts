// For tests: a run that "crashes" mid-way. Its connection is cut, and the
// test waits until the server has let go of what that connection held (the
// run's lease, delete-on-close, is then gone from the server's disk).
//
// Why wait: smbd closes a dead connection's opens only once its own process
// has read the end of the connection, and on a busy machine that can come
// after the sweep the test runs next; the sweep then (rightly) finds the
// lease held or a file it cannot delete yet, and leaves the folder for the
// next run. A test of the sweep must start from a run the server knows is
// dead, or it races the server's scheduler.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { namesOf } from '../copy/scratch-marker.js';
import type { SmbSession } from '../smb/session.js';

/** Longest wait for the server to notice the cut connection; smbd takes milliseconds when idle. */
const LET_GO_WITHIN_MS = 30_000;
const POLL_MS = 50;

/**
 * Cuts `session`'s connection and resolves once the server has closed the
 * run's lease in `folder` (`sharePath` is where the share lives on this
 * machine); throws if the server still holds it after 30 s.
 */
export async function crashRun(session: SmbSession, sharePath: string, folder: string): Promise<void> {
  session.connection.destroy();
  const lease = join(sharePath, folder, namesOf(folder).lease);
  for (let waited = 0; waited < LET_GO_WITHIN_MS; waited += POLL_MS) {
    if (!existsSync(lease)) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`The server still held ${folder}'s lease ${LET_GO_WITHIN_MS / 1000} s after its connection was cut.`);
}
