// A captured packet's TCP segment: through the link layer (Ethernet with
// VLAN tags, Linux cooked v1 and v2, raw IP, BSD loopback) and IPv4 or IPv6
// (extension headers walked, bounded), to the TCP header (RFC 9293 3.1) and
// what it carries. The payload's length comes from the IP header, so a
// packet cut by the snap length still says how many bytes it carried; the
// bytes captured of them may be fewer. Anything else (ARP, UDP, IP
// fragments, a header that points past its packet) is not a segment: undefined.

import type { CapturedPacket } from './capture-format.js';

export interface TcpSegment {
  readonly seconds: number;
  /** Addresses as text (IPv4 dotted, IPv6 as hex groups) and ports. */
  readonly source: string;
  readonly destination: string;
  readonly sourcePort: number;
  readonly destinationPort: number;
  readonly seq: number;
  readonly ack: number;
  readonly flags: number;
  /** The window field as sent (unscaled). */
  readonly window: number;
  /** The payload's length in the packet, whether or not all of it was captured. */
  readonly payloadLength: number;
  /** The payload's bytes that were captured (a prefix of it). */
  readonly payload: Buffer;
  /** From a SYN's options: the maximum segment size and the window scale, where it offered them. */
  readonly mss?: number;
  readonly windowScale?: number;
}

export const TcpFlag = { fin: 0x01, syn: 0x02, rst: 0x04, psh: 0x08, ack: 0x10 } as const;

const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
const VLAN_TAGS = new Set([0x8100, 0x88a8, 0x9100]);
/** IPv6 extension headers walked before the transport one gives up: no real packet has this many. */
const MOST_EXTENSION_HEADERS = 8;

/** The network-layer packet in a link-layer frame, and its ethertype; undefined for what is not IP. */
function networkLayer(linkType: number, data: Buffer): { ethertype: number; ip: Buffer } | undefined {
  switch (linkType) {
    case 1: {
      // Ethernet (LINKTYPE_ETHERNET), with up to two VLAN tags.
      let at = 12;
      for (let tags = 0; tags < 3 && at + 2 <= data.length; tags++) {
        const type = data.readUInt16BE(at);
        if (!VLAN_TAGS.has(type)) return at + 2 <= data.length ? { ethertype: type, ip: data.subarray(at + 2) } : undefined;
        at += 4;
      }
      return undefined;
    }
    case 113:
      // Linux cooked capture v1 (LINKTYPE_LINUX_SLL): the protocol at byte 14 of a 16-byte header.
      return data.length >= 16 ? { ethertype: data.readUInt16BE(14), ip: data.subarray(16) } : undefined;
    case 276:
      // Linux cooked capture v2 (LINKTYPE_LINUX_SLL2): the protocol first, a 20-byte header.
      return data.length >= 20 ? { ethertype: data.readUInt16BE(0), ip: data.subarray(20) } : undefined;
    case 0:
    case 108: {
      // BSD loopback (LINKTYPE_NULL: the family in the writer's byte order; LINKTYPE_LOOP: network order).
      if (data.length < 4) return undefined;
      const version = (data[4] ?? 0) >> 4;
      return version === 4 || version === 6 ? { ethertype: version === 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6, ip: data.subarray(4) } : undefined;
    }
    case 101:
    case 12:
    case 14:
    case 228:
    case 229: {
      // Raw IP (LINKTYPE_RAW and the older DLT_RAW numbers; LINKTYPE_IPV4/IPV6): the version nibble says which.
      const version = (data[0] ?? 0) >> 4;
      return version === 4 || version === 6 ? { ethertype: version === 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6, ip: data } : undefined;
    }
    default:
      return undefined;
  }
}

interface Transport {
  readonly source: string;
  readonly destination: string;
  /** The TCP segment's bytes captured, from its header on. */
  readonly tcp: Buffer;
  /** Its length in the packet, from the IP header. */
  readonly tcpLength: number;
}

