// A queue on the path that grows under load (issue 52): the round trip while
// the link is full beside the idle one. A drop-tail buffer of one round
// trip's worth of data (one BDP) is what keeps a single TCP flow's link full
// (Villamizar and Song, 1994); anything beyond only makes every packet wait,
// the copy's own requests and everyone else's on the link alike.

/** Below this, what a queue adds is not worth a line: a few tens of milliseconds are in every busy link. */
export const BLOAT_LEAST_MS = 50;

export interface QueueUnderLoad {
  readonly idleMs: number;
  readonly loadedMs: number;
  /** What the queue added to each round trip, and the data that is at the line's rate. */
  readonly queueMs: number;
  readonly queueBytes: number;
  /** More than one round trip's worth and at least BLOAT_LEAST_MS: a buffer larger than the link needs. */
  readonly bloated: boolean;
}

/** The queue the loaded round trip (its median, `loadedMs`) shows beside the idle one, on a line of `lineBitsPerSecond`. */
export function queueUnderLoad(idleMs: number, loadedMs: number, lineBitsPerSecond: number): QueueUnderLoad {
  const queueMs = Math.max(0, loadedMs - idleMs);
  const queueBytes = lineBitsPerSecond > 0 ? (lineBitsPerSecond / 8) * (queueMs / 1000) : 0;
  return { idleMs, loadedMs, queueMs, queueBytes, bloated: queueMs >= Math.max(BLOAT_LEAST_MS, idleMs) };
}
