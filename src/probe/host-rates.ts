// What the two machines themselves allow, measured: on a fast path (a LAN, a
// loopback share) the hosts' own work per byte (the client's send and receive
// path, the server's storage and page cache), not the network, sets the pace,
// and a model without it calls every copy there "outside the model". A short
// calibration with Pipefill's deepest pipeline in a scratch folder of its own:
// two files written (each new, as a copy's is) and one read twice, each rate
// taken between the transfer's first and last reply (steadyReadRate), the
// better of the two each way. On such a path it costs a
// fraction of a second; the folder is removed after, as the probe's is.

import { MIB } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { pipelineFor } from '../smb/drivers.js';
import { Access, CreateOption, Disposition } from '../smb/messages.js';
import { PatternSource } from '../smb/pattern.js';
import { ScratchFolder } from '../smb/scratch.js';
import type { SmbCredentials, SmbTarget } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { transferFile } from '../smb/transfer.js';
import { SpanRecorder, steadyReadRate } from './bandwidth.js';

export interface HostRates {
  readonly readBitsPerSecond: number;
  readonly writeBitsPerSecond: number;
  /** The calibration file's size. */
  readonly bytes: number;
}

/** Paths with a round trip below this are fast: the hosts may well be slower than the network (a LAN, loopback). */
export const FAST_PATH_RTT_MS = 2;

const CALIBRATION_BYTES = 32 * MIB;

export async function measureHostRates(target: SmbTarget, credentials: SmbCredentials, options: { readonly signal?: AbortSignal } = {}): Promise<HostRates | undefined> {
  const signal = options.signal;
  const session = await SmbSession.open(target, credentials, signal ? { signal } : {});
  let scratch: ScratchFolder | undefined;
  try {
    scratch = await ScratchFolder.create(session);
    const profile = CLIENT_PROFILES['pipefill-max'];
    const transfer = async (name: string, op: 'read' | 'write', fileId: Buffer) => {
      const recorder = new SpanRecorder();
      const pattern = new PatternSource((scratch as ScratchFolder).name, name);
      await transferFile({ session, fileBytes: CALIBRATION_BYTES, pattern, verify: false, label: name, fileId, op, pipeline: pipelineFor(profile, session.negotiated, op, CALIBRATION_BYTES), recorder, ...(signal ? { signal } : {}) });
      const span = recorder.span();
      return span ? steadyReadRate([span]) : undefined;
    };
    // Each way the better of two: a transfer of tens of milliseconds that a collection or another process interrupts
    // reads far low (two loopback runs' writes read 5.7 and 21.8 Gb/s), and none can read faster than the hosts allow.
    const best = (rates: readonly (number | undefined)[]) => {
      const measured = rates.filter((rate): rate is number => rate !== undefined);
      return measured.length > 0 ? Math.max(...measured) : undefined;
    };
    const writes: (number | undefined)[] = [];
    for (const name of ['calibration-1.bin', 'calibration-2.bin']) {
      const handle = await session.create({ path: scratch.path(name), access: Access.readData | Access.writeData, disposition: Disposition.create, options: CreateOption.nonDirectory });
      writes.push(await transfer(name, 'write', handle.fileId));
      await session.close(handle.fileId);
    }
    const handle = await session.create({ path: scratch.path('calibration-2.bin'), access: Access.readData, disposition: Disposition.open, options: CreateOption.nonDirectory });
    const reads = [await transfer('calibration-2.bin', 'read', handle.fileId), await transfer('calibration-2.bin', 'read', handle.fileId)];
    await session.close(handle.fileId);
    const write = best(writes);
    const read = best(reads);
    await scratch.remove();
    scratch = undefined;
    return read !== undefined && write !== undefined ? { readBitsPerSecond: read, writeBitsPerSecond: write, bytes: CALIBRATION_BYTES } : undefined;
  } finally {
    if (scratch) await scratch.remove({ timeoutMs: 5_000 }).catch(() => undefined);
    await session.end();
  }
}
