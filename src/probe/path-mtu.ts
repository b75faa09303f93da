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
// reset at once; the next probe logs on afresh.

import { Access, CreateOption, Disposition } from '../smb/messages.js';
import type { SmbSession } from '../smb/session.js';
import { SmbError } from '../smb/errors.js';
import type { ScratchFolder } from '../copy/scratch.js';
import { sampleTcpInfo } from '../platform/tcp-info.js';
import type { MtuSearch, SegmentSizes } from '../model/path-mtu.js';
import { blackHoleFinding, MIN_SEARCHED_MTU_BYTES, probeDataBytes, searchPathMtu } from '../model/path-mtu.js';
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
/** The probe file: as long as the largest READ probe (9216 less 124 bytes of headers), laid down in pieces that cross any path searched. */
const FILE_BYTES = 9 * 1024;
const FILLING_WRITE_BYTES = 1024;

export interface PathMtuProbe {
  /** What the search found; a black hole where a size vanished and a smaller one crossed. */
  readonly search: MtuSearch;
  /** The connection's packet headers and MSS the probes were sized by, and whether the kernel said them (else assumed). */
  readonly sizes: SegmentSizes & { readonly pmtuBytes: number; readonly measured: boolean };
}

/** Why the probe could say nothing of the path: the server refused or shortened a probe, or not even the smallest packet crossed. */
export interface PathMtuUnknown {
  readonly unknown: string;
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

/** A probe that says nothing of the path (a refusal, a short read): the search stops, and the run goes on as if not probed. */
class Inconclusive extends Error {}

/**
 * The largest packet that crosses to the server and back (within 8 bytes),
 * on sessions of the probe's own: `first`, then those `open` makes as probes
 * spend theirs (a session the run holds its scratch folder by is never
 * spent). Every session is ended or reset; the probe file stays in
 * `scratch` for the folder's removal.
 */
export async function probePathMtu(
  first: SmbSession,
  scratch: ScratchFolder,
  open: () => Promise<SmbSession>,
  options: ProbeOptions,
): Promise<PathMtuProbe | PathMtuUnknown> {
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
    const created = opened.length === 1;
    const handle = await session.create(
      { path, access: Access.readData | Access.writeData, disposition: created ? Disposition.create : Disposition.open, options: CreateOption.nonDirectory },
      deadline,
    );
    current = { session, fileId: handle.fileId };
    // Laid down once, in writes small enough to cross any path the search allows and all in flight at once (one round
    // trip): every READ probe then finds the bytes it asks for, whatever a server does with a write past the end.
    if (created) {
      const pieces = Array.from({ length: FILE_BYTES / FILLING_WRITE_BYTES }, (_, index) => index * FILLING_WRITE_BYTES);
      await Promise.all(pieces.map((offset) => session.write(handle.fileId, offset, Buffer.alloc(FILLING_WRITE_BYTES, 0x5a), deadline)));
    }
    return current;
  };
  // A session that seals (encryption is null where it does not) carries the transform header on every message.
  const sealed = Boolean(first.negotiated.encryption);
  const crosses = async (packetBytes: number): Promise<boolean> => {
    const writeBytes = probeDataBytes(packetBytes, 'write', sizes, sealed);
    const readBytes = probeDataBytes(packetBytes, 'read', sizes, sealed);
    if (writeBytes === undefined || readBytes === undefined) throw new Inconclusive(`no probe of ${packetBytes} bytes fits one segment`);
    let on: { session: SmbSession; fileId: Buffer } | undefined;
    try {
      on = await onSession();
      await on.session.write(on.fileId, 0, Buffer.alloc(writeBytes, 0xa5), deadline);
      const data = await on.session.read(on.fileId, 0, readBytes, deadline);
      if (data.length !== readBytes) throw new Inconclusive(`the server answered a read of ${readBytes} bytes with ${data.length}`);
      return true;
    } catch (error) {
      // A cancel is the run's, not the path's.
      if (options.signal?.aborted || (error instanceof SmbError && error.kind === 'cancelled')) throw error;
      if (!(error instanceof SmbError && error.kind === 'timeout')) throw error instanceof Inconclusive ? error : new Inconclusive(String(error));
      // No reply: the packet vanished, and the connection with it. Reset, so the server lets go of the probe file's open.
      (on?.session ?? opened.at(-1))?.connection.destroy(true);
      current = undefined;
      return false;
    }
  };
  try {
    const search = await searchPathMtu(crosses, undefined, Math.max(MIN_SEARCHED_MTU_BYTES, Math.min(sizes.pmtuBytes, LARGEST_TRIED_BYTES)));
    // Nothing crossed: no small packet passing beside the large ones that vanish, so no black hole to name.
    if (search.crossesBytes === undefined) return { unknown: `not even a packet of ${MIN_SEARCHED_MTU_BYTES} bytes was answered` };
    return { search, sizes };
  } catch (error) {
    if (error instanceof Inconclusive) return { unknown: error.message };
    throw error;
  } finally {
    if (current) await current.session.close(current.fileId, { timeoutMs: 2_000 }).catch(() => undefined);
    for (const session of opened) await session.end().catch(() => undefined);
  }
}

/** Stops the run where full-size packets vanish while smaller ones cross: the black hole named, with the MTU found and the fix. */
export function stopAtBlackHole(probe: PathMtuProbe | PathMtuUnknown): void {
  if (!('search' in probe)) return;
  const { crossesBytes, vanishesBytes } = probe.search;
  if (vanishesBytes === undefined || crossesBytes === undefined) return;
  const finding = blackHoleFinding(crossesBytes, probe.sizes.pmtuBytes, probe.sizes.headerBytes);
  throw new SmbError('path-mtu', finding.message, finding.hint);
}
