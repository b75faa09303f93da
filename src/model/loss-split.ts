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
//
// The smoothed round trip alone is fooled by what is not a queue: a receiver
// that delays its ACK up to 40 ms, a slow-start burst. Where the kernel also
// says what it has in flight and its delivery rate, a queue must show in
// both, as Veno's backlog does (Expected − Actual): more in flight than the
// path holds (its best delivery rate over the least round trip, BBR's BDP)
// by as much as the round trip rose once what was in flight came back
// (riseWithin). A sender held below the line by random loss never has more
// out than that, whatever its round trip reads.

import { binomialTailAtLeast } from './binomial-tail.js';

/**
 * The path's random loss worth naming, and taking into the model, even where
 * a copy kept to it: a quarter of a percent holds one CUBIC or Reno
 * connection far below a WAN line (Mathis: at 40 ms about 7 Mb/s of
 * 1448-byte segments).
 */
export const PATH_LOSS_NAMED = 0.0025;

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
  /** What the kernel counts in flight (bytes) and its latest delivery rate (bytes/s); absent (`ss`, an older kernel): the round trip alone shows the queue. */
  readonly inFlightBytes?: number;
  readonly deliveryBytesPerSecond?: number;
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
  /**
   * Whether the losses say whose they were. Not where none came with no queue
   * standing and too few where one stood to crowd there beyond chance (a
   * megabyte's one run of losses, at the top of its slow start): both shares
   * are then 0, and the copy names no source.
   */
  readonly decided: boolean;
  /**
   * The deepest queue that stood when losses came that were not put to the
   * path (ms; 0 with none): where a drop-tail queue overflowed, its size.
   * Another copy of the same run that stood a clearly deeper one shows these
   * were not overflows (notAnOverflow).
   */
  readonly queueAtLossMs: number;
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

/** What is known of the path apart from the copy's own samples. */
export interface SplitPath {
  /**
   * A payload rate the line carries at least (bytes/s): the probe's. A copy
   * held far below it (a CUBIC window cut by a fading hop's losses) delivers
   * at its own pace, and what it has in flight beyond that pace over the
   * least round trip is the kernel's jitter, not a queue: only a flight
   * beyond what the line holds stands one.
   */
  readonly lineBytesPerSecond?: number;
}

/**
 * Splits the bytes a copy sent again between its own queue and the path, from
 * samples of its connection taken through the copy (the first before it).
 * Each stretch between two samples is weighed at the highest queue of the
 * round trip and a quarter before its end (queueAtLoss): what it sent again
 * was lost then, and a queue that overflowed was at its fullest. Random loss
 * falls on every stretch alike, so the loss rate of the stretches with no
 * queue standing is the path's, and the path's share of the whole copy is
 * that rate over everything it sent; the rest the copy caused. That split is
 * read only where the losses crowd where the queue stood (crowdedAtQueue);
 * where they fell alike with and without one, all are the path's. A copy that
 * kept the queue standing throughout shows no path rate: its losses are put
 * to the queue, and `pathRateSeen` says so. Undefined with fewer than two
 * usable samples.
 */
