// One direction of a TCP connection, put back in order from the segments a
// capture saw: the bytes it carried, in stream order, handed to a consumer
// as captured data and, where the capture did not keep them (a snap length
// that cut the packet, a segment the capture missed), as a hole of known
// length. Segments that arrive early wait (bounded); segments seen again
// (retransmissions) are counted and not handed on twice. Sequence numbers
// are unwrapped from 32 bits, so a stream longer than 4 GiB reads on.

export interface StreamConsumer {
  /** Captured bytes at the stream's next position, and the time of the segment that carried them. */
  data(bytes: Buffer, seconds: number): void;
  /** `length` bytes the capture does not hold. */
  hole(length: number, seconds: number): void;
}

export interface StreamCounts {
  /** Payload bytes in segments, retransmissions included, and the segments that carried any. */
  segments: number;
  bytes: number;
  /** Segments (and their bytes) with bytes the capture had already seen: sent again. */
  retransmittedSegments: number;
  retransmittedBytes: number;
  /** Bytes the stream moved that the capture never saw (a gap filled with a hole). */
  missedBytes: number;
  /** Segments that came ahead of a gap and waited for it. */
  outOfOrder: number;
}

/** Segments that may wait for a gap before the gap is taken as missed: a capture that dropped packets must not grow without bound. */
const MOST_WAITING_SEGMENTS = 512;
/** Bytes of captured payload that may wait, likewise (the first bytes of each segment only are kept). */
const MOST_WAITING_BYTES = 4 << 20;
/** Of a waiting segment's payload, at most this is kept (a segment offloaded on the sending host can be 64 KiB); the rest reads as a hole. */
const KEPT_PREFIX_BYTES = 64 << 10;

/** Bytes waiting for a gap across every stream of a capture, and the most that may. */
export interface WaitingBudget {
  bytes: number;
  readonly limit: number;
}

/** Bytes that may wait across a whole capture's streams (4096 connections could otherwise hold 8 GiB between them). */
export const MOST_WAITING_BYTES_IN_ALL = 64 << 20;

interface Waiting {
  readonly start: number;
  readonly length: number;
  readonly captured: Buffer;
  readonly seconds: number;
}

export class TcpDirection {
  readonly counts: StreamCounts = { segments: 0, bytes: 0, retransmittedSegments: 0, retransmittedBytes: 0, missedBytes: 0, outOfOrder: 0 };
  /** The last raw sequence number seen and its position in the stream (unwrapping). */
  private lastRaw: number | undefined;
  private lastPosition = 0;
  /** The stream position of the next byte to hand on. */
  private next = 0;
  private waiting: Waiting[] = [];
  /** Where the stream ends (its FIN), once seen. */
  private finPosition = Number.POSITIVE_INFINITY;
  private waitingBytes = 0;

  /** `shared`: the bytes every stream of one capture holds waiting, against one limit, so many connections cannot add up past it. */
  constructor(
    private readonly consumer: StreamConsumer,
    private readonly shared: WaitingBudget = { bytes: 0, limit: MOST_WAITING_BYTES },
  ) {}

  /** Starts the stream at a SYN's sequence number (its data starts one on). */
  startAt(synSeq: number): void {
    this.lastRaw = (synSeq + 1) >>> 0;
    this.lastPosition = 0;
  }

  /** Where the stream is: the position of the next byte it hands on. */
  get position(): number {
    return this.next;
  }

  private positionOf(seq: number): number {
    if (this.lastRaw === undefined) {
      // The capture missed the SYN: the first segment seen starts the stream.
      this.lastRaw = seq;
      this.lastPosition = 0;
      return 0;
    }
    const delta = ((seq - this.lastRaw) << 0) | 0;
    const position = this.lastPosition + delta;
    // A position ahead of what was seen moves the reference, so the next 2 GiB unwrap from there.
    if (delta > 0) {
      this.lastRaw = seq;
      this.lastPosition = position;
    }
    return position;
  }

