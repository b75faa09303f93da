// When a copy's rate has settled, and what the rest of the workload will take.
// A budgeted assessment stops a copy once its rate is known well enough and
// lets the workload's remaining bytes and round trips be projected from what
// was measured (issue 15). Pure: the engine hands in its timeline.
//
// The rate is taken over windows of a few round trips, never single buckets: a
// synchronous client (XP, one 60 KB read per round trip) delivers its bytes in
// lumps once per RTT, so a 100 ms bucket on a 75 ms path holds one or two of
// them. The ramp (TCP slow start, a pipeline filling) is the leading run of
// windows below 90% of the later rate; it is excluded, as iperf3's --omit
// excludes it. The rate has settled when the windows after the ramp give a
// mean whose 95% confidence interval (Student's t) is within 5% of it, and
// neither half of them differs from the other by more than that: a rate still
// climbing is not yet settled even if its windows agree.

/** The rule an assessment stops copies by; stated in the report. */
export const SETTLE_RULE = {
  confidence: 0.95,
  /** Half-width of the confidence interval, as a share of the rate. */
  relativeHalfWidth: 0.05,
  /** Windows after the ramp before a rate may count as settled. */
  minWindows: 4,
  /** A window spans at least this many round trips (and one timeline bucket). */
  windowRtts: 4,
  /** A window below this share of the later rate is still the ramp. */
  rampShare: 0.9,
} as const;

export interface RatePoint {
  /** Start of the bucket, ms from the start of the copy. */
  readonly tMs: number;
  readonly bytes: number;
}

export interface RateInput {
  readonly points: readonly RatePoint[];
  readonly bucketMs: number;
  /** Only buckets from here on count (the data of the file being moved). */
  readonly fromMs: number;
  /** Now, ms from the start of the copy: the bucket still filling is left out. */
  readonly nowMs: number;
  readonly rttMs: number;
}

export interface SettledRate {
  readonly settled: boolean;
  /** Mean rate over the windows after the ramp (0 when there are none). */
  readonly bytesPerSecond: number;
  /** Half-width of its confidence interval, as a share of it (Infinity with fewer than two windows). */
  readonly relativeHalfWidth: number;
  readonly windows: number;
  readonly windowMs: number;
  /** Where the ramp ended, ms from the start of the copy. */
  readonly rampEndMs: number;
}

/** Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; above that, the normal's. */
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
export function studentT95(degreesOfFreedom: number): number {
  if (degreesOfFreedom < 1) return Infinity;
  return T95[Math.floor(degreesOfFreedom) - 1] ?? 1.96;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

export function settledRate(input: RateInput): SettledRate {
  const { bucketMs } = input;
  const bucketsPerWindow = Math.max(1, Math.ceil((SETTLE_RULE.windowRtts * Math.max(0, input.rttMs)) / bucketMs));
  const windowMs = bucketsPerWindow * bucketMs;
  const firstBucket = Math.ceil(input.fromMs / bucketMs);
  const lastBucket = Math.floor(input.nowMs / bucketMs) - 1; // the last whole one
  const byBucket = new Map<number, number>();
  for (const point of input.points) {
    const index = Math.round(point.tMs / bucketMs);
    byBucket.set(index, (byBucket.get(index) ?? 0) + point.bytes);
  }
  const rates: number[] = [];
  for (let start = firstBucket; start + bucketsPerWindow - 1 <= lastBucket; start += bucketsPerWindow) {
    let bytes = 0;
    for (let index = start; index < start + bucketsPerWindow; index++) bytes += byBucket.get(index) ?? 0;
    rates.push(bytes / (windowMs / 1000));
  }
  const none = { settled: false, bytesPerSecond: 0, relativeHalfWidth: Infinity, windows: 0, windowMs, rampEndMs: input.fromMs };
  if (rates.length === 0) return none;
  const later = mean(rates.slice(Math.floor(rates.length / 2)));
  const rampWindows = Math.max(0, rates.findIndex((rate) => rate >= SETTLE_RULE.rampShare * later));
  const steady = rates.slice(rampWindows);
  const rampEndMs = (firstBucket + rampWindows * bucketsPerWindow) * bucketMs;
  const rate = mean(steady);
  if (steady.length < 2 || !(rate > 0)) return { ...none, bytesPerSecond: rate, windows: steady.length, rampEndMs };
  const variance = steady.reduce((sum, value) => sum + (value - rate) ** 2, 0) / (steady.length - 1);
  const relativeHalfWidth = (studentT95(steady.length - 1) * Math.sqrt(variance / steady.length)) / rate;
  const half = Math.floor(steady.length / 2);
  const drift = Math.abs(mean(steady.slice(half)) - mean(steady.slice(0, half))) / rate;
  const settled = steady.length >= SETTLE_RULE.minWindows && relativeHalfWidth <= SETTLE_RULE.relativeHalfWidth && drift <= SETTLE_RULE.relativeHalfWidth;
  return { settled, bytesPerSecond: rate, relativeHalfWidth, windows: steady.length, windowMs, rampEndMs };
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
  if (remainingBytes <= 0) return { seconds: measuredSeconds + remainingMetadataSeconds, lowSeconds: measuredSeconds + remainingMetadataSeconds, highSeconds: measuredSeconds + remainingMetadataSeconds };
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
