// The path MTU, probed in SMB itself before the first bulk transfer (issue
// 52; the search and the sizes are src/model/path-mtu.ts). A tunnel whose
// smaller MTU never reaches the ends (ICMP "fragmentation needed" dropped on
// the way) lets the handshakes, the logon and every small request through
// and swallows each full-size packet: a copy over it stalls, and before this
// check the probe's own first write ended as "the server did not answer".
//
// Each probe is a WRITE whose one packet has the size tried, then a READ
// whose reply has it, on a file of the probe's scratch folder, each given a
// few seconds. A probe that gets no reply has spent its connection (TCP
// resends the lost segment for ever, and everything after it waits), which is
// ended at once; the next probe logs on afresh.

import { Access, CreateOption, Disposition } from '../smb/messages.js';
import type { SmbSession } from '../smb/session.js';
import { SmbError } from '../smb/errors.js';
import type { ScratchFolder } from '../copy/scratch.js';
import { sampleTcpInfo } from '../platform/tcp-info.js';
import type { MtuSearch, SegmentSizes } from '../model/path-mtu.js';
import { MIN_SEARCHED_MTU_BYTES, probeDataBytes, searchPathMtu } from '../model/path-mtu.js';
import { ETHERNET_MTU_BYTES } from '../model/link.js';

/** Where the kernel says nothing (not Linux): Ethernet's MTU and Linux's segments with timestamps (1448 bytes, 52 of headers). */
const ASSUMED_SIZES: SegmentSizes & { readonly pmtuBytes: number } = { headerBytes: 52, mssBytes: 1448, pmtuBytes: ETHERNET_MTU_BYTES };
/**
 * How long a probe waits for each reply: long enough for TCP to resend a
 * segment that random loss took (an RTO of 200 ms at least, 1 s on a new
 * connection) and still hear the reply; a packet a black hole swallowed never
 * comes.
 */
export const probeDeadlineMs = (rttMs: number): number => Math.max(2_000, 10 * rttMs);
const PROBE_FILE = 'mtu-probe.bin';
/**
 * The largest packet tried: a jumbo frame. A connection whose interface
 * allows more (loopback's 64 KiB) needs no larger probe to show that nothing
 * on the way swallows full-size packets.
 */
const LARGEST_TRIED_BYTES = 9216;

export interface PathMtuProbe {
  readonly search: MtuSearch;
  /** The connection's packet headers and MSS the probes were sized by, and whether the kernel said them (else assumed). */
  readonly sizes: SegmentSizes & { readonly pmtuBytes: number; readonly measured: boolean };
}

interface ProbeOptions {
  readonly rttMs: number;
  readonly signal?: AbortSignal;
}

/** The sizes of `session`'s connection as the kernel holds them, or the assumed ones. */
async function segmentSizes(session: SmbSession): Promise<PathMtuProbe['sizes']> {
  const sample = await sampleTcpInfo(session.connection.endpoints).catch(() => undefined);
  const { mssBytes, pmtuBytes } = sample ?? {};
  if (mssBytes !== undefined && pmtuBytes !== undefined && mssBytes > 0 && pmtuBytes > mssBytes && pmtuBytes - mssBytes <= 120)
    return { headerBytes: pmtuBytes - mssBytes, mssBytes, pmtuBytes, measured: true };
  return { ...ASSUMED_SIZES, measured: false };
}

/**
 * The largest packet that crosses to the server and back (within 8 bytes),
 * on `first` and then on sessions `open` makes as probes spend theirs.
 * `first` is spent where a packet of the connection's full size vanishes.
 * Every session this opens is ended; the probe file stays in `scratch`.
 */
export async function probePathMtu(first: SmbSession, scratch: ScratchFolder, open: () => Promise<SmbSession>, options: ProbeOptions): Promise<PathMtuProbe> {
  const request = options.signal ? { signal: options.signal } : {};
  const deadline = { ...request, timeoutMs: probeDeadlineMs(options.rttMs) };
  const path = scratch.path(PROBE_FILE);
  const sizes = await segmentSizes(first);
  let current: { session: SmbSession; fileId: Buffer } | undefined;
  const opened: SmbSession[] = [];
  const onSession = async (): Promise<{ session: SmbSession; fileId: Buffer }> => {
    if (current) return current;
    const session = opened.length === 0 ? first : await open();
    opened.push(session);
    const handle = await session.create(
      {
        path,
        access: Access.readData | Access.writeData,
        disposition: opened.length === 1 ? Disposition.create : Disposition.open,
        options: CreateOption.nonDirectory,
      },
      deadline,
    );
    current = { session, fileId: handle.fileId };
    return current;
  };
  // A session that seals (encryption is null where it does not) carries the transform header on every message.
  const sealed = Boolean(first.negotiated.encryption);
  const crosses = async (packetBytes: number): Promise<boolean> => {
    const writeBytes = probeDataBytes(packetBytes, 'write', sizes, sealed);
    const readBytes = probeDataBytes(packetBytes, 'read', sizes, sealed);
    if (writeBytes === undefined || readBytes === undefined) return false;
    const on = await onSession();
    try {
      // Written where it ends the file at the READ's length (a READ's frame is 32 bytes shorter than a WRITE's), so
      // the READ that follows finds every byte it asks for without a file laid down first in small writes.
      await on.session.write(on.fileId, readBytes - writeBytes, Buffer.alloc(writeBytes, 0xa5), deadline);
      const data = await on.session.read(on.fileId, 0, readBytes, deadline);
      return data.length === readBytes;
    } catch (error) {
      if (!(error instanceof SmbError && error.kind === 'timeout')) throw error;
      // No reply: the packet vanished, and the connection with it. Reset, so the server lets go of the probe file's open.
      on.session.connection.destroy(true);
      current = undefined;
      return false;
    }
  };
  try {
    const search = await searchPathMtu(crosses, undefined, Math.max(MIN_SEARCHED_MTU_BYTES, Math.min(sizes.pmtuBytes, LARGEST_TRIED_BYTES)));
    return { search, sizes };
  } finally {
    if (current) await current.session.close(current.fileId, { timeoutMs: 2_000 }).catch(() => undefined);
    for (const session of opened.slice(1)) await session.end().catch(() => undefined);
  }
}
