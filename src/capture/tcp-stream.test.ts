import { describe, expect, it } from 'vitest';
import type { StreamConsumer } from './tcp-stream.js';
import { TcpDirection } from './tcp-stream.js';

/** What a stream hands on: data as its bytes' text, holes as their length. */
function recorder(): StreamConsumer & { got: (string | number)[] } {
  const got: (string | number)[] = [];
  return { got, data: (bytes) => got.push(bytes.toString('latin1')), hole: (length) => got.push(length) };
}

describe('one direction of a TCP stream, put back in order', () => {
  it('holds a segment that came early until the gap before it fills, and hands on a resend once', () => {
    const consumer = recorder();
    const stream = new TcpDirection(consumer);
    stream.startAt(999);
    stream.segment(1004, 5, Buffer.from('world'), 0.2);
    stream.segment(1000, 4, Buffer.from('hell'), 0.1);
    stream.segment(1000, 4, Buffer.from('hell'), 0.3);
    expect(consumer.got).toEqual(['hell', 'world']);
    expect(stream.counts).toMatchObject({ outOfOrder: 1, retransmittedSegments: 1, missedBytes: 0 });
  });

  it('reads on across the 32-bit wrap of sequence numbers', () => {
    const consumer = recorder();
    const stream = new TcpDirection(consumer);
    stream.startAt(0xfffffffd);
    stream.segment(0xfffffffe, 3, Buffer.from('abc'), 0);
    stream.segment(1, 3, Buffer.from('def'), 0);
    expect(consumer.got).toEqual(['abc', 'def']);
  });

  it('takes a gap as missed once what waits behind it passes the budget every stream of the capture shares', () => {
    const consumer = recorder();
    const shared = { bytes: 0, limit: 8 };
    const stream = new TcpDirection(consumer, shared);
    stream.startAt(0);
    stream.segment(11, 5, Buffer.from('AAAAA'), 0);
    expect(consumer.got).toEqual([]);
    // Another stream's bytes already count against the same budget: this one may hold no more.
    shared.bytes += 6;
    stream.segment(16, 5, Buffer.from('BBBBB'), 0);
    expect(consumer.got).toEqual([10, 'AAAAA', 'BBBBB']);
    expect(stream.counts.missedBytes).toBe(10);
    expect(shared.bytes).toBe(6);
  });

  it('takes a gap as missed once the other side acknowledges past it, and a FIN acknowledges no byte', () => {
    const consumer = recorder();
    const stream = new TcpDirection(consumer);
    stream.startAt(0);
    stream.segment(1, 2, Buffer.from('ab'), 0);
    stream.segment(6, 2, Buffer.from('fg'), 0);
    stream.acknowledged(8, 0.1);
    expect(consumer.got).toEqual(['ab', 3, 'fg']);
    stream.finAt(8, 0);
    stream.acknowledged(9, 0.2);
    expect(consumer.got).toEqual(['ab', 3, 'fg']);
  });
});
