// Bytes and completed operations per 100 ms, the series the Run view plots
// (as TR-3869 plots CIFS ops/s against time).

export const TIMELINE_BUCKET_MS = 100;

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

  points(): TimelinePoint[] {
    return this.buckets.map((bucket, index) => ({ tMs: index * TIMELINE_BUCKET_MS, bytes: bucket.bytes, ops: bucket.ops }));
  }
}
