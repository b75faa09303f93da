// How long the data of one file takes, and what TCP's ramp from its initial
// window adds. Both are closed forms over the layer budgets, so they stay
// cheap enough for the planner to recompute on every slider move.

import type { LayerBudget, TransferShape } from './in-flight.js';
import { tightestBudget } from './in-flight.js';

/**
 * Seconds to move `fileBytes` through the layers of `shape`:
 * the larger of
 *  - one request latency plus serialisation at the link's payload rate
 *    (what a file takes when everything fits in flight at once), and
 *  - the bytes divided by the tightest in-flight budget's rate
 *    (a window's worth per round, as many rounds as it takes).
 * A synchronous client (depth 1) gets n x (latency + serialisation); a deep
 * pipeline on a fat link gets latency + bytes / bandwidth. On a share on this
 * machine, a pipeline's fill is added once (TransferShape.hostFillSeconds).
 */
export function fileDataSeconds(fileBytes: number, shape: TransferShape): number {
  const { latencyBound, windowBound } = fileBounds(fileBytes, shape);
  // On a share on this machine, each file's pipeline fills once: its first request goes through both ends in turn.
  return Math.max(latencyBound, windowBound) + (shape.hostFillSeconds ?? 0);
}

/** A file's two bounds: one request latency plus its bytes at the line's payload rate, and its bytes at the tightest window's rate. */
function fileBounds(fileBytes: number, shape: TransferShape): { latencyBound: number; windowBound: number } {
  const bandwidth = shape.budgets.find((budget) => budget.layer === 'bandwidth');
  if (!bandwidth) throw new Error('Layer budgets must include the bandwidth.');
  const windowed = shape.budgets.filter((budget) => budget.layer !== 'bandwidth');
  return {
    latencyBound: shape.requestLatencyMs / 1000 + fileBytes / bandwidth.bytesPerSecond,
    windowBound: windowed.length > 0 ? fileBytes / tightestBudget(windowed).bytesPerSecond : 0,
  };
}

/**
 * The part of fileDataSeconds spent waiting a request's round trip rather
 * than moving bytes: the request latency of a file whose data all fits in
 * flight at once (a small file's one request), none for a file paced by a
 * window. A folder of small files is bound by round trips when these waits
 * and its metadata exchanges outweigh its bytes on the wire; counting the
 * waits as data named the 1 GB folder written at 20 Mb/s and 80 ms
 * "Bandwidth" (469 s of data, 40 s of it waits, beside 435 s of metadata)
 * and its 1% sample "Round trips".
 */
export function fileWaitSeconds(fileBytes: number, shape: TransferShape): number {
  const { latencyBound, windowBound } = fileBounds(fileBytes, shape);
  return latencyBound >= windowBound ? shape.requestLatencyMs / 1000 : 0;
}

/**
 * Slow start doubles the congestion window once per round trip (RFC 5681,
 * with appropriate byte counting). Until it reaches the window the steady
 * rate needs, each round moves less than a steady round would.
 */
export const SLOW_START_GROWTH_PER_RTT = 2;

export interface RampInput {
  /** Bytes the sender may send in its first round: initial window x MSS (or fewer credits). */
  readonly initialWindowBytes: number;
  /** Steady-state payload rate once ramped, bytes per second. */
  readonly steadyBytesPerSecond: number;
  readonly rttMs: number;
  /** Bytes the whole transfer moves over this connection. */
  readonly totalBytes: number;
}

/**
 * Extra seconds the ramp costs over moving the same bytes at the steady rate.
 * Paid once per connection: the window survives from file to file because
 * the metadata exchanges between files keep the connection from idling.
 */
export function slowStartPenaltySeconds(input: RampInput): number {
  const rttSeconds = input.rttMs / 1000;
  const targetWindowBytes = input.steadyBytesPerSecond * rttSeconds;
  if (input.initialWindowBytes >= targetWindowBytes || input.totalBytes <= 0) return 0;
  let window = input.initialWindowBytes;
  let sent = 0;
  let rounds = 0;
  // At most log2(target / initial) rounds: ~40 for a 10 Gb/s, 1 s path from one segment.
  while (window < targetWindowBytes && sent < input.totalBytes) {
    sent += window;
    window *= SLOW_START_GROWTH_PER_RTT;
    rounds += 1;
  }
  const rampedBytes = Math.min(sent, input.totalBytes);
  return Math.max(0, rounds * rttSeconds - rampedBytes / input.steadyBytesPerSecond);
}

export function budgetByLayer(budgets: readonly LayerBudget[], layer: LayerBudget['layer']): LayerBudget | undefined {
  return budgets.find((budget) => budget.layer === layer);
}
