// Congestion control of a simulated sender, as Linux runs it: CUBIC
// (tcp_cubic.c: beta 0.7, C 0.4, fast convergence, the Reno-friendly
// estimate, HyStart's delay test) or Reno, slow start, the cut for a loss,
// and window validation (tcp_cwnd_validate). Pure functions of a person's
// state.
//
// CUBIC as tcp_cubic.c: beta 0.7, C 0.4, fast convergence, the
// Reno-friendly estimate, its clock shifted by the time the sender idled
// (cubictcp_cwnd_event, CA_EVENT_TX_START; done where the simulation
// sends), and HyStart's delay test: from a window of 16, slow start ends
// where the first eight RTT samples of a round exceed the minimum by an
// eighth of it (4 to 16 ms). Growth as tcp_cong_avoid_ai: credit piled up
// while growth was slow is spent one segment at a time. Reno: beta 0.5, one
// segment per window. The window grows only while the sender is
// window-limited (tcp_is_cwnd_limited: in slow start, below twice the most
// segments out in the last window). A sender that leaves part of its window
// unused for an RTO halves the unused part (RFC 2861,
// tcp_cwnd_application_limited), but every ACK that may raise the window
// restarts that clock, so a person who hears back each round trip keeps
// theirs.

import type { Person } from './person.js';

export type Congestion = 'cubic' | 'reno';

/** CUBIC (RFC 9438 sections 4.6 and 5; tcp_cubic.c) and Reno (RFC 5681). */
const CUBIC_BETA = 0.7;
const CUBIC_C = 0.4;
const RENO_BETA = 0.5;
/** HyStart (tcp_cubic.c): from this window, on this many samples a round, an RTT this much above the minimum. */
const HYSTART_LOW_WINDOW = 16;
const HYSTART_SAMPLES = 8;
const HYSTART_DELAY_MIN = 0.004;
const HYSTART_DELAY_MAX = 0.016;

/** A window cut for a loss: the congestion control's new threshold, and CUBIC's curve starts again from it. */
export function reduceWindow(p: Person, congestion: Congestion): void {
  if (congestion === 'cubic') {
    p.epochStart = 0;
    p.lastMaxCwnd = p.cwnd < p.lastMaxCwnd ? (p.cwnd * (1 + CUBIC_BETA)) / 2 : p.cwnd;
  }
  p.ssthresh = Math.max(Math.floor(p.cwnd * (congestion === 'cubic' ? CUBIC_BETA : RENO_BETA)), 2);
}

/** Fast recovery: one cut for the losses of this round trip; it ends when everything sent so far is acknowledged. */
export function enterRecovery(p: Person, congestion: Congestion): void {
  reduceWindow(p, congestion);
  p.cwnd = p.ssthresh;
  p.cwndCount = 0;
  p.state = 'recovery';
  p.recoveryPoint = p.next;
  p.tlpHighSeq = -1;
}

/** HyStart's delay test (tcp_cubic.c hystart_update, HYSTART_DELAY). */
export function hystart(p: Person, sample: number): void {
  if (p.una > p.roundEnd) {
    p.roundEnd = p.next;
    p.roundRtt = Infinity;
    p.roundSamples = 0;
  }
  if (p.cwnd < HYSTART_LOW_WINDOW || p.roundSamples >= HYSTART_SAMPLES) return;
  p.roundRtt = Math.min(p.roundRtt, sample);
  p.roundSamples++;
  const delayMin = Math.min(p.delayMin, p.roundRtt);
  const threshold = Math.min(HYSTART_DELAY_MAX, Math.max(HYSTART_DELAY_MIN, delayMin / 8));
  if (p.roundSamples === HYSTART_SAMPLES && p.roundRtt > delayMin + threshold) p.ssthresh = p.cwnd;
}

