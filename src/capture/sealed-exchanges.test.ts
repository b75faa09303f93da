import { describe, expect, it } from 'vitest';
import { SealedExchanges } from './sealed-exchanges.js';
import type { SmbMessage } from './smb-messages.js';

const MIB = 2 ** 20;

/** A sealed message of `originalBytes` inside its transform header, whole at `seconds`. */
const sealed = (direction: SmbMessage['direction'], originalBytes: number, seconds: number, lastSeconds = seconds): SmbMessage => ({
  direction,
  firstSeconds: seconds,
  lastSeconds,
  frameLength: originalBytes + 52,
  sealed: { originalBytes, sessionId: 1n },
});

/** MS-SMB2 2.2.21 and 2.2.20: a WRITE request's data follows 112 bytes, a READ response's 80. */
const writeRequest = (bytes: number, at: number) => sealed('request', 112 + bytes, at);
const writeResponse = (at: number) => sealed('response', 80, at);
const readRequest = (at: number) => sealed('request', 113, at);
const readResponse = (bytes: number, at: number, last = at) => sealed('response', 80 + bytes, at, last);
/** A CLOSE (2.2.15, 2.2.16): 88 bytes asked, 124 answered. */
const small = (direction: SmbMessage['direction'], at: number) => sealed(direction, direction === 'request' ? 88 : 124, at);
/** An error response (2.2.2), as an interim STATUS_PENDING is. */
const interim = (at: number) => sealed('response', 73, at);

describe('SealedExchanges: copies read from the sizes and order of encrypted messages', () => {
  it('finds a write four deep and a read two deep, their requests as issued, split at the CLOSE between', () => {
    const seen = new SealedExchanges();
    const feed = (message: SmbMessage) => seen.message(message);
    // Open, then eight 1 MiB writes four at a time: each answer lets one more go.
    feed(small('request', 0));
    feed(small('response', 0.01));
    for (let write = 0; write < 4; write++) feed(writeRequest(MIB, 0.02));
    for (let answer = 0; answer < 8; answer++) {
      feed(writeResponse(0.12 + answer * 0.1));
      if (answer < 4) feed(writeRequest(MIB, 0.12 + answer * 0.1));
    }
    // Its CLOSE, asked once every write was answered, ends the copy; the next open too.
    feed(small('request', 0.95));
    feed(small('response', 0.96));
    feed(small('request', 0.97));
    feed(small('response', 0.98));
    // Six 512 KiB reads two at a time, each answer's data 50 ms on the wire.
    feed(readRequest(1));
    feed(readRequest(1));
    for (let answer = 0; answer < 6; answer++) {
      feed(readResponse(512 * 1024, 1.05 + answer * 0.1, 1.1 + answer * 0.1));
      if (answer < 4) feed(readRequest(1.1 + answer * 0.1));
    }
    const { copies, unanswered } = seen.result();
    expect(unanswered).toBe(0);
    expect(copies.map((copy) => [copy.op, copy.bytes, copy.requests, copy.requestBytes, copy.maxInFlight])).toEqual([
      ['write', 8 * MIB, 8, MIB, 4],
      ['read', 3 * MIB, 6, 512 * 1024, 2],
    ]);
    const [write, read] = copies;
    expect(write?.firstSeconds).toBe(0.02);
    expect(write?.lastSeconds).toBeCloseTo(0.82, 9);
    // The first four out 0.1-0.4 s (sent together, answered 0.1 s apart), the next four 0.4 s each, over 0.8 s.
    expect(write?.meanInFlight).toBeCloseTo((0.1 + 0.2 + 0.3 + 0.4 + 4 * 0.4) / 0.8, 6);
    expect(read?.firstSeconds).toBe(1);
    expect(read?.lastSeconds).toBeCloseTo(1.6, 9);
    for (const copy of copies) {
      expect(copy.sealed).toBe(true);
      expect(copy.meanBytesInFlight).toBeCloseTo(copy.meanInFlight * copy.requestBytes, 0);
    }
  });

  it('keeps a read or write waiting through its interim answer, and turns to a new copy where the direction does', () => {
    const seen = new SealedExchanges();
    seen.message(writeRequest(MIB, 0));
    // STATUS_PENDING (MS-SMB2 3.3.4.2): an error response's size, 73 bytes. The write is answered at 0.3 s, not 0.1.
    seen.message(interim(0.1));
    seen.message(writeResponse(0.3));
    seen.message(readRequest(0.3));
    seen.message(readRequest(0.3));
    // smbd sends them for reads too (seen sealed on loopback): both reads are answered, with their data.
    seen.message(interim(0.35));
    seen.message(readResponse(MIB, 0.4));
    seen.message(readResponse(MIB, 0.5));
    // An error answering something else is its answer: the CLOSE after is paired with its own.
    seen.message(small('request', 0.6));
    seen.message(interim(0.61));
    seen.message(small('request', 0.62));
    seen.message(small('response', 0.63));
    const { copies, unanswered } = seen.result();
    expect(copies.map((copy) => [copy.op, copy.bytes, copy.maxInFlight, copy.firstSeconds, copy.lastSeconds])).toEqual([
      ['write', MIB, 1, 0, 0.3],
      ['read', 2 * MIB, 2, 0.3, 0.5],
    ]);
    expect(unanswered).toBe(0);
  });

  it('pairs in order across the waiting queue being compacted: thousands out, answered, more sent, all answered', () => {
    const seen = new SealedExchanges();
    let at = 0;
    const write = () => seen.message(writeRequest(64 * 1024, (at += 1e-4)));
    const answer = () => seen.message(writeResponse((at += 1e-4)));
    for (let request = 0; request < 3000; request++) write();
    for (let reply = 0; reply < 2000; reply++) answer();
    for (let request = 0; request < 2000; request++) write();
    for (let reply = 0; reply < 3000; reply++) answer();
    const { copies, unanswered } = seen.result();
    expect(unanswered).toBe(0);
    expect(copies.map((copy) => [copy.op, copy.requests, copy.bytes, copy.maxInFlight])).toEqual([['write', 5000, 5000 * 64 * 1024, 3000]]);
  });

  it('is bounded by what waits, and ignores answers to nothing, small exchanges and messages it cannot size', () => {
    const seen = new SealedExchanges();
    seen.message(writeResponse(0));
    seen.message({ direction: 'response', firstSeconds: 0, lastSeconds: 0, frameLength: 10 });
    for (let request = 0; request < 100_000; request++) seen.message(small('request', request * 1e-6));
    for (let answer = 0; answer < 10; answer++) seen.message(small('response', 1));
    const { copies, unanswered } = seen.result();
    expect(copies).toEqual([]);
    expect(unanswered).toBe(65_536 - 10);
  });
});
