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
//
// A flow's first cycle is worse than the rest (`shallowQueueRamp`). Slow
// start doubles the window each round trip, its ACKs spaced by the
// bottleneck and each releasing two segments: the queue then grows by half
// of what the round sends, so a shallow queue overflows in the first round
// that sends more than 2B, long before the window reaches P + B. The loss is
// seen a round trip later, with the window at that round's size; the flow
// backs off from there and climbs in congestion avoidance to P + B, with the
// link partly idle all the way up. Measured in the WAN lab (50 Mb/s, 20 ms,
// 1/8 BDP, CUBIC, ss -ti during a 24 MiB read, 2026-11-24): the window
// left slow start at 40 (rounds of 10, 20, 40 against a queue of 10.75
// segments) and came down to 29-30, as this rule says. Linux's CUBIC also
// leaves slow start without a loss when a round's ACK train spans half the
// base RTT (HyStart, tcp_cubic.c, on by default): that needs the round
// before to have sent P/2, and comes first only when B > P/2.

/** Congestion controls the model knows; `bbr` paces to the measured rate and is not held back by a shallow queue. */
export const CONGESTION_CONTROLS = ['cubic', 'reno', 'compound', 'bbr'] as const;
export type CongestionControl = (typeof CONGESTION_CONTROLS)[number];

/** A congestion control's name as a kernel gives it: Linux's are at most 15 characters (TCP_CA_NAME_MAX, 16 with the NUL). */
export const CONGESTION_NAME = /^[a-z][a-z0-9_]{0,14}$/;

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

/**
 * Whether a sender that has already moved data on a connection starts its
 * next burst, after the pause between two copies, at the rate it had. BBR
 * does: it keeps its window and paces at its bandwidth estimate when it
 * restarts from idle (draft-cardwell-iccrg-bbr-congestion-control, "Restarting
 * From Idle"), and Linux leaves a congestion control with its own
 * cong_control out of tcp_slow_start_after_idle's restart. A loss-based one
 * idle for longer than its RTO (~0.2 s at least, far less than the pause
 * between two test copies) halves its window per RTO down to the initial
 * window (RFC 5681 section 4.1, RFC 2861; on by default in Linux and
 * Windows), and pays slow start again as a new connection would.
 */
export function keepsRateAcrossIdle(congestion: CongestionControl): boolean {
  return congestion === 'bbr';
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
  const climbed = climb(cycle, { from: cycle.beta * cycle.peak, wMax: cycle.peak, k: Math.cbrt((cycle.peak * (1 - cycle.beta)) / (cycle.flows * CUBIC_C)) });
  return climbed.capacity > 0 ? Math.min(1, climbed.delivered / climbed.capacity) : 1;
}

interface Climbed {
  /** Segments delivered, segments the line could have carried, and the time taken. */
  readonly delivered: number;
  readonly capacity: number;
  readonly seconds: number;
  /** Segments waiting in the bottleneck's queue, integrated over the time taken (segment-seconds). */
  readonly queued: number;
}

/**
 * Congestion avoidance from window `from` until it reaches the cycle's peak
 * (or `untilDelivered` segments have gone). Reno-style growth: one segment
 * per round trip per flow. CUBIC's TCP-friendly estimate grows
 * 3(1 - beta)/(1 + beta) per round trip (RFC 9438 section 4.3) and its curve
 * W(t) = C(t - K)^3 + W_max (section 4.2); the window is the larger of the
 * two. N flows grow N times as fast in aggregate, and the aggregate curve is
 * N times as steep.
 */
function climb(cycle: Cycle, start: { readonly from: number; readonly wMax: number; readonly k: number }, untilDelivered = Infinity): Climbed {
  const { pipe, peak, flows, rttSeconds } = cycle;
  const flowBeta = LOSS_BETA[cycle.congestion];
  const growth = (cycle.congestion === 'cubic' ? (3 * (1 - flowBeta)) / (1 + flowBeta) : 1) * flows;
  let window = start.from;
  let friendly = window;
  let elapsedSeconds = 0;
  let delivered = 0;
  let capacity = 0;
  let queued = 0;
  for (let round = 0; round < MAX_ROUNDS && window < peak && delivered < untilDelivered; round++) {
    const roundRtts = Math.max(1, window / pipe);
    delivered += window;
    capacity += pipe * roundRtts;
    elapsedSeconds += roundRtts * rttSeconds;
    queued += Math.max(0, window - pipe) * roundRtts * rttSeconds;
    friendly += growth;
    const cubic = cycle.congestion === 'cubic' ? flows * CUBIC_C * (elapsedSeconds - start.k) ** 3 + start.wMax : -Infinity;
    window = Math.max(friendly, cubic);
  }
  return { delivered, capacity, seconds: elapsedSeconds, queued };
}

/**
 * The mean number of bytes waiting in the bottleneck's queue while N flows
 * keep the line busy: what every round trip through it waits on top of the
 * base RTT. Loss-based flows: the same congestion-avoidance cycle as
 * lineUtilisation (the aggregate window climbs from beta x (BDP + B) to
 * BDP + B), the queue being what the window holds beyond the BDP. BBR: its
 * window is twice its BDP estimate (draft-cardwell-iccrg-bbr-congestion-
 * control, cwnd_gain 2), so flows that share a line can keep up to a BDP
 * queued, or the whole buffer if it is smaller; an upper bound, not a mean.
 */