export function splitRetransmissions(samples: readonly LossSample[], path: SplitPath = {}): LossSplit | undefined {
  const usable = samples.filter(
    (sample) => [sample.rttMs, sample.bytesSent, sample.bytesRetrans].every((value) => Number.isFinite(value) && value >= 0) && sample.rttMs > 0,
  );
  if (usable.length < 2) return undefined;
  const baseRttMs = Math.min(
    ...usable.map((sample) => (sample.minRttMs !== undefined && sample.minRttMs > 0 ? Math.min(sample.minRttMs, sample.rttMs) : sample.rttMs)),
  );
  // A sample's round trip counts only where the connection sent in the stretch it ends: before the copy's first
  // bytes, or across a pause, the kernel's smoothed RTT is the last transfer's, queue and all.
  const backlog = backlogMsOf(usable, baseRttMs, path.lineBytesPerSecond);
  const queues = usable.map((sample, index) => {
    const previous = usable[index - 1];
    if (previous === undefined || !(sample.bytesSent > previous.bytesSent)) return 0;
    const held = backlog?.(sample);
    if (held === undefined) return Math.max(0, sample.rttMs - baseRttMs);
    return Math.min(riseWithin(usable, index, baseRttMs, baseRttMs + held), held);
  });
  const peakQueueMs = Math.max(...queues);
  const aQueueBuilt = peakQueueMs >= Math.max(QUEUE_FLOOR_MS, QUEUE_FLOOR_SHARE * baseRttMs);
  let [lost, sent, clearLost, clearSent, lossEvents, queueAtLossMs] = [0, 0, 0, 0, 0, 0];
  // A loss is repaired a round trip after it at the earliest, and the round trip it met held the queue too.
  const repairMs = REPAIR_RTTS * baseRttMs;
  let episode: { readonly startMs: number; readonly met: number } | undefined;
  for (let index = 1; index < usable.length; index += 1) {
    const [before, after] = [usable[index - 1] as LossSample, usable[index] as LossSample];
    const stretchLost = Math.max(0, after.bytesRetrans - before.bytesRetrans);
    const stretchSent = Math.max(0, after.bytesSent - before.bytesSent);
    lost += stretchLost;
    sent += stretchSent;
    let met = queueAtLoss(usable, queues, index, repairMs, peakQueueMs);
    if (stretchLost > 0) {
      // One recovery: losses sent again within a repair's time (and the queue's) of its first were lost together (a
      // recovery resends a window's losses over a round trip or two, its cut window allowing), at the queue its first
      // met. Each stretch is still an event of its own: a sender losing at a queue it keeps standing (BBR into an
      // eighth of a BDP) is one long recovery, and counted once its losses could crowd nowhere.
      lossEvents += 1;
      // A stretch that sent nothing new resent what was lost before, however long after (a retransmission timeout
      // after the burst's last packets: the lab's megabyte into an eighth of a BDP resent its tail 300 ms on, with one
      // packet in flight and no queue, and all of its losses went to the path).
      const onlyResent = stretchSent <= stretchLost;
      const continues = episode !== undefined && (onlyResent || (after.tMs !== undefined && after.tMs - episode.startMs <= repairMs + episode.met));
      if (continues) met = Math.max(met, episode?.met ?? 0);
      else episode = after.tMs === undefined ? undefined : { startMs: after.tMs, met };
    }
    const queued = aQueueBuilt && met >= FULL_QUEUE_SHARE * peakQueueMs;
    if (queued && stretchLost > 0) queueAtLossMs = Math.max(queueAtLossMs, met);
    if (queued) continue;
    clearLost += stretchLost;
    clearSent += stretchSent;
  }
  const pathRateSeen = clearSent >= LEAST_CLEAR_BYTES;
  const crowded = crowdedAtQueue({ lost, sent, clearLost, clearSent, lossEvents });
  const told = { peakQueueMs, baseRttMs, pathRateSeen, queueAtLossMs };
  if (!pathRateSeen) return { queueBytes: lost, pathBytes: 0, ...told, decided: true };
  if (crowded) {
    const pathBytes = Math.min(lost, (clearLost / clearSent) * sent);
    return { queueBytes: lost - pathBytes, pathBytes, ...told, decided: true };
  }
  // Losses that fell alike with and without a queue, some with none, are the path's, every one. With none in the
  // clear and too few to crowd where the queue stood, they say nothing of whose they were.
  if (clearLost > 0 || lost === 0) return { queueBytes: 0, pathBytes: lost, ...told, queueAtLossMs: 0, decided: true };
  return { queueBytes: 0, pathBytes: 0, ...told, decided: false };
}

/**
 * Below this chance, losses crowd where the queue stood beyond what random
 * loss would put there: a hundredth.
 */
export const CROWDED_CHANCE = 0.01;

