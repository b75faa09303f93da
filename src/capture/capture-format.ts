// The packet records of a capture file, pcap or pcapng, as tcpdump, dumpcap
// and pktmon's etl2pcap write them (issue 53). A push parser: the caller
// hands it the file in chunks of any size and gets each packet through a
// callback, so a multi-GB capture is read in constant memory and a test can
// feed it bytes it made. Every length the file states is checked against
// what is there and against fixed bounds before it is used: a capture is
// untrusted input, and a crafted one ends in a CaptureFormatError.
//
// Formats: the classic libpcap format (microsecond magic 0xA1B2C3D4 and
// nanosecond magic 0xA1B23C4D, either byte order), and pcapng
// (draft-ietf-opsawg-pcapng: Section Header, Interface Description with
// if_tsresol, Enhanced, Simple and the obsolete Packet blocks; other blocks
// are skipped by their length).

import { PipefillError } from '../model/errors.js';

/** A capture the parser cannot read: what was wrong, and where. */
export class CaptureFormatError extends PipefillError {
  override readonly name = 'CaptureFormatError';
  constructor(message: string, hint = 'Open a pcap or pcapng file as tcpdump, Wireshark or pktmon (etl2pcap) write it.') {
    super('bad-capture', message, hint);
  }
}

export interface CapturedPacket {
  /** Seconds since the capture's first packet (its clock, whatever the file's resolution). */
  readonly seconds: number;
  /** The link-layer header type (LINKTYPE_* of the tcpdump.org list). */
  readonly linkType: number;
  /** The bytes captured: at most the snap length, so possibly fewer than the packet had. */
  readonly data: Buffer;
  /** The packet's length on the wire. */
  readonly originalLength: number;
}

/** No packet record is longer: pcap's own largest snap length (262144) with room to spare; a larger one is crafted. */
const MOST_RECORD_BYTES = 1 << 20;
/** pcapng interfaces a section may describe before the file is taken as crafted. */
const MOST_INTERFACES = 4096;

const PCAP_MICRO = 0xa1b2c3d4;
const PCAP_NANO = 0xa1b23c4d;
const PCAPNG_SHB = 0x0a0d0d0a;
const PCAPNG_BYTE_ORDER = 0x1a2b3c4d;

type Reader = (buffer: Buffer, offset: number) => number;
const le: Reader = (buffer, offset) => buffer.readUInt32LE(offset);
const be: Reader = (buffer, offset) => buffer.readUInt32BE(offset);

interface Interface {
  readonly linkType: number;
  /** Seconds per timestamp unit. */
  readonly unit: number;
  readonly snapLength: number;
}

/** Seconds per unit from pcapng's if_tsresol: the high bit picks a power of 2, else of 10. */
function resolutionSeconds(value: number): number {
  const exponent = value & 0x7f;
  if (exponent > 63) throw new CaptureFormatError(`An interface's timestamp resolution (${value}) is out of range.`);
  return (value & 0x80) !== 0 ? 2 ** -exponent : 10 ** -exponent;
}

export class CaptureParser {
  private pending: Buffer = Buffer.alloc(0);
  private format: 'unknown' | 'pcap' | 'pcapng' = 'unknown';
  private read32: Reader = le;
  private read16: (buffer: Buffer, offset: number) => number = (b, o) => b.readUInt16LE(o);
  private pcapUnit = 1e-6;
  private pcapLinkType = 0;
  private interfaces: Interface[] = [];
  /** The first packet's time, in the file's own units (seconds, then the fraction as a number). */
  private origin: { seconds: bigint; fraction: number } | undefined;
  private originPcapng: bigint | undefined;
  private offset = 0;
  /** The last packet's time: a simple packet block, which has none, takes it. */
  private lastSeconds = 0;
  packets = 0;

  constructor(private readonly onPacket: (packet: CapturedPacket) => void) {}

