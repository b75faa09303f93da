// Rates from a stream of read replies: one read's span, the replies of
// several readers from a moment on, and the slope of a window of them. Each
// estimator names the artefact it avoids (a read's ramp, replies taken in
// late and in a bunch). Used by the SMB read fallback and the hosts'
// calibration.

import { TimelineRecorder } from '../copy/timeline.js';

/** One whole-file read of the probe: when its first and last replies were taken in (ms), and their payload. */
export interface ReadSpan {
  readonly firstMs: number;
  readonly lastMs: number;
  readonly firstBytes: number;
  readonly bytes: number;
}

/**
 * The payload rate a copy can reach, from the probe's reads: what arrived
 * after each read's first reply up to its last, over that time. The first
 * read is TCP's ramp and is left out where later reads exist; the gap between
 * two reads (one round trip: the last reply, then the next read's first
 * request) is the probe's own pacing, not the path's, and a mean over the
 * whole run counted it (a 100 Mb/s, 40 ms link read 87 Mb/s where one copy
 * then moved 92.5). A single read (a slow link, where one read fills the
 * seconds given) is taken whole: its ramp is short beside it. Only a read's
 * ends are used: replies that wait in the socket buffer while the process is
 * busy are taken in late and in a bunch, which shifts bytes within a read
 * (a rate over its second half read a 40 Mb/s line as 51) but never moves
 * its last reply earlier. Undefined when nothing can be read from the spans.
 */
export function steadyReadRate(spans: readonly ReadSpan[]): number | undefined {
  const usable = spans.filter((span) => span.lastMs > span.firstMs && span.bytes > span.firstBytes);
  const steady = spans.length > 1 ? usable.filter((span) => span !== spans[0]) : usable;
  if (steady.length === 0) return undefined;
  const bytes = steady.reduce((sum, span) => sum + span.bytes - span.firstBytes, 0);
  const ms = steady.reduce((sum, span) => sum + span.lastMs - span.firstMs, 0);
  return (bytes * 8) / (ms / 1000);
}

/** Every reply's arrival, across readers: the rate of a stream of reads that keeps the path busy (rateSince). */
export class ArrivalLog {
  private readonly arrivals: { readonly ms: number; readonly bytes: number }[] = [];

  add(ms: number, bytes: number): void {
    this.arrivals.push({ ms, bytes });
  }

  get bytes(): number {
    return this.arrivals.reduce((sum, arrival) => sum + arrival.bytes, 0);
  }

  /**
   * Bits per second from the second reply after `fromMs` (its own bytes and
   * the first reply's left out) to the last one; undefined with fewer than
   * three. The replies just after a second reader joins are taken in late:
   * the process is busy starting it. In the lab's 155 Mb/s, 150 ms link the
   * first of them came 150 ms late and the next on time (4 MiB every 224 ms),
   * and a rate from the first read the link 11% fast (165 against 150).
   */
  rateSince(fromMs: number): number | undefined {
    return this.rateBetween(fromMs, Infinity);
  }

  /**
   * Bits per second between `fromMs` and `toMs` as the slope of a least-squares
   * line through the bytes taken in so far at each reply: replies the process
   * took in late and in a bunch (eight readers on one event loop) move a few
   * points of the line, where a rate from the first and last replies moves
   * with them (622 Mb/s, 150 ms: 554-630 Mb/s from the ends, above the line's
   * 595). Undefined with fewer than three replies.
   */
  slopeBetween(fromMs: number, toMs: number): number | undefined {
    const inside = this.arrivals.filter((arrival) => arrival.ms > fromMs && arrival.ms <= toMs);
    if (inside.length < 3) return undefined;
    let total = 0;
    const points = inside.map((arrival) => ({ x: arrival.ms, y: (total += arrival.bytes) }));
    const meanX = points.reduce((sum, point) => sum + point.x, 0) / points.length;
    const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
    const sxx = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0);
    const sxy = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0);
    return sxx > 0 ? (sxy / sxx) * 8 * 1000 : undefined;
  }

  /** As rateSince, counting only the replies taken in up to `toMs` (the stream's end, before the readers' last reads drain). */
  rateBetween(fromMs: number, toMs: number): number | undefined {
    const after = this.arrivals.filter((arrival) => arrival.ms > fromMs && arrival.ms <= toMs);
    const origin = after[1];
    const last = after[after.length - 1];
    if (!origin || !last || after.length < 3 || !(last.ms > origin.ms)) return undefined;
    const bytes = after.slice(2).reduce((sum, arrival) => sum + arrival.bytes, 0);
    return (bytes * 8) / ((last.ms - origin.ms) / 1000);
  }
}

/** A timeline that also keeps when its first and last replies were taken in, so a transfer's span can be read off (steadyReadRate). */
export class SpanRecorder extends TimelineRecorder {
  private first: { ms: number; bytes: number } | undefined;
  private lastMs = 0;

  constructor(private readonly log?: ArrivalLog) {
    super();
  }

  override record(bytes: number): void {
    super.record(bytes);
    const now = performance.now();
    this.first ??= { ms: now, bytes };
    this.lastMs = now;
    this.log?.add(now, bytes);
  }

  span(): ReadSpan | undefined {
    return this.first ? { firstMs: this.first.ms, lastMs: this.lastMs, firstBytes: this.first.bytes, bytes: this.bytes } : undefined;
  }
}