/**
 * Whether more of the losses came while a queue stood than chance would put
 * there. Random loss falls on the bytes alike, so each loss lands where the
 * queue stood with the chance of the bytes sent then; a copy that overflowed
 * its own queue puts them there all together. A copy loses few packets (a
 * megabyte at 1%: seven), and five losses of which one came at the top of a
 * slow-start burst say nothing of a queue; the split by rates reads them only
 * once they crowd. Losses are counted as the stretches they were sent again
 * in, those at the queue as their share of the bytes lost, not as packets: a
 * fading hop loses packets in runs, and a run counted as four would weigh as
 * four independent losses.
 */
function crowdedAtQueue(counts: { lost: number; sent: number; clearLost: number; clearSent: number; lossEvents: number }): boolean {
  const { lost, sent, clearLost, clearSent, lossEvents } = counts;
  if (!(lost > 0 && sent > 0)) return false;
  if (overflowedByRate(counts)) return true;
  const queuedEvents = Math.round((lossEvents * (lost - clearLost)) / lost);
  return binomialTailAtLeast(queuedEvents, lossEvents, Math.min(1, Math.max(0, (sent - clearSent) / sent))) < CROWDED_CHANCE;
}

/** Packets lost where the queue stood before their rate alone can say the queue lost them: a burst, not a fading hop's run. */
export const LEAST_OVERFLOW_PACKETS = 20;
/** How many times the most the path can be losing the queue's stretches must lose for their rate alone to name the queue. */
export const OVERFLOW_RATE_FACTOR = 10;
const PACKET_BYTES = 1448;

/**
 * Whether the stretches where the queue stood lost so much more than the
 * path can be losing that no path did it. The clear stretches bound the path's
 * rate (their losses and three packets more, about 95% sure, over what they
 * sent); a queue's stretches losing ten times that, twenty packets or more,
 * overflowed. A slow start that overshoots loses its burst in a round trip or
 * two, few stretches however many packets: the lab's megabyte into an eighth
 * of a BDP lost 170 of the 230 packets it sent while the queue stood and none
 * of 650 before, in five stretches that by count alone were no more than
 * chance (2026-11-28).
 */
function overflowedByRate(counts: { lost: number; sent: number; clearLost: number; clearSent: number }): boolean {
  const { lost, sent, clearLost, clearSent } = counts;
  const [queuedLost, queuedSent] = [lost - clearLost, sent - clearSent];
  if (!(clearSent > 0 && queuedSent > 0) || queuedLost < LEAST_OVERFLOW_PACKETS * PACKET_BYTES) return false;
  const pathAtMost = (clearLost + 3 * PACKET_BYTES) / clearSent;
  return queuedLost / queuedSent >= OVERFLOW_RATE_FACTOR * pathAtMost;
}

/**
 * The most the round trip rose above `baseRttMs` from sample `index` to
 * `withinMs` after it: what the kernel's smoothed round trip shows of what
 * was in flight at that sample. It lags: the round trip of a packet is known
 * when its ACK returns, up to a round trip and its queue later, and the
 * smoothing takes a few ACKs more. A burst of a megabyte that stood 40 ms in
 * the lab's queue read 5.5 ms of round trip while it was in flight and
 * 39.8 ms the next sample, when the losses had cut what was in flight
 * (2026-11-28): read at one sample, the two never met, and a copy's own
 * overflow read as the path's loss. Samples without their times: that
 * sample's alone.
 */
function riseWithin(samples: readonly LossSample[], index: number, baseRttMs: number, withinMs: number): number {
  const from = samples[index] as LossSample;
  let highest = Math.max(0, from.rttMs - baseRttMs);
  if (from.tMs === undefined) return highest;
  // Bounded: to the last sample at most.
  for (let next = index + 1; next < samples.length; next += 1) {
    const sample = samples[next] as LossSample;
    if (sample.tMs === undefined || sample.tMs - from.tMs > withinMs) break;
    highest = Math.max(highest, sample.rttMs - baseRttMs);
  }
  return highest;
}

