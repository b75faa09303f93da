import { describe, expect, it } from 'vitest';
import type { SegmentSpec } from '../test-support/pcap-builder.js';
import { pcapFile, pcapngFile } from '../test-support/pcap-builder.js';
import type { CapturedPacket } from './capture-format.js';
import { CaptureFormatError, CaptureParser } from './capture-format.js';

const client: [string, number] = ['10.0.0.1', 50_000];
const server: [string, number] = ['10.0.0.2', 445];
const segments: SegmentSpec[] = [
  { seconds: 0.25, from: client, to: server, seq: 1, flags: 0x02 },
  { seconds: 0.2901234, from: server, to: client, seq: 7, flags: 0x12 },
  { seconds: 1.5, from: client, to: server, seq: 2, payload: Buffer.alloc(100, 1) },
];

function parse(bytes: Buffer, chunk = bytes.length): CapturedPacket[] {
  const packets: CapturedPacket[] = [];
  const parser = new CaptureParser((packet) => packets.push({ ...packet, data: Buffer.from(packet.data) }));
  for (let at = 0; at < bytes.length; at += chunk) parser.push(bytes.subarray(at, at + chunk));
  parser.end();
  return packets;
}

describe('the capture file formats', () => {
  // The builder writes pcapng's nanosecond stamps from microseconds: 5 digits there, as in a microsecond pcap.
  it.each([
    ['pcap, microseconds, little-endian', pcapFile(segments), 5],
    ['pcap, nanoseconds, big-endian', pcapFile(segments, { nanoseconds: true, bigEndian: true }), 6],
    ['pcapng, nanosecond interface', pcapngFile(segments), 5],
  ])('reads %s: every packet, its link type, its time since the first', (_name, bytes, digits) => {
    const packets = parse(bytes);
    expect(packets.map((packet) => packet.linkType)).toEqual([1, 1, 1]);
    expect(packets[0]?.seconds).toBe(0);
    expect(packets[1]?.seconds).toBeCloseTo(0.0401234, digits);
    expect(packets[2]?.seconds).toBeCloseTo(1.25, 6);
    expect(packets[2]?.originalLength).toBe(14 + 20 + 20 + 100);
  });

  it('reads the same packets whatever the chunks the file comes in, down to a byte at a time', () => {
    for (const bytes of [pcapFile(segments), pcapngFile(segments)]) {
      const whole = parse(bytes);
      expect(parse(bytes, 1)).toEqual(whole);
      expect(parse(bytes, 7)).toEqual(whole);
    }
  });

  it('keeps a packet cut by the snap length as captured, with the length it had', () => {
    const [packet] = parse(pcapFile([{ ...segments[2], snap: 60 } as SegmentSpec]));
    expect(packet?.data.length).toBe(60);
    expect(packet?.originalLength).toBe(154);
  });

  it.each([
    ['a file that is not a capture', Buffer.from('GIF89a, not a capture at all'), /not a capture file: it starts 47494638/],
    ['an empty file', Buffer.alloc(0), /too few for a pcap or pcapng header/],
    ['a pcap cut in the middle of a record', pcapFile(segments).subarray(0, 24 + 16 + 30), /ends in the middle of a record/],
    ['a pcapng cut in a block', pcapngFile(segments).subarray(0, 100), /ends in the middle of a record/],
  ])('refuses %s with a typed error', (_name, bytes, message) => {
    expect(() => parse(bytes)).toThrow(CaptureFormatError);
    expect(() => parse(bytes)).toThrow(message);
  });

  it('refuses a record that claims more bytes than any capture keeps, before reading them', () => {
    const bytes = pcapFile(segments);
    bytes.writeUInt32LE(0x7fffffff, 24 + 8);
    expect(() => parse(bytes)).toThrow(/says it holds 2147483647 bytes/);
  });

  it('refuses a pcapng block whose lengths disagree, and a packet on an interface never described', () => {
    const bytes = pcapngFile(segments);
    const broken = Buffer.from(bytes);
    broken.writeUInt32LE(12, 4);
    expect(() => parse(broken)).toThrow(CaptureFormatError);
    // The interface block's type rewritten to one the reader skips: the packets name an interface it never saw.
    const noInterface = Buffer.from(bytes);
    noInterface.writeUInt32LE(0x0bad, 28);
    expect(() => parse(noInterface)).toThrow(/names interface 0, which the capture never described/);
  });
});
