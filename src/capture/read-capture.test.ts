import { describe, expect, it } from 'vitest';
import { Command, Status } from '../smb/protocol.js';
import type { SegmentSpec } from '../test-support/pcap-builder.js';
import { pcapFile, pcapngFile } from '../test-support/pcap-builder.js';
import type { Message } from '../test-support/smb-conversation.js';
import {
  conversation,
  createRequest,
  createResponse,
  negotiateRequest,
  negotiateResponse,
  pipelinedWriteMessages,
  readRequest,
  readResponse,
  smb2,
  writeRequest,
  writeResponse,
} from '../test-support/smb-conversation.js';
import { copyAgainstModel } from './capture-model.js';
import { captureAnalysisOf } from './analyze-capture.js';
import { CaptureReader } from './read-capture.js';
import type { CaptureRead } from './read-capture.js';

const MIB = 1 << 20;
const RTT = 0.02;

const pipelinedWrite = (count: number, depth: number, credits = 64): Message[] => pipelinedWriteMessages(count, depth, credits, RTT);

/** The copies with their figures to the microsecond: pcap and pcapng keep time in different units. */
const rounded = (copies: readonly object[] | undefined) =>
  JSON.parse(
    JSON.stringify(copies, (_key, value: unknown) => (typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(6)) : value)),
  ) as unknown;

function read(segments: readonly SegmentSpec[], format: 'pcap' | 'pcapng' = 'pcap'): CaptureRead {
  const reader = new CaptureReader();
  const bytes = format === 'pcap' ? pcapFile(segments) : pcapngFile(segments);
  // In chunks smaller than a packet, as a file is read.
  for (let at = 0; at < bytes.length; at += 1000) reader.push(bytes.subarray(at, at + 1000));
  return reader.finish();
}

