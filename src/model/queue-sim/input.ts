// The shared-queue simulation's inputs and results (src/model/shared-queue-sim.ts),
// the checks an input must pass, and the two ends' own time per request as
// the WAN lab's captures measured it.

export interface SharedQueueInput {
  /**
   * People at once, a step at a time, rising: the people a step adds start
   * together when it begins (as a capacity run's do), the others go on.
   */
  readonly steps: readonly number[];
  /** The data senders' congestion control (loss-based; Compound's loss-based part backs off as Reno does). */
  readonly congestion: 'cubic' | 'reno';
  readonly lineBitsPerSecond: number;
  readonly rttMs: number;
  readonly bufferBytes: number;
  /** TCP payload per full segment, and the bytes each packet adds on the wire. */
  readonly segmentBytes: number;
  readonly packetOverheadBytes: number;
  /** The bytes one request brings back (its reply, headers included) and how many requests each person keeps out. */
  readonly unitBytes: number;
  readonly unitsInFlight: number;
  /** The copy's bytes per request, as a person counts them (file data); default unitBytes. */
  readonly payloadBytesPerUnit?: number;
  /** Time a request spends besides the round trip and the wire (further round trips of the protocol), seconds. */
  readonly extraSecondsPerUnit?: number;
  readonly initialWindowSegments: number;
  /** Each step's time before counting, and the time counted. */
  readonly warmupSeconds: number;
  readonly measureSeconds: number;
  readonly seed?: number;
}

export interface SharedQueueStep {
  readonly people: number;
  /** Payload delivered by everyone together, and by each person, while counting. */
  readonly aggregateBitsPerSecond: number;
  readonly perPersonBitsPerSecond: readonly number[];
  /** Bytes waiting at the bottleneck over the counted time: their mean, and their median (what a small packet sent at a random moment typically waits behind). */
  readonly meanQueueBytes: number;
  readonly medianQueueBytes: number;
  /** Share of the data packets the bottleneck dropped while counting, and retransmission timeouts. */
  readonly dropShare: number;
  readonly timeouts: number;
}

export interface SharedQueueResult {
  readonly steps: readonly SharedQueueStep[];
}

/**
 * The two ends' own time per request: a least and an exponentially spread excess. Measured in the WAN lab's
 * captures (2026-11-24): smbd from a read request in to its reply out, p10 0.13-0.14 ms, median 0.25-0.31,
 * p90 0.43-0.49; Pipefill from a reply's last segment in to the next request out, median 0.23-0.35 ms, p90 0.5.
 */
export const HOST_TURNAROUND = {
  /** The client's time from a reply in to the next request out: one process for everyone, so one at a time. */
  client: { minSeconds: 0.0002, meanExcessSeconds: 0.0003 },
  /** The server's time from a request in to its reply's first segment out. */
  server: { minSeconds: 0.00014, meanExcessSeconds: 0.00017 },
} as const;

/** The mean time the two ends add to each request (what a person alone sees on top of the round trip and the wire). */
export function meanTurnaroundSeconds(): number {
  const { client, server } = HOST_TURNAROUND;
  return client.minSeconds + client.meanExcessSeconds + server.minSeconds + server.meanExcessSeconds;
}

export function validateSharedQueueInput(input: SharedQueueInput): void {
  const positive: readonly (keyof SharedQueueInput)[] = ['lineBitsPerSecond', 'rttMs', 'segmentBytes', 'unitBytes', 'measureSeconds', 'initialWindowSegments'];
  for (const key of positive) {
    const value = input[key];
    if (typeof value !== 'number' || !(Number.isFinite(value) && value > 0)) throw new RangeError(`${key} must be a positive number, not ${String(value)}`);
  }
  if (input.steps.length === 0 || input.steps.some((people, index) => !(Number.isInteger(people) && people >= 1 && people > (input.steps[index - 1] ?? 0)))) {
    throw new RangeError(`steps must be rising whole numbers of people from 1, not ${JSON.stringify(input.steps)}`);
  }
  if (!(Number.isInteger(input.unitsInFlight) && input.unitsInFlight >= 1))
    throw new RangeError(`unitsInFlight must be a whole number from 1, not ${input.unitsInFlight}`);
  if (!(input.bufferBytes >= 0 && Number.isFinite(input.bufferBytes)))
    throw new RangeError(`bufferBytes must be finite and not negative, not ${input.bufferBytes}`);
  if (!(input.packetOverheadBytes >= 0 && input.warmupSeconds >= 0 && (input.extraSecondsPerUnit ?? 0) >= 0))
    throw new RangeError('overheads and times must not be negative');
}