/**
 * The queue a stretch's losses met: the highest over its own two samples and,
 * where samples carry their times, every sample within `lookBackMs` and its
 * own queue before its end (what the copy sent again then, it lost up to a
 * round trip before, and a loss at a queue is known the queue's time later).
 */
function queueAtLoss(samples: readonly LossSample[], queues: readonly number[], index: number, lookBackMs: number, peakQueueMs: number): number {
  const end = samples[index] as LossSample;
  let highest = Math.max(queues[index - 1] ?? 0, queues[index] ?? 0);
  if (end.tMs === undefined) return highest;
  // Bounded: back to the first sample at most, and no further than the deepest queue could have delayed a repair.
  for (let back = index - 2; back >= 0; back -= 1) {
    const sample = samples[back] as LossSample;
    if (sample.tMs === undefined || end.tMs - sample.tMs > lookBackMs + peakQueueMs) break;
    // A loss met there was repaired a round trip and that sample's own queue later.
    const queue = queues[back] ?? 0;
    if (end.tMs - sample.tMs <= lookBackMs + queue) highest = Math.max(highest, queue);
  }
  return highest;
}

/**
 * The queue each sample's flight stands at the path's rate (ms): what it had
 * in flight beyond what the path holds over the least round trip, at that
 * rate. The path's rate is the best delivery rate the copy saw, or the
 * line's where that is known and higher (SplitPath). Undefined where a
 * sample lacks either figure or no delivery was seen: the round trip alone
 * then shows the queue.
 *
 * Against the copy's own best rate alone, a write a fading hop held to 36 kB
 * in flight (0.85 MB/s on a 6.25 MB/s line, 50 Mb/s / 40 ms, 1% in runs of
 * four) read 2.6 ms of queue from its flight's jitter, and its losses there
 * as its own (2026-11-28).
 */
function backlogMsOf(samples: readonly LossSample[], baseRttMs: number, lineBytesPerSecond = 0): ((sample: LossSample) => number) | undefined {
  const known = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value) && value >= 0;
  if (!samples.every((sample) => known(sample.inFlightBytes) && known(sample.deliveryBytesPerSecond))) return undefined;
  const line = Number.isFinite(lineBytesPerSecond) && lineBytesPerSecond > 0 ? lineBytesPerSecond : 0;
  const delivered = Math.max(...samples.map((sample) => sample.deliveryBytesPerSecond ?? 0));
  if (!(delivered > 0)) return undefined;
  const bestRate = Math.max(line, delivered);
  const pathHoldsBytes = (bestRate * baseRttMs) / 1000;
  return (sample) => (Math.max(0, (sample.inFlightBytes ?? 0) - pathHoldsBytes) / bestRate) * 1000;
}

/**
 * How much deeper than the queue at a copy's losses another copy of the same
 * run must have stood one for those losses not to be overflows: half again,
 * and QUEUE_FLOOR_MS more (the kernel's smoothed round trip wanders by that).
 */
export const DEEPER_QUEUE_SHARE = 1.5;

/**
 * Whether losses that came with a queue of `queueAtLossMs` standing cannot
 * have been its overflow, given the deepest queue any copy of the same run
 * stood on the same path. A drop-tail queue overflows at one depth, its size
 * over the line's rate, whatever else shares it (other traffic's bytes wait
 * in the same queue and lengthen the same round trip), so a copy that stood
 * a clearly deeper one shows the queue had room when these were lost: a
 * fading hop's runs, at the top of a slow-start burst. An AQM (fq_codel,
 * CAKE) drops below its depth: there its drops would read as the path's.
 */
export function notAnOverflow(queueAtLossMs: number, deepestQueueMs: number): boolean {
  return queueAtLossMs > 0 && deepestQueueMs >= DEEPER_QUEUE_SHARE * queueAtLossMs + QUEUE_FLOOR_MS;
}
