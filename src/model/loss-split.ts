// Whose losses a copy's retransmissions were (issue 52): the path's (random
// loss, a flaky Wi-Fi or DSL hop) or the copy's own, as it overflowed the
// bottleneck's queue. Pure.
//
// A sender can only overflow a queue it has filled, and a full queue shows as
// a round trip above the path's least by what the queue holds. A packet the
// path drops at random is lost whatever the queue holds. So the kernel's
// round trip at the moment of each loss tells them apart: losses that came as
// the round trip stood near the highest the copy drove it to were its own;
// losses with the round trip near its least had no queue behind them. This is
// the delay-based loss differentiation of TCP Veno (Fu and Liew, IEEE JSAC
// 21(2), 2003: a loss with a backlog below three packets is taken as random),
// read in time rather than packets so a window the size of BBR's does not
// tip it, and from samples of the kernel's tcp_info rather than inside the
// stack.

/** One sample of a sending connection, as the kernel's tcp_info gives it. */
export interface LossSample {
  /** The smoothed round trip (ms). */
  readonly rttMs: number;
  /** The least round trip the connection has seen (ms); absent where the kernel does not say. */
  readonly minRttMs?: number;
  /** Bytes sent so far on the connection, those sent again included (Linux's bytes_sent), and of them sent again. */
  readonly bytesSent: number;
  readonly bytesRetrans: number;
  /** When it was taken (ms, any monotonic clock); absent: each stretch is weighed at its own two samples only. */
  readonly tMs?: number;
}

export interface LossSplit {
  /** Bytes sent again for losses the copy caused itself, overflowing the queue it filled. */
  readonly queueBytes: number;
  /** Bytes sent again for losses on the path: at the rate the path lost packets while no queue stood. */
  readonly pathBytes: number;
  /** The most the round trip rose above its least during the copy (ms): what the queue held at its fullest. */
  readonly peakQueueMs: number;
  readonly baseRttMs: number;
  /** Whether the copy sent long enough with no queue standing for the path's own loss rate to be read (else every loss is put to the queue). */
  readonly pathRateSeen: boolean;
}

/**
 * The least rise that counts as a queue: a millisecond, or a twentieth of
 * the path's round trip on a long one (the kernel's smoothed RTT wanders by
 * that much with no queue at all: delayed ACKs, the receiver's scheduling).
 * Below it the copy filled no queue it could overflow.
 */
export const QUEUE_FLOOR_MS = 1;
export const QUEUE_FLOOR_SHARE = 0.05;
/** A stretch counts as queued where the queue then held at least this share of its peak. */
export const FULL_QUEUE_SHARE = 0.5;
/**
 * How far back from a retransmission its loss lies, in round trips of the
 * path: a loss is repaired a round trip after it at the earliest (the
 * duplicate ACKs or SACKs that reveal it), plus RACK's reordering window of a
 * quarter of the least round trip (RFC 8985). A sender whose queue swings
 * within a round trip (BBR's pacing cycle) has drained it by the time it
 * sends again what it lost at the top.
 */
export const REPAIR_RTTS = 1.25;
/** The bytes a copy must send with no queue standing before their losses are read as the path's rate: a hundred full packets. */
export const LEAST_CLEAR_BYTES = 100 * 1448;

/**
 * Splits the bytes a copy sent again between its own queue and the path, from
 * samples of its connection taken through the copy (the first before it).
 * Each stretch between two samples is weighed at the highest queue of the
 * round trip and a quarter before its end (queueAtLoss): what it sent again
 * was lost then, and a queue that overflowed was at its fullest. Random loss
 * falls on every stretch alike, so the loss rate of the stretches with no
 * queue standing is the path's, and the path's share of the whole copy is
 * that rate over everything it sent; the rest the copy caused. A copy that
 * kept the queue standing throughout shows no path rate: its losses are put
 * to the queue, and `pathRateSeen` says so. Undefined with fewer than two
 * usable samples.
 */
export function splitRetransmissions(samples: readonly LossSample[]): LossSplit | undefined {
  const usable = samples.filter(
    (sample) => [sample.rttMs, sample.bytesSent, sample.bytesRetrans].every((value) => Number.isFinite(value) && value >= 0) && sample.rttMs > 0,
  );
  if (usable.length < 2) return undefined;
  const baseRttMs = Math.min(
    ...usable.map((sample) => (sample.minRttMs !== undefined && sample.minRttMs > 0 ? Math.min(sample.minRttMs, sample.rttMs) : sample.rttMs)),
  );
  // A sample's round trip counts only where the connection sent in the stretch it ends: before the copy's first
  // bytes, or across a pause, the kernel's smoothed RTT is the last transfer's, queue and all.
  const queues = usable.map((sample, index) => {
    const previous = usable[index - 1];
    return previous !== undefined && sample.bytesSent > previous.bytesSent ? Math.max(0, sample.rttMs - baseRttMs) : 0;
  });
  const peakQueueMs = Math.max(...queues);
  const aQueueBuilt = peakQueueMs >= Math.max(QUEUE_FLOOR_MS, QUEUE_FLOOR_SHARE * baseRttMs);
  let [lost, sent, clearLost, clearSent] = [0, 0, 0, 0];
  for (let index = 1; index < usable.length; index += 1) {
    const [before, after] = [usable[index - 1] as LossSample, usable[index] as LossSample];
    const stretchLost = Math.max(0, after.bytesRetrans - before.bytesRetrans);
    const stretchSent = Math.max(0, after.bytesSent - before.bytesSent);
    lost += stretchLost;
    sent += stretchSent;
    const queued = aQueueBuilt && queueAtLoss(usable, queues, index, REPAIR_RTTS * baseRttMs) >= FULL_QUEUE_SHARE * peakQueueMs;
    if (queued) continue;
    clearLost += stretchLost;
    clearSent += stretchSent;
  }
  const pathRateSeen = clearSent >= LEAST_CLEAR_BYTES;
  const pathBytes = pathRateSeen ? Math.min(lost, (clearLost / clearSent) * sent) : 0;
  return { queueBytes: lost - pathBytes, pathBytes, peakQueueMs, baseRttMs, pathRateSeen };
}

/**
 * The queue a stretch's losses met: the highest over its own two samples and,
 * where samples carry their times, every sample within `lookBackMs` before
 * its end (what the copy sent again then, it lost up to that long before).
 */
function queueAtLoss(samples: readonly LossSample[], queues: readonly number[], index: number, lookBackMs: number): number {
  const end = samples[index] as LossSample;
  let highest = Math.max(queues[index - 1] ?? 0, queues[index] ?? 0);
  if (end.tMs === undefined) return highest;
  // Bounded: back to the first sample at most.
  for (let back = index - 2; back >= 0; back -= 1) {
    const sample = samples[back] as LossSample;
    if (sample.tMs === undefined || end.tMs - sample.tMs > lookBackMs) break;
    highest = Math.max(highest, queues[back] ?? 0);
  }
  return highest;
}