  /** The bytes consumed so far: where an error in the file lies. */
  get position(): number {
    return this.offset;
  }

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let used = 0;
    for (;;) {
      const taken = this.next(this.pending, used);
      if (taken === 0) break;
      used += taken;
      this.offset += taken;
    }
    // What is left is one record's start at most (bounded by MOST_RECORD_BYTES): copied, as the caller may reuse its chunk.
    const left = this.pending.subarray(used);
    this.pending = left.length === 0 ? Buffer.alloc(0) : Buffer.from(left);
  }

  /** The file has ended: bytes left over are a record cut short. */
  end(): void {
    if (this.format === 'unknown')
      throw new CaptureFormatError(`This is not a capture file: ${this.offset + this.pending.length} bytes, too few for a pcap or pcapng header.`);
    if (this.pending.length > 0)
      throw new CaptureFormatError(`The capture ends in the middle of a record (${this.pending.length} bytes at byte ${this.offset}): the file was cut short.`);
  }

  /** Bytes consumed from `buffer` at `at`, or 0 where more are needed. */
  private next(buffer: Buffer, at: number): number {
    const left = buffer.length - at;
    if (this.format === 'unknown') return this.header(buffer, at, left);
    return this.format === 'pcap' ? this.pcapRecord(buffer, at, left) : this.pcapngBlock(buffer, at, left);
  }

  private header(buffer: Buffer, at: number, left: number): number {
    if (left < 4) return 0;
    const magicLe = buffer.readUInt32LE(at);
    const magicBe = buffer.readUInt32BE(at);
    if (magicLe === PCAPNG_SHB) {
      this.format = 'pcapng';
      return this.pcapngBlock(buffer, at, left);
    }
    const magic = [PCAP_MICRO, PCAP_NANO].includes(magicLe) ? magicLe : [PCAP_MICRO, PCAP_NANO].includes(magicBe) ? magicBe : undefined;
    if (magic === undefined)
      throw new CaptureFormatError(`This is not a capture file: it starts ${buffer.subarray(at, at + 4).toString('hex')}, not a pcap or pcapng magic number.`);
    if (left < 24) return 0;
    const little = magicLe === magic;
    this.setOrder(little);
    this.pcapUnit = magic === PCAP_NANO ? 1e-9 : 1e-6;
    this.pcapLinkType = this.read32(buffer, at + 20) & 0xffff;
    this.format = 'pcap';
    return 24;
  }

  private setOrder(little: boolean): void {
    this.read32 = little ? le : be;
    this.read16 = little ? (b, o) => b.readUInt16LE(o) : (b, o) => b.readUInt16BE(o);
  }

  private pcapRecord(buffer: Buffer, at: number, left: number): number {
    if (left < 16) return 0;
    const seconds = this.read32(buffer, at);
    const fraction = this.read32(buffer, at + 4);
    const captured = this.read32(buffer, at + 8);
    const original = this.read32(buffer, at + 12);
    if (captured > MOST_RECORD_BYTES)
      throw new CaptureFormatError(`A packet record at byte ${this.offset} says it holds ${captured} bytes: more than any capture keeps of a packet.`);
    if (left < 16 + captured) return 0;
    this.origin ??= { seconds: BigInt(seconds), fraction };
    const since = Number(BigInt(seconds) - this.origin.seconds) + (fraction - this.origin.fraction) * this.pcapUnit;
    this.emit(since, this.pcapLinkType, buffer.subarray(at + 16, at + 16 + captured), Math.max(original, captured));
    return 16 + captured;
  }

  private emit(seconds: number, linkType: number, data: Buffer, originalLength: number): void {
    this.packets++;
    this.lastSeconds = seconds;
    this.onPacket({ seconds, linkType, data, originalLength });
  }

  private pcapngBlock(buffer: Buffer, at: number, left: number): number {
    if (left < 12) return 0;
    const type = buffer.readUInt32LE(at);
    if (type === PCAPNG_SHB) {
      // The section's byte order comes from its own magic: read it before the length.
      const order = buffer.readUInt32LE(at + 8);
      if (order !== PCAPNG_BYTE_ORDER && buffer.readUInt32BE(at + 8) !== PCAPNG_BYTE_ORDER)
        throw new CaptureFormatError(`A pcapng section at byte ${this.offset} has no byte-order magic.`);
      this.setOrder(order === PCAPNG_BYTE_ORDER);
      this.interfaces = [];
    }
    const length = this.read32(buffer, at + 4);
    if (length < 12 || length % 4 !== 0 || length > MOST_RECORD_BYTES + 64)
      throw new CaptureFormatError(`A pcapng block at byte ${this.offset} states a length of ${length} bytes, which no block has.`);
    if (left < length) return 0;
    if (this.read32(buffer, at + length - 4) !== length)
      throw new CaptureFormatError(`A pcapng block at byte ${this.offset} ends with a length that is not its own.`);
    const blockType = this.read32(buffer, at);
    const body = buffer.subarray(at + 8, at + length - 4);
    if (blockType === 1) this.interfaceBlock(body);
    else if (blockType === 6) this.enhancedPacket(body);
    else if (blockType === 3) this.simplePacket(body);
    else if (blockType === 2) this.obsoletePacket(body);
    return length;
  }

  private interfaceBlock(body: Buffer): void {
    if (body.length < 8) throw new CaptureFormatError(`An interface description at byte ${this.offset} is ${body.length} bytes long, too short for one.`);
    if (this.interfaces.length >= MOST_INTERFACES) throw new CaptureFormatError(`The capture describes more than ${MOST_INTERFACES} interfaces.`);
    let unit = 1e-6;
    // Options: code, length, value padded to 32 bits, until opt_endofopt or the body's end (bounded by the body).
    for (let at = 8; at + 4 <= body.length;) {
      const code = this.read16(body, at);
      const size = this.read16(body, at + 2);
      if (code === 0) break;
      if (at + 4 + size > body.length) throw new CaptureFormatError(`An interface option at byte ${this.offset} runs past its block.`);
      if (code === 9 && size >= 1) unit = resolutionSeconds(body.readUInt8(at + 4));
      at += 4 + Math.ceil(size / 4) * 4;
    }
    this.interfaces.push({ linkType: this.read16(body, 0), unit, snapLength: this.read32(body, 4) });
  }

  private interfaceOf(id: number): Interface {
    const found = this.interfaces[id];
    if (!found) throw new CaptureFormatError(`A packet at byte ${this.offset} names interface ${id}, which the capture never described.`);
    return found;
  }

  private timedPacket(interfaceId: number, high: number, low: number, captured: number, original: number, data: Buffer): void {
    const { linkType, unit } = this.interfaceOf(interfaceId);
    if (captured > data.length)
      throw new CaptureFormatError(`A packet at byte ${this.offset} says it holds ${captured} bytes; its block holds ${data.length}.`);
    const stamp = (BigInt(high) << 32n) | BigInt(low);
    this.originPcapng ??= stamp;
    this.emit(Number(stamp - this.originPcapng) * unit, linkType, data.subarray(0, captured), Math.max(original, captured));
  }

  private enhancedPacket(body: Buffer): void {
    if (body.length < 20) throw new CaptureFormatError(`A packet block at byte ${this.offset} is too short for its header.`);
    const r = this.read32;
    this.timedPacket(r(body, 0), r(body, 4), r(body, 8), r(body, 12), r(body, 16), body.subarray(20));
  }

  private obsoletePacket(body: Buffer): void {
    if (body.length < 20) throw new CaptureFormatError(`A packet block at byte ${this.offset} is too short for its header.`);
    const r = this.read32;
    this.timedPacket(this.read16(body, 0), r(body, 4), r(body, 8), r(body, 12), r(body, 16), body.subarray(20));
  }

  private simplePacket(body: Buffer): void {
    if (body.length < 4) throw new CaptureFormatError(`A simple packet block at byte ${this.offset} is too short for its header.`);
    const { linkType, snapLength } = this.interfaceOf(0);
    const original = this.read32(body, 0);
    const captured = Math.min(original, body.length - 4, snapLength > 0 ? snapLength : Number.MAX_SAFE_INTEGER);
    // A simple packet has no timestamp: it takes the last one seen (its order is all the file says).
    this.emit(this.lastSeconds, linkType, body.subarray(4, 4 + captured), original);
  }
}
