// How far below the line one loss-based TCP flow runs when the bottleneck's
// buffer is shallow. The physics, per congestion-avoidance cycle:
//
//  - The window W grows until the path holds P (the BDP) in flight plus B in
//    the bottleneck's queue; the next packet overflows it: W_max = P + B.
//  - The sender cuts its window to beta x W_max (Reno and NewReno 0.5,
//    RFC 5681; CUBIC 0.7, RFC 9438 section 4.6; Compound's loss-based part
//    0.5, Tan et al., "A Compound TCP Approach", INFOCOM 2006).
//  - While W < P the link idles part of each round trip: rate W / RTT.
//    Once W >= P the queue fills and the link runs at its line rate.
//
// If beta x W_max >= P the queue never empties and the link stays full (a
// buffer of one BDP is enough for Reno, 0.43 BDP for CUBIC); below that, the
// share of the line a flow averages is the bytes it delivers over a cycle
// divided by what the line could have carried in that time. Growth is taken
// per round trip as each algorithm specifies it, so the integration below is
// a cycle of the real sawtooth, not a fit. The only named approximations:
// one loss event per overflow (drop-tail, a flow in congestion avoidance
// overshoots by about a segment), and CUBIC's fast convergence ignored
// (every cycle ends at the same W_max, so it never triggers).

/** Congestion controls the model knows; `bbr` paces to the measured rate and is not held back by a shallow queue. */
export const CONGESTION_CONTROLS = ['cubic', 'reno', 'compound', 'bbr'] as const;
export type CongestionControl = (typeof CONGESTION_CONTROLS)[number];

/**
 * A congestion control named by a stack (Linux's tcp_congestion_control,
 * iperf3's report) as the model knows it. Linux's other loss-based ones
 * (htcp, illinois, scalable...) back off at least as gently as CUBIC, so they
 * are taken as CUBIC; `bbr` and `bbr2` pace.
 */
export function asCongestionControl(name: string): CongestionControl {
  const lower = name.trim().toLowerCase();
  if (lower.startsWith('bbr')) return 'bbr';
  if (lower === 'reno' || lower === 'newreno') return 'reno';
  if (lower === 'compound' || lower === 'ctcp') return 'compound';
  return 'cubic';
}

/** Multiplicative decrease on loss. */
export const LOSS_BETA: Readonly<Record<Exclude<CongestionControl, 'bbr'>, number>> = { reno: 0.5, compound: 0.5, cubic: 0.7 };

/** CUBIC's scaling constant C, segments per second cubed (RFC 9438 section 5). */
const CUBIC_C = 0.4;

/** Upper bound on the round trips one cycle is integrated over (a 10 Gb/s, 600 ms path needs about 260,000 for Reno). */
const MAX_ROUNDS = 2_000_000;

export interface QueueInput {
  readonly congestion: CongestionControl;
  /** The path's bandwidth-delay product and the bottleneck's buffer, in bytes. */
  readonly bdpBytes: number;
  readonly bufferBytes: number;
  /** Segment size and base round-trip time: CUBIC's growth is in time, not in round trips. */
  readonly segmentBytes: number;
  readonly rttMs: number;
  /**
   * Flows sharing the bottleneck for this transfer (SMB multichannel
   * connections, robocopy /MT lanes). With N flows, a loss cuts one of them:
   * the aggregate window falls by (1 - beta) / N of itself.
   */
  readonly flows?: number;
}

/** The aggregate multiplicative decrease of N flows of which one backs off per loss. */
export function aggregateBeta(beta: number, flows: number): number {
  return 1 - (1 - beta) / Math.max(1, flows);
}

/**
 * The mean share of the line (0..1] that N loss-based flows keep busy over a
 * congestion-avoidance cycle, with the buffer given. BBR, an empty path, or a
 * buffer deep enough that the window never drops below the BDP: 1.
 */
export function lineUtilisation(input: QueueInput): number {
  if (input.congestion === 'bbr') return 1;
  const flows = Math.max(1, Math.floor(input.flows ?? 1));
  const beta = aggregateBeta(LOSS_BETA[input.congestion], flows);
  const pipe = input.bdpBytes / input.segmentBytes;
  const peak = (input.bdpBytes + Math.max(0, input.bufferBytes)) / input.segmentBytes;
  if (!(pipe > 0) || beta * peak >= pipe) return 1;
  const rttSeconds = input.rttMs / 1000;
  return integrateCycle({ congestion: input.congestion, pipe, peak, beta, flows, rttSeconds });
}

interface Cycle {
  readonly congestion: Exclude<CongestionControl, 'bbr'>;
  /** BDP and W_max, in segments (the aggregate of all flows). */
  readonly pipe: number;
  readonly peak: number;
  readonly beta: number;
  readonly flows: number;
  readonly rttSeconds: number;
}

/**
 * One cycle, a round trip at a time: a round carries W segments, lasts the
 * base RTT while W < P and W / P base RTTs once the queue holds the rest.
 * The share is segments delivered over segments the line could carry.
 */
function integrateCycle(cycle: Cycle): number {
  const { pipe, peak, beta, flows, rttSeconds } = cycle;
  // Reno-style growth: one segment per round trip per flow. CUBIC's
  // TCP-friendly estimate grows 3(1 - beta)/(1 + beta) per round trip
  // (RFC 9438 section 4.3) and its curve W(t) = C(t - K)^3 + W_max
  // (section 4.2); the window is the larger of the two. N flows grow N times
  // as fast in aggregate, and the aggregate curve is N times as steep.
  const flowBeta = LOSS_BETA[cycle.congestion];
  const growth = (cycle.congestion === 'cubic' ? (3 * (1 - flowBeta)) / (1 + flowBeta) : 1) * flows;
  const k = Math.cbrt((peak * (1 - beta)) / (flows * CUBIC_C));
  let window = beta * peak;
  let friendly = window;
  let elapsedSeconds = 0;
  let delivered = 0;
  let capacity = 0;
  for (let round = 0; round < MAX_ROUNDS && window < peak; round++) {
    const roundRtts = Math.max(1, window / pipe);
    delivered += window;
    capacity += pipe * roundRtts;
    elapsedSeconds += roundRtts * rttSeconds;
    friendly += growth;
    const cubic = cycle.congestion === 'cubic' ? flows * CUBIC_C * (elapsedSeconds - k) ** 3 + peak : -Infinity;
    window = Math.max(friendly, cubic);
  }
  return capacity > 0 ? Math.min(1, delivered / capacity) : 1;
}