function ipv4(ip: Buffer): Transport | undefined {
  if (ip.length < 20 || ip[0] === undefined || ip[0] >> 4 !== 4) return undefined;
  const headerBytes = (ip[0] & 0x0f) * 4;
  const total = ip.readUInt16BE(2);
  // A fragment (more to come, or not the first) has no whole TCP header of its own to read.
  const fragment = ip.readUInt16BE(6);
  if (headerBytes < 20 || ip[9] !== 6 || (fragment & 0x3fff) !== 0 || total < headerBytes || ip.length < headerBytes) return undefined;
  const address = (at: number) => `${ip[at]}.${ip[at + 1]}.${ip[at + 2]}.${ip[at + 3]}`;
  // A TSO capture on the sending host says total length 0: what was captured is then all there is.
  const length = total === 0 ? ip.length - headerBytes : total - headerBytes;
  return { source: address(12), destination: address(16), tcp: ip.subarray(headerBytes, Math.min(ip.length, headerBytes + length)), tcpLength: length };
}

function ipv6Address(ip: Buffer, at: number): string {
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(ip.readUInt16BE(at + 2 * i).toString(16));
  return groups.join(':');
}

function ipv6(ip: Buffer): Transport | undefined {
  if (ip.length < 40 || ip[0] === undefined || ip[0] >> 4 !== 6) return undefined;
  let next = ip[6];
  let at = 40;
  for (let walked = 0; next !== 6; walked++) {
    // Hop-by-hop, routing and destination options carry their length; a fragment (44) or anything else ends the walk.
    if (walked >= MOST_EXTENSION_HEADERS || (next !== 0 && next !== 43 && next !== 60) || at + 2 > ip.length) return undefined;
    next = ip[at];
    at += ((ip[at + 1] ?? 0) + 1) * 8;
  }
  const length = 40 + ip.readUInt16BE(4) - at;
  if (length < 0 || at > ip.length) return undefined;
  return { source: ipv6Address(ip, 8), destination: ipv6Address(ip, 24), tcp: ip.subarray(at, Math.min(ip.length, at + length)), tcpLength: length };
}

function synOptions(tcp: Buffer, headerBytes: number): { mss?: number; windowScale?: number } {
  const found: { mss?: number; windowScale?: number } = {};
  for (let at = 20; at < headerBytes && at < tcp.length;) {
    const kind = tcp[at];
    if (kind === 0) break;
    if (kind === 1) {
      at += 1;
      continue;
    }
    const size = tcp[at + 1] ?? 0;
    if (size < 2 || at + size > headerBytes || at + size > tcp.length) break;
    if (kind === 2 && size === 4) found.mss = tcp.readUInt16BE(at + 2);
    if (kind === 3 && size === 3) found.windowScale = Math.min(tcp[at + 2] ?? 0, 14);
    at += size;
  }
  return found;
}

/** The TCP segment in a captured packet, or undefined where it holds none this reads. */
export function tcpSegmentOf(packet: CapturedPacket): TcpSegment | undefined {
  const network = networkLayer(packet.linkType, packet.data);
  if (!network) return undefined;
  const transport = network.ethertype === ETHERTYPE_IPV4 ? ipv4(network.ip) : network.ethertype === ETHERTYPE_IPV6 ? ipv6(network.ip) : undefined;
  if (!transport || transport.tcp.length < 20) return undefined;
  const { tcp } = transport;
  const headerBytes = ((tcp[12] ?? 0) >> 4) * 4;
  if (headerBytes < 20 || headerBytes > transport.tcpLength) return undefined;
  const flags = tcp[13] ?? 0;
  const options = (flags & TcpFlag.syn) !== 0 ? synOptions(tcp, headerBytes) : {};
  return {
    seconds: packet.seconds,
    source: transport.source,
    destination: transport.destination,
    sourcePort: tcp.readUInt16BE(0),
    destinationPort: tcp.readUInt16BE(2),
    seq: tcp.readUInt32BE(4),
    ack: tcp.readUInt32BE(8),
    flags,
    window: tcp.readUInt16BE(14),
    payloadLength: transport.tcpLength - headerBytes,
    payload: tcp.length > headerBytes ? tcp.subarray(headerBytes) : Buffer.alloc(0),
    ...options,
  };
}
