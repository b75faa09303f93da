// When a copy's rate has settled, and what the rest of the workload will take.
// A budgeted assessment stops a copy once its rate is known well enough and
// lets the workload's remaining bytes and round trips be projected from what
// was measured (issue 15). Pure: the engine hands in its completions.
//
// The rate is read from the completions themselves (time, bytes so far), not
// from time buckets: a synchronous client (XP, one 60 KB read per round trip)
// delivers its bytes in lumps once per RTT, and a bucket of 100 ms on a 75 ms
// path holds one or two of them, a scatter of +/-50% that is the bucketing's,
// not the copy's. Between two completions the count is exact.
//
// The ramp (TCP slow start, a pipeline filling) is the leading stretch whose
// rate, over a window of four round trips, is below 90% of the rate of the
// later half; it is left out, as iperf3's --omit leaves it out. The rate has
// settled when what follows spans at least eight round trips, 200 ms and
// sixteen completions and its two halves agree within 5%. A rate still climbing has
// halves that differ.

/** The rule an assessment stops copies by; stated in the report. */
export const SETTLE_RULE = {
  /** The two halves after the ramp agree within this share of the rate. */
  agreement: 0.05,
  /** The span after the ramp covers at least this many round trips... */
  minRtts: 8,
  /**
   * ...and this long, whatever the round trip: on a fast path eight round trips are a millisecond, and one stall
   * of a few milliseconds (a scheduler tick, a garbage collection) moves a rate read over so short a span by more
   * than the agreement. The same span holds a directory set's read source on a fast path (src/assess/copy-run.ts):
   * an idle loopback's folders projected from 2 files, 5-8 ms of copying, came out 1.3-3.7x their model.
   */
  minSpanMs: 200,
  /** ...and this many completions. */
  minCompletions: 16,
  /** The ramp's rate is taken over windows of this many round trips (at least one completion gap). */
  windowRtts: 4,
  /** A window below this share of the later rate is still the ramp. */
  rampShare: 0.9,
} as const;

/** The rule in words, for the report. */
export const SETTLE_RULE_TEXT = `A budgeted copy stops once its rate, after the ramp (windows of ${SETTLE_RULE.windowRtts} round trips below ${SETTLE_RULE.rampShare * 100}% of the later rate), has spanned ${SETTLE_RULE.minRtts} round trips, ${SETTLE_RULE.minSpanMs} ms and ${SETTLE_RULE.minCompletions} completions with its two halves within ${SETTLE_RULE.agreement * 100}% of each other, or when its share of the budget is spent; the rest of the workload is projected at that rate, with the metadata times measured on the files and folders it reached.`;

export interface Completion {
  /** ms from the start of the copy. */
  readonly tMs: number;
  /** Bytes moved so far, this completion included. */
  readonly totalBytes: number;
}

export interface RateInput {
  /** In time order; only those from `fromMs` on count (the data of the file being moved). */
  readonly completions: readonly Completion[];
  readonly fromMs: number;
  readonly rttMs: number;
}

export interface SettledRate {
  readonly settled: boolean;
  /** Rate after the ramp (0 before two completions). */
  readonly bytesPerSecond: number;
  /** How far the halves disagree, as a share of the rate: the uncertainty the projection carries. */
  readonly relativeHalfWidth: number;
  readonly completions: number;
  /** Where the ramp ended, ms from the start of the copy. */
  readonly rampEndMs: number;
}

const rateBetween = (from: Completion, to: Completion) => (to.tMs > from.tMs ? ((to.totalBytes - from.totalBytes) * 1000) / (to.tMs - from.tMs) : 0);

/** The trailing window a copy stopped before its rate settled is read over: at least this many round trips and completion gaps. */
export const RECENT_WINDOW = { rtts: 2, gaps: 2 } as const;

/**
 * The rate over the last stretch of a copy stopped before its rate settled
 * (pure): at least two round trips and two completion gaps, ending at the
 * last completion. A ramp only climbs, so after a short data phase this is
 * nearer the rate the rest would go at than any average that holds the ramp;
 * 0 when there are not that many completions.
 */
export function recentRate(input: RateInput): { readonly bytesPerSecond: number; readonly completions: number } {
  const events = input.completions.filter((event) => event.tMs >= input.fromMs);
  const last = events[events.length - 1];
  if (!last || events.length - 1 < RECENT_WINDOW.gaps) return { bytesPerSecond: 0, completions: 0 };
  let start = events.length - 1 - RECENT_WINDOW.gaps;
  while (start > 0 && last.tMs - (events[start]?.tMs ?? last.tMs) < RECENT_WINDOW.rtts * Math.max(0, input.rttMs)) start--;
  const from = events[start];
  if (!from || last.tMs - from.tMs < RECENT_WINDOW.rtts * Math.max(0, input.rttMs)) return { bytesPerSecond: 0, completions: 0 };
  return { bytesPerSecond: rateBetween(from, last), completions: events.length - 1 - start };
}