describe('a capture of an SMB copy, read', () => {
  it('finds the connection, its round trip, its dialect and the client’s requests as it issued them', () => {
    const result = read(conversation(pipelinedWrite(16, 4)));
    expect(result.connections).toHaveLength(1);
    const [connection] = result.connections;
    expect(connection?.client).toEqual({ address: '192.0.2.10', port: 51_000 });
    expect(connection?.handshakeRttMs).toBeCloseTo(20, 6);
    expect(connection?.smb.dialect).toBe(0x0311);
    const [copy] = connection?.smb.copies ?? [];
    expect(copy).toMatchObject({
      op: 'write',
      bytes: 16 * MIB,
      requests: 16,
      requestBytes: MIB,
      largestRequestBytes: MIB,
      maxInFlight: 4,
      opened: true,
      closed: true,
      unanswered: 0,
    });
    // Four out for (nearly) the whole of each round trip.
    expect(copy?.meanInFlight).toBeGreaterThan(3.9);
    expect(copy?.meanInFlight).toBeLessThanOrEqual(4);
    // Its open and its close: the open's round trip is the CREATE frame's, the close's its own.
    expect(copy?.metadataRoundTrips).toBe(2);
    // The server granted 64 at the negotiate; each write took 16 and gave 16 back.
    expect(connection?.smb.credits).toMatchObject({ windowMax: 64, inUseMax: 64, grantedMax: 64 });
    const writes = connection?.smb.commands.find((entry) => entry.command === Command.write);
    expect(writes?.count).toBe(16);
  });

  it('names the credits where the copy waited for them, and the line where it did not', () => {
    // 16 credits: one 1 MiB write out at a time, the next sent the moment the answer brings them back.
    const held = read(conversation(pipelinedWrite(16, 1, 16), { windowScale: 7 })).connections[0];
    const [heldCopy] = held?.smb.copies ?? [];
    expect(heldCopy?.waitingFraction).toBeGreaterThan(0.9);
    expect(heldCopy?.heldWhileWaiting).toBe(16);
    expect(held && heldCopy && copyAgainstModel(held, heldCopy, { bandwidthBitsPerSecond: 1e9 })?.limitedBy).toBe('credits');
    // 128 credits and four out (64 of them): nothing waits; on a 100 Mb/s line the line is the limit. (With exactly
    // 64, every credit out whenever four are, the capture cannot tell the client's own depth from the credits'.)
    const free = read(conversation(pipelinedWrite(16, 4, 128), { windowScale: 7 })).connections[0];
    const [freeCopy] = free?.smb.copies ?? [];
    expect(freeCopy?.waitingFraction).toBeUndefined();
    expect(free && freeCopy && copyAgainstModel(free, freeCopy, { bandwidthBitsPerSecond: 100e6 })?.limitedBy).toBe('bandwidth');
  });

  it('reads the same from pcapng, through a snap length that keeps the headers only, and from a stream with its segments reordered and one sent twice', () => {
    const segments = conversation(pipelinedWrite(8, 2));
    const expected = rounded(read(segments).connections[0]?.smb.copies);
    expect(rounded(read(segments, 'pcapng').connections[0]?.smb.copies)).toEqual(expected);
    const snapped = read(conversation(pipelinedWrite(8, 2), { snap: 256 }));
    expect(rounded(snapped.connections[0]?.smb.copies)).toEqual(expected);
    expect(snapped.connections[0]?.clientSide.framing.unframedBytes).toBe(0);
    // Two segments of a request swapped in the capture, and one captured twice (sent again).
    const shuffled = [...segments];
    const at = shuffled.findIndex((segment) => (segment.payload?.length ?? 0) > 0 && segment.seconds >= 0.1);
    const [a, b] = [shuffled[at + 1], shuffled[at + 2]];
    if (!a || !b) throw new Error('the conversation is shorter than the test needs');
    shuffled.splice(at + 1, 2, b, a, b);
    const reordered = read(shuffled).connections[0];
    expect(rounded(reordered?.smb.copies)).toEqual(expected);
    expect(reordered?.clientSide.sent.retransmittedSegments).toBe(1);
    expect(reordered?.clientSide.sent.outOfOrder).toBe(1);
  });

  it("reads a client that sends each frame's length in a segment of its own (go-smb2), from its first frame and past a missed segment", () => {
    const expected = rounded(read(conversation(pipelinedWrite(8, 2))).connections[0]?.smb.copies);
    // Its NEGOTIATE's 4-byte length alone in the stream's first segment: too short to say SMB, yet it is.
    const apart = conversation(pipelinedWrite(8, 2), { lengthApart: true });
    const whole = read(apart).connections[0];
    expect(rounded(whole?.smb.copies)).toEqual(expected);
    expect(whole?.smb.dialect).toBe(0x0311);
    expect(whole?.clientSide.sent.missedBytes).toBe(0);
    expect(whole?.clientSide.framing.unframedBytes).toBe(0);
    // The third write's length missed: the framing is found again at the fourth's, whose length came apart from its header.
    const thirdLength = apart.filter((segment) => segment.seconds >= 0.1 && segment.from[1] !== 445 && segment.payload?.length === 4)[2];
    const missed = read(apart.filter((segment) => segment !== thirdLength)).connections[0];
    expect(missed?.clientSide.framing.resyncs).toBe(1);
    expect(missed?.clientSide.sent.missedBytes).toBe(4);
    // That write cannot be placed: seven of the eight are read, and every answer matched but its.
    expect(missed?.smb.copies[0]).toMatchObject({ requests: 7, bytes: 7 * MIB });
    expect(missed?.smb.unmatchedResponses).toBe(1);
  });

  it("names the client's own pace, and models every request it made, small ones too", () => {
    // One read at a time over 20 ms: four of 1 MiB, then twelve of 4 KiB, each sent 80 ms after the last answer.
    const sizes = [...Array.from({ length: 4 }, () => MIB), ...Array.from({ length: 12 }, () => 4096)];
    const messages: Message[] = [
      { seconds: 0.03, fromServer: false, bytes: negotiateRequest() },
      { seconds: 0.04, fromServer: true, bytes: negotiateResponse(0x0311, 64) },
    ];
    let offset = 0;
    sizes.forEach((size, index) => {
      const sent = 0.1 + index * (RTT + 0.08);
      messages.push({ seconds: sent, fromServer: false, bytes: readRequest(BigInt(2 + index), 9, offset, size) });
      messages.push({ seconds: sent + RTT, fromServer: true, bytes: readResponse(BigInt(2 + index), size) });
      offset += size;
    });
    const connection = read(conversation(messages, { windowScale: 7 })).connections[0];
    const [copy] = connection?.smb.copies ?? [];
    expect(copy).toMatchObject({ op: 'read', requests: 16, requestBytes: MIB, maxInFlight: 1 });
    // 80 ms of every 100 with nothing out, but after the last answer.
    expect(copy?.idleFraction).toBeCloseTo((15 * 0.08) / (16 * RTT + 15 * 0.08), 6);
    // Sixteen round trips at the least, not four: the model makes the requests the client made. Its own pace, the
    // 1.2 s it had nothing out, is its own and the larger part: the client's machine held the copy.
    const model = connection && copy && copyAgainstModel(connection, copy, { bandwidthBitsPerSecond: 1e9 });
    expect(model?.clientIdleSeconds).toBeCloseTo(15 * 0.08, 6);
    expect(model?.expectedSeconds).toBeGreaterThanOrEqual(16 * RTT + 15 * 0.08);
    expect(model?.limitedBy).toBe('hosts');
    expect(model?.verdict).toBe('as-expected');
  });

  it("does not call two files' turns on one connection the client idling (robocopy /MT)", () => {
    // Files 3 and 4 read in turns, one request out at a time: while one waits, the other's request is out.
    const messages: Message[] = [];
    for (let index = 0; index < 8; index++) {
      const sent = 0.1 + index * RTT;
      messages.push({ seconds: sent, fromServer: false, bytes: readRequest(BigInt(2 + index), 3 + (index % 2), 0, 65_536) });
      messages.push({ seconds: sent + RTT - 0.0001, fromServer: true, bytes: readResponse(BigInt(2 + index), 65_536) });
    }
    const copies = read(conversation(messages)).connections[0]?.smb.copies ?? [];
    expect(copies.map((copy) => copy.requests)).toEqual([4, 4]);
    // Only the 0.1 ms between an answer and the next request, with nothing out at all, is the client's: not the 43%
    // of each file's time that the other file's request was out.
    for (const copy of copies) expect(copy.idleFraction).toBeLessThan(0.01);
  });

  it('goes on past a segment the capture missed, once the other side acknowledges beyond it', () => {
    const segments = conversation(pipelinedWrite(8, 2));
    // The third data segment of the first write is missing; the server's ACKs are what say it was sent.
    const first = segments.findIndex((segment) => segment.seconds >= 0.1 && !!segment.payload?.length);
    const [missing] = segments.splice(first + 2, 1);
    if (!missing) throw new Error('no segment to drop');
    const ack: SegmentSpec = { seconds: 0.1 + RTT / 2, from: missing.to, to: missing.from, seq: 0, ack: missing.seq + (missing.payload?.length ?? 0) };
    const withAck = [...segments.filter((segment) => segment.seconds <= ack.seconds), ack, ...segments.filter((segment) => segment.seconds > ack.seconds)];
    const connection = read(withAck).connections[0];
    expect(connection?.clientSide.sent.missedBytes).toBe(missing.payload?.length);
    expect(connection?.smb.copies[0]).toMatchObject({ requests: 8, bytes: 8 * MIB, unanswered: 0 });
    expect(connection?.smb.unmatchedResponses).toBe(0);
  });

  it('counts a request in flight from its first byte and an answer from its last, whichever frame ends first', () => {
    // The second write starts (0.21 s) before the first one's answer (0.25 s) and ends after it (0.30 s): two in flight,
    // though its frame is read after the answer's. On the lab's 50 Mb/s link a 1 MiB write read as one in flight so.
    const messages: Message[] = [
      { seconds: 0.03, fromServer: false, bytes: createRequest(1n) },
      { seconds: 0.05, fromServer: true, bytes: createResponse(1n, 3) },
      { seconds: 0.1, lastSeconds: 0.2, fromServer: false, bytes: writeRequest(2n, 3, 0, 65_536) },
      { seconds: 0.21, lastSeconds: 0.3, fromServer: false, bytes: writeRequest(3n, 3, 65_536, 65_536) },
      { seconds: 0.25, fromServer: true, bytes: writeResponse(2n, 65_536) },
      { seconds: 0.35, fromServer: true, bytes: writeResponse(3n, 65_536) },
    ];
    const segments = conversation(messages).sort((a, b) => a.seconds - b.seconds);
    const [copy] = read(segments).connections[0]?.smb.copies ?? [];
    expect(copy).toMatchObject({ op: 'write', requests: 2, maxInFlight: 2 });
    expect(copy?.firstSeconds).toBeCloseTo(0.1, 6);
    expect(copy?.lastSeconds).toBeCloseTo(0.35, 6);
  });

  it('keeps a request in flight through an interim answer (STATUS_PENDING) until its final one', () => {
    const pending = smb2({ command: Command.read, messageId: 2n, response: true, async: true, status: Status.pending, credits: 1 }, Buffer.alloc(9));
    const messages: Message[] = [
      { seconds: 0.03, fromServer: false, bytes: createRequest(1n) },
      { seconds: 0.05, fromServer: true, bytes: createResponse(1n, 3) },
      { seconds: 0.06, fromServer: false, bytes: readRequest(2n, 3, 0, 65_536) },
      { seconds: 0.07, fromServer: true, bytes: pending },
      { seconds: 0.5, fromServer: true, bytes: readResponse(2n, 65_536) },
    ];
    const captured = read(conversation(messages));
    const connection = captured.connections[0];
    expect(connection?.smb.copies[0]).toMatchObject({ op: 'read', bytes: 65_536, requests: 1, maxInFlight: 1 });
    expect(connection?.smb.commands.find((entry) => entry.command === Command.read)?.medianMs).toBeCloseTo(440, 3);
    // The server's own time: the capture sits halfway (its SYN-ACK 10 ms after the SYN), and that round trip is the path's.
    expect(connection?.toServerRttMs).toBeCloseTo(RTT * 500, 6);
    const [analysed] = captureAnalysisOf(captured).connections;
    expect(analysed?.commands.find((entry) => entry.command === 'READ')).toMatchObject({ count: 1 });
    expect(analysed?.commands.find((entry) => entry.command === 'READ')?.medianMs).toBeCloseTo(430, 3);
    expect(analysed?.commands.find((entry) => entry.command === 'READ')?.pathIncluded).toBeUndefined();
    // The capture began after the negotiate: the credits the client held are unknown, those in use are not.
    expect(connection?.smb.credits.windowMax).toBeUndefined();
  });

  it('loses the framing at a length no SMB message has, says how much it could not read, and finds it again at the next frame', () => {
    const bogus = Buffer.from([0x00, 0xff, 0xff, 0xff, 0xfe, 0x53, 0x4d, 0x42]);
    const messages: Message[] = [
      { seconds: 0.03, fromServer: false, bytes: createRequest(1n) },
      { seconds: 0.05, fromServer: true, bytes: createResponse(1n, 3) },
    ];
    const segments = conversation(messages);
    const last = segments.at(-2);
    if (!last?.payload) throw new Error('no request segment');
    // Garbage after the CREATE request in the client's stream, then a READ that starts a segment of its own.
    const garbage: SegmentSpec = { ...last, seconds: 0.06, seq: last.seq + last.payload.length, payload: bogus };
    const next = conversation([{ seconds: 0.07, fromServer: false, bytes: readRequest(2n, 3, 0, 4096) }]).at(-1);
    if (!next?.payload) throw new Error('no read segment');
    const read2: SegmentSpec = { ...next, seq: garbage.seq + bogus.length };
    const connection = read([...segments, garbage, read2]).connections[0];
    expect(connection?.clientSide.framing).toMatchObject({ unframedBytes: bogus.length, resyncs: 1 });
    expect(connection?.smb.unansweredRequests).toBe(1);
  });
});
