// The path's MTU as a layer of its own (issue 52): the largest packet that
// crosses between this machine and the server, found without ICMP, and the
// black hole a tunnel makes when its smaller MTU is never told to the ends.
//
// Without ICMP, the way RFC 4821 and RFC 8899 (packetization-layer path MTU
// discovery) do it: send probes of a chosen size in the protocol itself and
// see which arrive. An SMB exchange is such a probe: with nothing else in
// flight and Nagle off, a request or reply smaller than the connection's MSS
// leaves as one TCP segment, so a WRITE of k bytes is one packet of a size
// this side chooses, and the READ of k bytes one the server sends back.
// A probe whose packet vanishes never gets its reply; the connection behind
// it is spent (TCP retransmits the lost segment for ever), and the next probe
// opens another.

import { PipefillInputError } from './errors.js';
import { ETHERNET_MTU_BYTES, isMtuBytes, MTU_RANGE } from './link.js';

/** The smallest MTU searched: IPv6's minimum link MTU (RFC 8200 section 5), the floor RFC 8899 searches from. */
export const MIN_SEARCHED_MTU_BYTES = 1280;
/** How close the search comes: within this of the largest packet that crosses. */
export const MTU_PRECISION_BYTES = 8;

/**
 * An SMB2 WRITE request on the wire, less its data: the 4-byte Direct TCP
 * length (MS-SMB2 2.1), the 64-byte header (2.2.1) and the 48-byte body up to
 * DataOffset 0x70 (2.2.21).
 */
export const WRITE_FRAME_OVERHEAD_BYTES = 4 + 64 + 48;
/** An SMB2 READ response on the wire, less its data: length, header, and the 16-byte body up to DataOffset 0x50 (MS-SMB2 2.2.20). */
export const READ_FRAME_OVERHEAD_BYTES = 4 + 64 + 16;
/** What sealing adds to every message: the 52-byte SMB2 TRANSFORM_HEADER (MS-SMB2 2.2.41). */
export const TRANSFORM_HEADER_BYTES = 52;

/** One connection's sizes: its packets' IP and TCP headers (options included) and the largest payload it sends in a segment. */
export interface SegmentSizes {
  /** IP and TCP headers of each packet, options (timestamps) included: the interface's MTU less the MSS (40, or 52 with timestamps). */
  readonly headerBytes: number;
  /** The connection's MSS: no probe's frame may be larger, or it leaves as two segments. */
  readonly mssBytes: number;
}

/**
 * The data of a probe WRITE (towards the server) or READ (back) whose one
 * packet is `packetBytes` long, on a session that seals (`sealed`) or not.
 * Undefined where no such probe exists: smaller than the frame's own
 * overhead, or larger than one segment.
 */
export function probeDataBytes(packetBytes: number, direction: 'write' | 'read', sizes: SegmentSizes, sealed: boolean): number | undefined {
  const overhead = (direction === 'write' ? WRITE_FRAME_OVERHEAD_BYTES : READ_FRAME_OVERHEAD_BYTES) + (sealed ? TRANSFORM_HEADER_BYTES : 0);
  const payload = packetBytes - sizes.headerBytes;
  if (!Number.isInteger(packetBytes) || payload > sizes.mssBytes || payload - overhead < 1) return undefined;
  return payload - overhead;
}

/** What the search found: the largest packet seen to cross (undefined: not even the smallest), and the probes it took. */
export interface MtuSearch {
  readonly crossesBytes: number | undefined;
  /** The smallest packet seen to vanish (undefined: none did). */
  readonly vanishesBytes: number | undefined;
  readonly probes: readonly { readonly packetBytes: number; readonly crossed: boolean }[];
}

/**
 * The largest packet between `low` and `high` that crosses, within
 * MTU_PRECISION_BYTES: `high` first (a path that carries it needs nothing
 * more), then `low`, then halving the gap. `crosses` is asked once per size
 * and at most 2 + log2((high - low) / precision) times in all (7 for
 * 1280-1500), so a search is bounded whatever the path does.
 */