export function meanQueueBytes(input: QueueInput): number {
  const pipe = input.bdpBytes / input.segmentBytes;
  const buffer = Math.max(0, input.bufferBytes) / input.segmentBytes;
  if (!(pipe > 0)) return 0;
  if (input.congestion === 'bbr') return Math.min(buffer, pipe) * input.segmentBytes;
  const flows = Math.max(1, Math.floor(input.flows ?? 1));
  const beta = aggregateBeta(LOSS_BETA[input.congestion], flows);
  const peak = pipe + buffer;
  const cycle: Cycle = { congestion: input.congestion, pipe, peak, beta, flows, rttSeconds: input.rttMs / 1000 };
  const climbed = climb(cycle, { from: beta * peak, wMax: peak, k: Math.cbrt((peak * (1 - beta)) / (flows * CUBIC_C)) });
  return climbed.seconds > 0 ? (climbed.queued / climbed.seconds) * input.segmentBytes : 0;
}

export interface RampInput extends QueueInput {
  /** The sender's first window, in segments (the aggregate of all flows: each starts with its own). */
  readonly initialWindowSegments: number;
  /** Segments the whole transfer moves: a ramp longer than the transfer stops with it. */
  readonly totalSegments: number;
}

export interface Ramp {
  /** How the flow left slow start: a lost segment, or HyStart's ACK train (no loss). */
  readonly exit: 'loss' | 'hystart';
  /** The window when slow start ended and where congestion avoidance resumed, segments. */
  readonly exitWindowSegments: number;
  readonly resumeWindowSegments: number;
  /** The ramp's duration, and how long the line alone would have taken for what it delivered. */
  readonly seconds: number;
  readonly lineSeconds: number;
}

/**
 * Slow start and the first climb to P + B of loss-based flows at a
 * shallow queue (see the top of this file). Undefined when slow start
 * reaches the steady window without overflowing the queue (a buffer of a
 * BDP or so; the plain slow-start penalty then applies) or for BBR.
 */
export function shallowQueueRamp(input: RampInput): Ramp | undefined {
  if (input.congestion === 'bbr') return undefined;
  const flows = Math.max(1, Math.floor(input.flows ?? 1));
  const beta = aggregateBeta(LOSS_BETA[input.congestion], flows);
  const pipe = input.bdpBytes / input.segmentBytes;
  const buffer = Math.max(0, input.bufferBytes) / input.segmentBytes;
  const peak = pipe + buffer;
  const rttSeconds = input.rttMs / 1000;
  if (!(pipe > 0) || !(input.initialWindowSegments > 0) || !(input.totalSegments > 0)) return undefined;
  let window = input.initialWindowSegments;
  let previous = 0;
  let delivered = 0;
  let seconds = 0;
  // At most log2(peak / initial window) rounds: ~40 for a 10 Gb/s, 1 s path from one segment.
  while (delivered < input.totalSegments) {
    const overflows = window / 2 > buffer;
    // The ACK train of the round before spans half the RTT once that round carried P/2; the train ends
    // HyStart after P/2 ACKs (segment P of this round), the queue after 2B segments: whichever is first.
    const hystart = input.congestion === 'cubic' && previous >= pipe / 2 && previous >= HYSTART_LOW_WINDOW && (!overflows || pipe < 2 * buffer);
    if (hystart) {
      const exitWindow = Math.min(peak, previous + pipe / 2);
      return finishRamp({ input, flows, beta, pipe, peak, rttSeconds }, 'hystart', exitWindow, exitWindow, exitWindow, 0, delivered, seconds);
    }
    if (window >= peak) return undefined;
    if (overflows) {
      const exitWindow = Math.min(peak, window);
      return finishRamp(
        { input, flows, beta, pipe, peak, rttSeconds },
        'loss',
        exitWindow,
        beta * exitWindow,
        exitWindow,
        Math.cbrt((exitWindow * (1 - beta)) / (flows * CUBIC_C)),
        delivered + window,
        seconds + Math.max(1, window / pipe) * rttSeconds,
      );
    }
    delivered += window;
    seconds += Math.max(1, window / pipe) * rttSeconds;
    previous = window;
    window *= 2;
  }
  return undefined;
}

/** Linux's HyStart looks at rounds from a window of 16 segments (tcp_cubic.c, hystart_low_window). */
const HYSTART_LOW_WINDOW = 16;

function finishRamp(
  path: { readonly input: RampInput; readonly flows: number; readonly beta: number; readonly pipe: number; readonly peak: number; readonly rttSeconds: number },
  exit: Ramp['exit'],
  exitWindow: number,
  resume: number,
  wMax: number,
  k: number,
  deliveredBefore: number,
  secondsBefore: number,
): Ramp | undefined {
  const { input, flows, beta, pipe, peak, rttSeconds } = path;
  if (input.congestion === 'bbr') return undefined;
  const cycle: Cycle = { congestion: input.congestion, pipe, peak, beta, flows, rttSeconds };
  const climbed = climb(cycle, { from: resume, wMax, k }, input.totalSegments - deliveredBefore);
  const delivered = deliveredBefore + climbed.delivered;
  return {
    exit,
    exitWindowSegments: exitWindow,
    resumeWindowSegments: resume,
    seconds: secondsBefore + climbed.seconds,
    lineSeconds: (delivered / pipe) * rttSeconds,
  };
}

/** Measured in the WAN lab: a synchronous 64 KiB exchange at 32 ms took 48.5 ms under BBR, 36.0 ms under Reno. */
const BBR_IDLE_RESTART_RTTS = 0.5;

/** Round trips a sender on this congestion control loses restarting a burst from idle (ClientTcp.idleRestartRtts). */
export function idleRestartRtts(congestion: string): number {
  // By the model's name for it: a kernel's `bbr2` paces as `bbr` does (asCongestionControl).
  return asCongestionControl(congestion) === 'bbr' ? BBR_IDLE_RESTART_RTTS : 0;
}
