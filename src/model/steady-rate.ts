// The rate a copy holds once under way: what a person sees Explorer settle
// at, and what a large file's time is made of. A test copy's time also holds
// its opening round trips and TCP's ramp, which a 1 GB file pays once; a
// 15 MiB sample pays them over a sixth of its bytes (the demo link: 42.5 Mb/s
// over the whole copy, a steady 60-65 in its run chart). Pure: from the
// copy's own timeline of 100 ms buckets.

/** The width of a copy's timeline buckets (src/copy/timeline.ts records them; the rate here reads them). */
export const TIMELINE_BUCKET_MS = 100;

export interface TimelineBucket {
  readonly tMs: number;
  readonly bytes: number;
}

/** Buckets of data the rate is read over at least: fewer, and one request's bytes more or less move it by a fifth. */
const MIN_STEADY_BUCKETS = 6;
/** The span data must move over for a steady rate to be read: the ramp's third and the rate's buckets after it. */
export const STEADY_SPAN_MS = 1.5 * MIN_STEADY_BUCKETS * TIMELINE_BUCKET_MS;

/**
 * Payload bytes per second over the last two thirds of the span in which
 * data moved (the first third holds the ramp; the buckets after the last
 * byte hold the close), or undefined where the copy moved data in too few
 * buckets to show a rate of its own.
 */
export function steadyBytesPerSecond(timeline: readonly TimelineBucket[], bucketMs: number): number | undefined {
  const moving = timeline.filter((bucket) => bucket.bytes > 0 && Number.isFinite(bucket.bytes) && Number.isFinite(bucket.tMs));
  const first = moving[0];
  const last = moving[moving.length - 1];
  if (!first || !last || !(bucketMs > 0)) return undefined;
  const span = (last.tMs - first.tMs) / bucketMs;
  if (!(span >= 1.5 * MIN_STEADY_BUCKETS)) return undefined;
  // Bytes completed after `from` and by the end of the last bucket: the ramp's third left out.
  const from = first.tMs + Math.floor(span / 3) * bucketMs;
  const bytes = moving.filter((bucket) => bucket.tMs > from).reduce((sum, bucket) => sum + bucket.bytes, 0);
  const seconds = (last.tMs + bucketMs - (from + bucketMs)) / 1000;
  return seconds > 0 && bytes > 0 ? bytes / seconds : undefined;
}
