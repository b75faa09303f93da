// How long random loss lets a cold connection take to move its bytes. The
// model's steady rate under loss is Mathis et al.'s (in-flight.ts): a window
// of 1.22/sqrt(p) segments a round trip. But a connection starts in slow
// start and doubles its window until its first loss, about 1/p packets in,
// so a short copy moves faster than that rate: on the lab's 50 Mb/s / 40 ms
// link losing 1%, the person's 1 MiB writes with CUBIC ran 2-5 times faster
// than the steady rate gives (2.4 s), and read "faster than expected"
// (2026-11-28).
//
// A mean-field run of the sender's window, round by round: a round of w
// segments loses one with chance 1 - (1 - p)^w. In slow start a loss ends
// slow start for good, at the window cut by the sender's decrease; in
// congestion avoidance a loss cuts the window and a clean round adds alpha
// segments. Alpha is what makes Mathis's window the fixed point (a loss
// chance of about p w a round: p w^2 (1 - beta) = alpha, solved exactly),
// so a long copy converges on the model's steady rate. The window never exceeds what the
// other layers let the connection keep in flight (the line, credits,
// windows). Pure.

import type { CongestionControl } from './congestion.js';

/** Mathis, Semke, Mahdavi and Ott (1997): rate = MSS / RTT x C / sqrt(p), C = sqrt(3/2) for periodic loss with delayed ACKs off. */
export const MATHIS_CONSTANT = Math.sqrt(3 / 2);

/**
 * The window a loss leaves, as a share of the one it cut: Reno halves it
 * (RFC 5681), CUBIC keeps 0.7 (RFC 9438, 4.6), Compound TCP's loss window
 * halves as Reno's does. BBR does not answer random loss: no loss layer.
 */
const DECREASE: Record<Exclude<CongestionControl, 'bbr'>, number> = { reno: 0.5, cubic: 0.7, compound: 0.5 };

/** A window below this waits out retransmission timeouts the model does not count: it goes no lower. */
const LEAST_WINDOW_SEGMENTS = 2;
/** The run stops stepping once its window holds still to this many segments; the rest moves at that round's rate. */
const SETTLED_SEGMENTS = 1e-6;
/** Slow start's part of the run counts for nothing below this. */
const NEGLIGIBLE_SHARE = 1e-9;
/** Rounds stepped at most (a 2 s round trip's hour): the rest moves at the last round's rate. */
const MOST_ROUNDS = 1_800;

export interface LossRampInput {
  /** The path's loss rate, 0 < p < 1. */
  readonly lossRate: number;
  readonly rttMs: number;
  readonly segmentBytes: number;
  readonly initialWindowSegments: number;
  /** What the other layers let the connection keep in flight, in segments (the line's BDP, credits, windows). */
  readonly capSegments: number;
  readonly congestion: Exclude<CongestionControl, 'bbr'>;
  /** The bytes this connection moves. */
  readonly totalBytes: number;
}

/** Seconds to move `totalBytes` from a cold start through random loss (mean-field, see above). */
export function lossLimitedSeconds(input: LossRampInput): number {
  const { lossRate: p, segmentBytes, capSegments } = input;
  const needed = input.totalBytes / segmentBytes;
  if (!(needed > 0) || !(p > 0 && p < 1) || !(capSegments > 0)) return 0;
  const beta = DECREASE[input.congestion];
  const lossChance = (window: number) => 1 - (1 - p) ** window;
  // The growth a clean round gives that holds Mathis's window W still: a round loses with chance q(W) and is cut by
  // (1 - beta) W, else it grows by alpha.
  const mathisWindow = MATHIS_CONSTANT / Math.sqrt(p);
  const alpha = (lossChance(mathisWindow) * (1 - beta) * mathisWindow) / (1 - lossChance(mathisWindow));
  const cut = (window: number) => Math.max(LEAST_WINDOW_SEGMENTS, beta * window);
  // Slow start's share of the runs and its window there; congestion avoidance's window over the rest.
  let [slowShare, slowWindow, avoidWindow] = [1, Math.max(1, input.initialWindowSegments), Math.max(1, input.initialWindowSegments)];
  let [delivered, rounds] = [0, 0];
  for (;;) {
    const [slowSent, avoidSent] = [Math.min(slowWindow, capSegments), Math.min(avoidWindow, capSegments)];
    // Segments sent a round, the losses' retransmissions among them: Mathis's rate counts them so.
    const perRound = slowShare * slowSent + (1 - slowShare) * avoidSent;
    if (delivered + perRound >= needed) return ((rounds + (needed - delivered) / perRound) * input.rttMs) / 1000;
    delivered += perRound;
    rounds += 1;
    const [slowLoss, avoidLoss] = [lossChance(slowSent), lossChance(avoidSent)];
    const avoidNext = Math.min(capSegments, avoidLoss * cut(avoidWindow) + (1 - avoidLoss) * (avoidWindow + alpha));
    const leaving = slowShare * slowLoss;
    const avoidShare = 1 - slowShare + leaving;
    const nextAvoid = ((1 - slowShare) * avoidNext + leaving * cut(slowSent)) / avoidShare;
    const settled = slowShare < NEGLIGIBLE_SHARE && Math.abs(nextAvoid - avoidWindow) < SETTLED_SEGMENTS;
    avoidWindow = nextAvoid;
    slowShare *= 1 - slowLoss;
    slowWindow = Math.min(2 * slowWindow, capSegments);
    if (settled || rounds >= MOST_ROUNDS) {
      const steady = Math.min(avoidWindow, capSegments);
      return ((rounds + (needed - delivered) / steady) * input.rttMs) / 1000;
    }
  }
}

/**
 * What the cold start under random loss takes beyond moving the same bytes
 * at the steady rate under it (`steadyBytesPerSecond`, Mathis's): negative
 * where slow start's run before its first losses moves them faster.
 */
export function lossRampSeconds(input: LossRampInput, steadyBytesPerSecond: number): number {
  return steadyBytesPerSecond > 0 ? lossLimitedSeconds(input) - input.totalBytes / steadyBytesPerSecond : 0;
}
