// Capture files made byte by byte for the capture reader's tests: TCP
// segments over IPv4 or IPv6 in Ethernet, Linux cooked or raw IP frames,
// written as pcap (microsecond or nanosecond, either byte order) or pcapng.
// Checksums are left zero: the reader does not check them (a capture taken on
// the sending host has them offloaded and wrong anyway).

export interface SegmentSpec {
  readonly seconds: number;
  readonly from: [string, number];
  readonly to: [string, number];
  readonly seq: number;
  readonly ack?: number;
  /** TCP flags: SYN 0x02, ACK 0x10, FIN 0x01 (default ACK). */
  readonly flags?: number;
  readonly window?: number;
  readonly payload?: Buffer;
  /** Keep only this many bytes of the frame (a snap length). */
  readonly snap?: number;
  readonly mss?: number;
  readonly windowScale?: number;
}

function ipv4Bytes(address: string): Buffer {
  return Buffer.from(address.split('.').map(Number));
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, index) => bytes.writeUInt16BE(parseInt(group, 16), index * 2));
  return bytes;
}

function tcpHeader(spec: SegmentSpec): Buffer {
  const options: number[] = [];
  if (spec.mss !== undefined) options.push(2, 4, spec.mss >> 8, spec.mss & 0xff);
  if (spec.windowScale !== undefined) options.push(1, 3, 3, spec.windowScale);
  while (options.length % 4 !== 0) options.push(0);
  const header = Buffer.alloc(20 + options.length);
  header.writeUInt16BE(spec.from[1], 0);
  header.writeUInt16BE(spec.to[1], 2);
  header.writeUInt32BE(spec.seq >>> 0, 4);
  header.writeUInt32BE((spec.ack ?? 0) >>> 0, 8);
  header[12] = (header.length / 4) << 4;
  header[13] = spec.flags ?? 0x10;
  header.writeUInt16BE(spec.window ?? 65_535, 14);
  Buffer.from(options).copy(header, 20);
  return header;
}

/** The IP packet (v4 or v6 by the address) carrying one TCP segment. */
export function ipPacket(spec: SegmentSpec): Buffer {
  const tcp = Buffer.concat([tcpHeader(spec), spec.payload ?? Buffer.alloc(0)]);
  if (spec.from[0].includes(':')) {
    const header = Buffer.alloc(40);
    header[0] = 0x60;
    header.writeUInt16BE(tcp.length, 4);
    header[6] = 6;
    header[7] = 64;
    ipv6Bytes(spec.from[0]).copy(header, 8);
    ipv6Bytes(spec.to[0]).copy(header, 24);
    return Buffer.concat([header, tcp]);
  }
  const header = Buffer.alloc(20);
  header[0] = 0x45;
  header.writeUInt16BE(20 + tcp.length, 2);
  header.writeUInt16BE(0x4000, 6); // don't fragment
  header[8] = 64;
  header[9] = 6;
  ipv4Bytes(spec.from[0]).copy(header, 12);
  ipv4Bytes(spec.to[0]).copy(header, 16);
  return Buffer.concat([header, tcp]);
}

export type LinkKind = 'ethernet' | 'sll' | 'sll2' | 'raw';
export const LINK_TYPES: Readonly<Record<LinkKind, number>> = { ethernet: 1, sll: 113, sll2: 276, raw: 101 };

export function frameOf(spec: SegmentSpec, link: LinkKind): Buffer {
  const ip = ipPacket(spec);
  const ethertype = spec.from[0].includes(':') ? 0x86dd : 0x0800;
  const head = Buffer.alloc(link === 'ethernet' ? 14 : link === 'sll' ? 16 : link === 'sll2' ? 20 : 0);
  if (link === 'ethernet') head.writeUInt16BE(ethertype, 12);
  if (link === 'sll') head.writeUInt16BE(ethertype, 14);
  if (link === 'sll2') head.writeUInt16BE(ethertype, 0);
  return Buffer.concat([head, ip]);
}

export interface FileOptions {
  readonly link?: LinkKind;
  readonly nanoseconds?: boolean;
  readonly bigEndian?: boolean;
}

/** A classic pcap file of these segments. */
export function pcapFile(segments: readonly SegmentSpec[], options: FileOptions = {}): Buffer {
  const link = options.link ?? 'ethernet';
  const u32 = (value: number) => {
    const bytes = Buffer.alloc(4);
    if (options.bigEndian) bytes.writeUInt32BE(value >>> 0);
    else bytes.writeUInt32LE(value >>> 0);
    return bytes;
  };
  const u16 = (value: number) => {
    const bytes = Buffer.alloc(2);
    if (options.bigEndian) bytes.writeUInt16BE(value);
    else bytes.writeUInt16LE(value);
    return bytes;
  };
  const parts: Buffer[] = [u32(options.nanoseconds ? 0xa1b23c4d : 0xa1b2c3d4), u16(2), u16(4), u32(0), u32(0), u32(262_144), u32(LINK_TYPES[link])];
  const unit = options.nanoseconds ? 1e9 : 1e6;
  for (const spec of segments) {
    const frame = frameOf(spec, link);
    const kept = frame.subarray(0, spec.snap ?? frame.length);
    const whole = Math.floor(spec.seconds);
    parts.push(u32(1_700_000_000 + whole), u32(Math.round((spec.seconds - whole) * unit)), u32(kept.length), u32(frame.length), kept);
  }
  return Buffer.concat(parts);
}

function pcapngBlock(type: number, body: Buffer): Buffer {
  const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
  const length = padded.length + 12;
  const head = Buffer.alloc(8);
  head.writeUInt32LE(type, 0);
  head.writeUInt32LE(length, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(length, 0);
  return Buffer.concat([head, padded, tail]);
}

/** A pcapng file of these segments: one section, one interface (nanosecond timestamps), enhanced packet blocks. */
export function pcapngFile(segments: readonly SegmentSpec[], link: LinkKind = 'ethernet'): Buffer {
  const shb = Buffer.alloc(16);
  shb.writeUInt32LE(0x1a2b3c4d, 0);
  shb.writeUInt16LE(1, 4);
  shb.writeBigInt64LE(-1n, 8);
  const idb = Buffer.alloc(16);
  idb.writeUInt16LE(LINK_TYPES[link], 0);
  idb.writeUInt32LE(262_144, 4);
  // if_tsresol = 9 (nanoseconds), then opt_endofopt.
  idb.writeUInt16LE(9, 8);
  idb.writeUInt16LE(1, 10);
  idb[12] = 9;
  const blocks = [pcapngBlock(0x0a0d0d0a, shb), pcapngBlock(1, idb)];
  for (const spec of segments) {
    const frame = frameOf(spec, link);
    const kept = frame.subarray(0, spec.snap ?? frame.length);
    const stamp = BigInt(Math.round((1_700_000_000 + spec.seconds) * 1e6)) * 1000n;
    const head = Buffer.alloc(20);
    head.writeUInt32LE(0, 0);
    head.writeUInt32LE(Number(stamp >> 32n), 4);
    head.writeUInt32LE(Number(stamp & 0xffffffffn), 8);
    head.writeUInt32LE(kept.length, 12);
    head.writeUInt32LE(frame.length, 16);
    blocks.push(pcapngBlock(6, Buffer.concat([head, kept])));
  }
  return Buffer.concat(blocks);
}
