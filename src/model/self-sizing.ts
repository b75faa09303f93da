// How deep Pipefill's own pipeline runs when no probe has measured the path.
//
// Filling a fixed in-flight budget is the wrong guess on a short path: on
// loopback against smbd, 16 x 2 MiB of writes in flight ran at 0.66x
// smbclient where the 4 x 2 MiB a probe-sized pipeline chose ran at 1.16x
// (bench:smb, medians of 3), because buffers queued behind the socket fall
// out of the cache before they are copied. So the pipeline starts shallow and
// grows the way BBR sizes its window (Cardwell et al., "BBR: Congestion-Based
// Congestion Control", ACM Queue 2016): the path's BDP is its best delivery
// rate times its smallest round trip, and the pipeline keeps a multiple of
// that in flight. While the pipeline is what limits, each round's delivery
// rate is depth x chunk / (RTT + chunk / rate), so the estimate exceeds the
// depth exactly when the BDP exceeds one chunk, and depth grows by up to 2x
// per round until the path, not the pipeline, sets the rate.

export interface SelfSizingInput {
  /** Chunks in flight now. */
  readonly depth: number;
  readonly minDepth: number;
  /** The in-flight budget, in chunks (memory, and the credits the server grants). */
  readonly maxDepth: number;
  /** How many BDPs to keep in flight (Pipefill's own profile: 2). */
  readonly bdpMultiple: number;
  readonly chunkBytes: number;
  /** The best delivery rate seen so far, bytes per second. */
  readonly bestBytesPerSecond: number;
  /** The smallest round trip seen so far on the connection, seconds (an upper bound of the path's). */
  readonly minRttSeconds: number;
}

/** Growth per step is capped so that one inflated sample cannot fill the budget at once. */
export const MAX_GROWTH_PER_STEP = 2;

/**
 * The depth to run next (pure): bdpMultiple x the estimated BDP in chunks,
 * never below the current depth or `minDepth` (the pipeline never shrinks:
 * a smaller one could only be slower), never above `maxDepth` or twice the
 * current depth. The budget wins over all of these.
 */
export function selfSizedDepth(input: SelfSizingInput): number {
  const { depth, minDepth, maxDepth, bdpMultiple, chunkBytes, bestBytesPerSecond, minRttSeconds } = input;
  const floor = Math.max(1, minDepth, depth);
  if (!(bestBytesPerSecond > 0) || !(minRttSeconds > 0) || !(chunkBytes > 0)) return Math.min(floor, Math.max(1, maxDepth));
  const wanted = Math.ceil((bdpMultiple * bestBytesPerSecond * minRttSeconds) / chunkBytes);
  return Math.max(1, Math.min(maxDepth, Math.max(floor, Math.min(wanted, depth * MAX_GROWTH_PER_STEP))));
}

/**
 * One delivery-rate sample (BBR's): the bytes the whole pipeline delivered
 * while this chunk was in flight, over the time it was in flight. Chunks run
 * side by side, so this is the pipeline's rate, not one chunk's.
 */
export function deliveryRate(deliveredAtStart: number, startedAtMs: number, deliveredNow: number, nowMs: number): number {
  const seconds = (nowMs - startedAtMs) / 1000;
  return seconds > 0 ? Math.max(0, deliveredNow - deliveredAtStart) / seconds : 0;
}