  segment(seq: number, length: number, captured: Buffer, seconds: number): void {
    if (length <= 0) return;
    const start = this.positionOf(seq);
    const end = start + length;
    this.counts.segments++;
    this.counts.bytes += length;
    // Sent again: bytes the capture already saw (handed on, or waiting). A segment that fills a gap is not counted
    // here: the capture may have missed its first sending, or the network reordered it (`outOfOrder` counts those behind it).
    if (start < this.next || this.waiting.some((waiting) => start < waiting.start + waiting.length && end > waiting.start)) {
      this.counts.retransmittedSegments++;
      this.counts.retransmittedBytes += length;
    }
    if (end <= this.next) return;
    if (start > this.next) {
      this.wait({ start, length, captured: Buffer.from(captured.subarray(0, KEPT_PREFIX_BYTES)), seconds });
      return;
    }
    this.deliver(start, length, captured, seconds);
    this.drain();
  }

  /** Hands on the part of a segment past `next`: its captured bytes, then the rest as a hole. */
  private deliver(start: number, length: number, captured: Buffer, seconds: number): void {
    const skip = this.next - start;
    const capturedLength = Math.min(captured.length, length);
    if (skip < capturedLength) this.consumer.data(captured.subarray(skip, capturedLength), seconds);
    const holeFrom = Math.max(skip, capturedLength);
    if (holeFrom < length) this.consumer.hole(length - holeFrom, seconds);
    this.next = start + length;
  }

  private wait(segment: Waiting): void {
    this.counts.outOfOrder++;
    this.waiting.push(segment);
    this.waitingBytes += segment.captured.length;
    this.shared.bytes += segment.captured.length;
    this.waiting.sort((a, b) => a.start - b.start);
    // Each pass hands on at least this stream's first waiting segment: bounded by them.
    while (
      this.waiting.length > 0 &&
      (this.waiting.length > MOST_WAITING_SEGMENTS || this.waitingBytes > MOST_WAITING_BYTES || this.shared.bytes > this.shared.limit)
    )
      this.skipToWaiting();
  }

  /** Takes the gap before the first waiting segment as missed, and hands on from there. */
  private skipToWaiting(): void {
    const first = this.waiting[0];
    if (!first) return;
    if (first.start > this.next) {
      this.counts.missedBytes += first.start - this.next;
      this.consumer.hole(first.start - this.next, first.seconds);
      this.next = first.start;
    }
    this.drain();
  }

  /** Hands on every waiting segment the stream has reached. */
  private drain(): void {
    while (this.waiting.length > 0) {
      const first = this.waiting[0];
      if (!first || first.start > this.next) return;
      this.waiting.shift();
      this.waitingBytes -= first.captured.length;
      this.shared.bytes -= first.captured.length;
      if (first.start + first.length > this.next) this.deliver(first.start, first.length, first.captured, first.seconds);
    }
  }

  /**
   * The other side acknowledged the stream up to `ack`: whatever of it the
   * capture has not seen by now it never will (data passes any capture point
   * before its acknowledgement does), so the gap is a hole and what waited
   * behind it goes on, rather than holding every later message back.
   */
  acknowledged(ack: number, seconds: number): void {
    if (this.lastRaw === undefined) return;
    // A FIN takes a sequence number of its own (RFC 9293 3.4): its acknowledgement acknowledges no byte.
    const position = Math.min(this.lastPosition + (((ack - this.lastRaw) << 0) | 0), this.finPosition);
    // Each pass reaches the acknowledged position or hands on at least one waiting segment: bounded by them.
    for (let pass = 0; pass <= MOST_WAITING_SEGMENTS && this.next < position; pass++) {
      const first = this.waiting[0];
      const gapEnd = first && first.start < position ? first.start : position;
      if (gapEnd > this.next) {
        this.counts.missedBytes += gapEnd - this.next;
        this.consumer.hole(gapEnd - this.next, seconds);
        this.next = gapEnd;
      }
      this.drain();
    }
  }

  /** The stream's end: a FIN at `seq`, after `length` bytes of its own segment. */
  finAt(seq: number, length: number): void {
    if (this.lastRaw === undefined) return;
    this.finPosition = Math.min(this.finPosition, this.lastPosition + (((seq - this.lastRaw) << 0) | 0) + Math.max(0, length));
  }

  /** The connection has ended (or the capture has): what still waits is handed on after its gap. */
  finish(): void {
    while (this.waiting.length > 0) this.skipToWaiting();
  }
}