export async function searchPathMtu(
  crosses: (packetBytes: number) => Promise<boolean>,
  low = MIN_SEARCHED_MTU_BYTES,
  high = 1500,
  precision = MTU_PRECISION_BYTES,
): Promise<MtuSearch> {
  if (!(Number.isInteger(low) && Number.isInteger(high) && low <= high && precision >= 1))
    throw new RangeError('An MTU search needs whole sizes, low <= high.');
  const probes: { packetBytes: number; crossed: boolean }[] = [];
  const ask = async (packetBytes: number) => {
    const crossed = await crosses(packetBytes);
    probes.push({ packetBytes, crossed });
    return crossed;
  };
  if (await ask(high)) return { crossesBytes: high, vanishesBytes: undefined, probes };
  if (low === high || !(await ask(low))) return { crossesBytes: undefined, vanishesBytes: low, probes };
  let crossing = low;
  let vanishing = high;
  while (vanishing - crossing > precision) {
    const middle = Math.floor((crossing + vanishing) / 2);
    if (await ask(middle)) crossing = middle;
    else vanishing = middle;
  }
  return { crossesBytes: crossing, vanishesBytes: vanishing, probes };
}

/** A path's MTU below the connection's own, in words for a person: what happens, the fix on each platform, and what it buys. */
export interface MtuFinding {
  readonly message: string;
  readonly hint: string;
}

/**
 * The black hole found: packets of the connection's size (`connectionMtu`)
 * vanish and no ICMP says so, while packets of `found` bytes cross (the
 * search's largest; a search where none crossed names no black hole:
 * src/probe/path-mtu.ts). The MTU to set is the one found; MSS clamping on the
 * router fixes it for every machine behind it at once.
 */
export function blackHoleFinding(found: number, connectionMtu: number, headerBytes: number): MtuFinding {
  const mss = found - 40;
  const carried = found - headerBytes;
  const full = connectionMtu - headerBytes;
  return {
    message:
      `Path MTU black hole: packets larger than ${found} bytes vanish between this machine and the server (sent at ${connectionMtu}, ` +
      `and no ICMP "fragmentation needed" comes back), so every copy stalls at its first full-size packet.`,
    hint:
      `Set the tunnel's MTU to ${found} (WireGuard: MTU = ${found} under [Interface]; Linux: ip link set dev <tunnel> mtu ${found}; ` +
      `Windows: netsh interface ipv4 set subinterface "<VPN adapter>" mtu=${found} store=persistent; macOS: sudo ifconfig <utun> mtu ${found}), ` +
      `or clamp TCP's MSS on the router to ${mss} (Linux: iptables -t mangle -A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu), ` +
      `or let ICMP "fragmentation needed" through. Copies then move instead of stalling, ${carried} bytes a packet instead of ${full} ` +
      `(${Math.round((1 - carried / full) * 1000) / 10}% less per packet on the same line).`,
  };
}

/**
 * Tunnels a person names instead of a number, with the MTU inside: WireGuard's
 * default (wg-quick: 1420, room for its 80 bytes over IPv6), GRE over IPv4
 * (24 bytes of headers: 1476) and PPPoE (RFC 2516's 8 bytes: 1492).
 */
export const TUNNEL_MTUS: Readonly<Record<string, number>> = { wireguard: 1420, gre: 1476, pppoe: 1492, ethernet: ETHERNET_MTU_BYTES };

/** A path MTU as a person writes it: bytes (`1420`) or a tunnel's name (`wireguard`); a clear error for anything else. */
export function parseMtuBytes(text: string): number {
  const name = text.trim().toLowerCase();
  // Only the table's own names: a person's "constructor" or "__proto__" is no tunnel.
  if (Object.hasOwn(TUNNEL_MTUS, name)) return TUNNEL_MTUS[name] ?? ETHERNET_MTU_BYTES;
  const bytes = Number(text.trim());
  if (!(/^\d{3,5}$/.test(text.trim()) && isMtuBytes(bytes)))
    throw new PipefillInputError(
      `The path MTU ${JSON.stringify(text.slice(0, 40))} is not one.`,
      `Give bytes from ${MTU_RANGE.least} to ${MTU_RANGE.most} (1420, 1492) or a tunnel: ${Object.keys(TUNNEL_MTUS).join(', ')}.`,
    );
  return bytes;
}