export function settledRate(input: RateInput): SettledRate {
  const events = input.completions.filter((event) => event.tMs >= input.fromMs);
  const none: SettledRate = { settled: false, bytesPerSecond: 0, relativeHalfWidth: Infinity, completions: events.length, rampEndMs: input.fromMs };
  const first = events[0];
  const last = events[events.length - 1];
  if (!first || !last || events.length < 2 || !(last.tMs > first.tMs)) return none;
  const rtt = Math.max(0, input.rttMs);
  const windowMs = SETTLE_RULE.windowRtts * rtt;
  // The later half's rate, and the first window that reaches 90% of it.
  const middle = events.find((event) => event.tMs >= (first.tMs + last.tMs) / 2) ?? last;
  const late = rateBetween(middle, last) || rateBetween(first, last);
  let rampEnd = events.length - 1;
  for (let start = 0, end = 1; start < events.length - 1; start++) {
    const from = events[start];
    if (!from) break;
    end = Math.max(end, start + 1);
    while (end < events.length && (events[end]?.tMs ?? 0) - from.tMs < windowMs) end++;
    const to = events[end];
    // No whole window left before now: all of it is still ramp, as far as can be told.
    if (!to) {
      rampEnd = start;
      break;
    }
    if (rateBetween(from, to) >= SETTLE_RULE.rampShare * late) {
      rampEnd = start;
      break;
    }
  }
  const steady = events.slice(Math.min(rampEnd, events.length - 2));
  const from = steady[0] ?? first;
  const rate = rateBetween(from, last);
  const split = steady.find((event) => event.tMs >= (from.tMs + last.tMs) / 2) ?? last;
  const early = rateBetween(from, split);
  const later = rateBetween(split, last);
  if (!(rate > 0)) return { ...none, rampEndMs: from.tMs };
  const disagreement = early > 0 && later > 0 ? Math.abs(later - early) / rate : Infinity;
  const span = last.tMs - from.tMs;
  const settled =
    span >= SETTLE_RULE.minRtts * rtt &&
    span >= SETTLE_RULE.minSpanMs &&
    steady.length - 1 >= SETTLE_RULE.minCompletions &&
    disagreement <= SETTLE_RULE.agreement;
  return { settled, bytesPerSecond: rate, relativeHalfWidth: disagreement, completions: steady.length - 1, rampEndMs: from.tMs };
}

export interface ProjectionInput {
  /** What the copy measured, start to stop, set-up and close included. */
  readonly measuredSeconds: number;
  /** Data bytes the workload still holds (the rest of the stopped file, and every file not touched). */
  readonly remainingBytes: number;
  /** Round-trip time of the metadata still owed: files and folders not touched, at the times measured for those that were. */
  readonly remainingMetadataSeconds: number;
  readonly rate: Pick<SettledRate, 'bytesPerSecond' | 'relativeHalfWidth'>;
}

export interface Projection {
  readonly seconds: number;
  /** The interval the rate's confidence interval gives (high is Infinity when the rate is that uncertain). */
  readonly lowSeconds: number;
  readonly highSeconds: number;
}

/** The whole workload's time: what was measured, plus the rest at the settled rate and the measured metadata times. */
export function projectSeconds(input: ProjectionInput): Projection {
  const { measuredSeconds, remainingBytes, remainingMetadataSeconds, rate } = input;
  if (remainingBytes <= 0)
    return {
      seconds: measuredSeconds + remainingMetadataSeconds,
      lowSeconds: measuredSeconds + remainingMetadataSeconds,
      highSeconds: measuredSeconds + remainingMetadataSeconds,
    };
  const at = (bytesPerSecond: number) => (bytesPerSecond > 0 ? measuredSeconds + remainingMetadataSeconds + remainingBytes / bytesPerSecond : Infinity);
  const spread = Number.isFinite(rate.relativeHalfWidth) ? rate.relativeHalfWidth : 1;
  return { seconds: at(rate.bytesPerSecond), lowSeconds: at(rate.bytesPerSecond * (1 + spread)), highSeconds: at(rate.bytesPerSecond * (1 - spread)) };
}

/**
 * Shares `availableSeconds` among copies expected to take `expectedSeconds`
 * each, by water-filling: a copy expected to be quicker than the common level
 * gets what it needs, the others the level. A copy stops at its slot or once
 * its rate has settled, whichever comes first.
 */
export function waterFill(expectedSeconds: readonly number[], availableSeconds: number): number[] {
  const available = Math.max(0, availableSeconds);
  const needs = expectedSeconds.map((seconds) => Math.max(0, Number.isFinite(seconds) ? seconds : available));
  if (needs.reduce((sum, need) => sum + need, 0) <= available) return needs;
  const order = needs.map((need, index) => ({ need, index })).sort((a, b) => a.need - b.need);
  const slots = new Array<number>(needs.length).fill(0);
  let left = available;
  for (let position = 0; position < order.length; position++) {
    const entry = order[position];
    if (!entry) continue;
    const level = left / (order.length - position);
    const slot = Math.min(entry.need, level);
    slots[entry.index] = slot;
    left -= slot;
  }
  return slots;
}

/**
 * The first copy's share of what is left: every copy first gets its minimum
 * (all of them scaled down alike when even those do not fit: the budget is
 * kept, the projections get rougher), then the rest is water-filled by need.
 */
export function budgetSlot(needs: readonly number[], minimums: readonly number[], available: number): number {
  const floor = minimums.reduce((sum, minimum) => sum + minimum, 0);
  const first = minimums[0] ?? 0;
  if (floor >= available) return floor > 0 ? (first * available) / floor : 0;
  const [extra = 0] = waterFill(
    needs.map((need, index) => Math.max(0, need - (minimums[index] ?? 0))),
    available - floor,
  );
  return first + extra;
}