/** Slow start, then CUBIC's or Reno's growth (tcp_cubic.c bictcp_update, tcp_cong_avoid_ai). */
export function grow(p: Person, acked: number, now: number, congestion: Congestion): void {
  let left = acked;
  if (p.cwnd < p.ssthresh) {
    const room = Math.min(left, Math.ceil(p.ssthresh - p.cwnd));
    p.cwnd += room;
    left -= room;
    if (left <= 0) return;
  }
  let count = p.cwnd;
  if (congestion === 'cubic') count = cubicCount(p, left, now);
  // tcp_cong_avoid_ai: credit piled up while growth was slow is spent one segment at a time, not at once.
  if (p.cwndCount >= count) {
    p.cwndCount = 0;
    p.cwnd++;
  }
  p.cwndCount += left;
  if (p.cwndCount >= count) {
    const steps = Math.floor(p.cwndCount / count);
    p.cwndCount -= steps * count;
    p.cwnd += steps;
  }
}

function cubicCount(p: Person, acked: number, now: number): number {
  p.ackCount += acked;
  if (p.epochStart <= 0) {
    p.epochStart = now;
    p.ackCount = acked;
    p.friendlyCwnd = p.cwnd;
    if (p.lastMaxCwnd <= p.cwnd) {
      p.cubicK = 0;
      p.origin = p.cwnd;
    } else {
      p.cubicK = Math.cbrt((p.lastMaxCwnd - p.cwnd) / CUBIC_C);
      p.origin = p.lastMaxCwnd;
    }
  }
  const t = now + p.minRtt - p.epochStart;
  const target = p.origin + CUBIC_C * (t - p.cubicK) ** 3;
  let count = target > p.cwnd ? p.cwnd / (target - p.cwnd) : 100 * p.cwnd;
  if (p.lastMaxCwnd === 0) count = Math.min(count, 20);
  // The Reno-friendly estimate: 3(1 - beta)/(1 + beta) segments per window acknowledged (RFC 9438 section 4.3).
  const perSegment = (3 * (1 - CUBIC_BETA)) / (1 + CUBIC_BETA);
  const ackedPerStep = p.cwnd / perSegment;
  while (p.ackCount > ackedPerStep) {
    p.ackCount -= ackedPerStep;
    p.friendlyCwnd++;
  }
  if (p.friendlyCwnd > p.cwnd) count = Math.min(count, p.cwnd / (p.friendlyCwnd - p.cwnd));
  return Math.max(count, 2);
}

/** tcp_cwnd_validate: whether this window was window-limited, and the unused window's decay. */
export function validateWindow(p: Person, now: number, limitedNow: boolean, sentAny: boolean, initialWindowSegments: number): void {
  if (!sentAny && !limitedNow) return;
  const packetsOut = p.next - p.una;
  if (p.una >= p.cwndUsageSeq || limitedNow || (!p.cwndLimited && packetsOut > p.maxPacketsOut)) {
    p.cwndLimited = limitedNow;
    p.maxPacketsOut = packetsOut;
    p.cwndUsageSeq = p.next;
  }
  if (isWindowLimited(p)) {
    p.cwndUsed = 0;
    p.cwndStamp = now;
    return;
  }
  p.cwndUsed = Math.max(p.cwndUsed, packetsOut);
  if (now - p.cwndStamp >= p.rto) {
    const used = Math.max(p.cwndUsed, initialWindowSegments);
    if (p.state === 'open' && used < p.cwnd) {
      p.ssthresh = Math.max(p.ssthresh, 0.75 * p.cwnd);
      p.cwnd = Math.floor((p.cwnd + used) / 2);
    }
    p.cwndUsed = 0;
    p.cwndStamp = now;
  }
}

/** tcp_is_cwnd_limited: in slow start, below twice the most segments out in the last window. */
export function isWindowLimited(p: Person): boolean {
  if (p.cwndLimited) return true;
  return p.cwnd < p.ssthresh && p.cwnd < 2 * p.maxPacketsOut;
}
