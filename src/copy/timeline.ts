// Bytes and completed operations per 100 ms, the series the Run view plots
// (as TR-3869 plots CIFS ops/s against time).

import { TIMELINE_BUCKET_MS } from '../model/steady-rate.js';

export { TIMELINE_BUCKET_MS };

export interface TimelinePoint {
  /** Start of the bucket, ms from the start of the test. */
  readonly tMs: number;
  readonly bytes: number;
  readonly ops: number;
}

export class TimelineRecorder {
  private readonly buckets: { bytes: number; ops: number }[] = [];
  private readonly startedAt = performance.now();
  private total = 0;

  constructor(private readonly onProgress?: (bytesSoFar: number) => void) {}

  /** Records one completed SMB request and the payload bytes it moved. */
  record(bytes: number): void {
    const index = Math.floor((performance.now() - this.startedAt) / TIMELINE_BUCKET_MS);
    while (this.buckets.length <= index) this.buckets.push({ bytes: 0, ops: 0 });
    const bucket = this.buckets[index];
    if (bucket) {
      bucket.bytes += bytes;
      bucket.ops += 1;
    }
    this.total += bytes;
    this.onProgress?.(this.total);
  }

  get elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  get bytes(): number {
    return this.total;
  }

  get ops(): number {
    return this.buckets.reduce((sum, bucket) => sum + bucket.ops, 0);
  }

  /** Payload rate and requests per second over the last `windowMs` (whole buckets), for live charts. */
  recent(windowMs = 1_000): { readonly bitsPerSecond: number; readonly opsPerSecond: number } {
    const buckets = Math.max(1, Math.round(windowMs / TIMELINE_BUCKET_MS));
    const current = Math.floor(this.elapsedMs / TIMELINE_BUCKET_MS);
    const first = Math.max(0, current - buckets + 1);
    let bytes = 0;
    let ops = 0;
    for (let index = first; index <= current && index < this.buckets.length; index++) {
      bytes += this.buckets[index]?.bytes ?? 0;
      ops += this.buckets[index]?.ops ?? 0;
    }
    // The current bucket is partly over: count only the time that has passed.
    const seconds = Math.max(TIMELINE_BUCKET_MS, this.elapsedMs - first * TIMELINE_BUCKET_MS) / 1000;
    return { bitsPerSecond: (bytes * 8) / seconds, opsPerSecond: ops / seconds };
  }

  points(): TimelinePoint[] {
    return this.buckets.map((bucket, index) => ({ tMs: index * TIMELINE_BUCKET_MS, bytes: bucket.bytes, ops: bucket.ops }));
  }
}
