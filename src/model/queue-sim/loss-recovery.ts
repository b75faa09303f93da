// Loss recovery of a simulated sender, as Linux runs it: the SACK
// scoreboard an ACK updates (RFC 2018, RFC 2883), the RTT sample and the
// retransmission timeout it gives (RFC 6298, at least TCP_RTO_MIN), RACK's
// time-based loss detection (RFC 8985 section 6), the tail loss probe's
// timer (section 7) and the timeout that marks everything out lost. Pure
// functions of a person's state; the simulation queues their timers.
//
// Loss detection is RACK (RFC 8985): a segment is lost once one sent after
// it is delivered and a round trip (plus a quarter of the minimum RTT
// until three segments are SACKed) has gone by. A lost tail is found by
// the tail loss probe two smoothed RTTs after the last send (RFC 8985
// section 7; 200 ms more when one segment is out), and by the
// retransmission timeout (RFC 6298, at least 200 ms as Linux's minimum)
// when the probe is lost too. A loss cuts the window once per round
// trip; one repaired by the probe alone cuts it too (tcp_process_tlp_ack).

import type { Person } from './person.js';
import { LOST, MIN_RTO_SECONDS, RETRANSMITTED, SACKED } from './person.js';

/** A segment now known delivered: its scoreboard counts put right; its send time, or undefined where it was SACKed before. */
export function deliveredMark(p: Person, seq: number): number | undefined {
  const mark = p.marks[seq] as number;
  if ((mark & SACKED) !== 0) return undefined;
  if ((mark & LOST) !== 0) p.lostOut--;
  if ((mark & RETRANSMITTED) !== 0) p.retransOut--;
  return p.sentAt[seq] as number;
}

/** An ACK on the scoreboard: everything below `cumulative`, and the SACKed segments, delivered; the newest send time among them. */
export function ackScoreboard(p: Person, cumulative: number, sacks: readonly number[]): { delivered: number; advanced: boolean; latestSentAt: number } {
  let delivered = 0;
  let latestSentAt = -Infinity;
  const upTo = Math.min(cumulative, p.next);
  for (let seq = p.una; seq < upTo; seq++) {
    const sentAt = deliveredMark(p, seq);
    if (sentAt === undefined) {
      p.sackedOut--;
    } else {
      delivered++;
      latestSentAt = Math.max(latestSentAt, sentAt);
    }
    p.marks[seq] = 0;
  }
  const advanced = upTo > p.una;
  if (advanced) {
    p.una = upTo;
    p.backoff = 1;
  }
  for (const seq of sacks) {
    if (seq < p.una || seq >= p.next) continue;
    const sentAt = deliveredMark(p, seq);
    if (sentAt === undefined) continue;
    p.marks[seq] = SACKED;
    p.sackedOut++;
    delivered++;
    latestSentAt = Math.max(latestSentAt, sentAt);
  }
  return { delivered, advanced, latestSentAt };
}

/** An RTT sample from the newest segment an ACK delivered: the smoothed RTT, its variation and the RTO (RFC 6298), the minima, and RACK's newest delivery. */
export function takeRttSample(p: Person, sample: number, latestSentAt: number): void {
  p.mdev = 0.75 * p.mdev + 0.25 * Math.abs(sample - p.srtt);
  p.srtt = 0.875 * p.srtt + 0.125 * sample;
  p.minRtt = Math.min(p.minRtt, sample);
  p.delayMin = Math.min(p.delayMin, sample);
  p.rto = p.srtt + Math.max(4 * p.mdev, MIN_RTO_SECONDS);
  if (latestSentAt >= p.rackSentAt) {
    p.rackSentAt = latestSentAt;
    p.rackRtt = sample;
  }
}

/**
 * RACK: segments sent before one now delivered, and older than a round
 * trip (and the reordering allowance, a quarter of the least RTT until three
 * segments are SACKed), are lost. Returns whether any were, and when the
 * oldest not yet due will be (Infinity: none waits).
 */
export function rackLosses(p: Person, now: number): { found: boolean; wakeAt: number } {
  const allowance = p.state !== 'open' || p.sackedOut >= 3 ? 0 : p.minRtt / 4;
  let found = false;
  let wakeAt = Infinity;
  for (let seq = p.una; seq < p.next; seq++) {
    const mark = p.marks[seq] as number;
    if ((mark & SACKED) !== 0 || ((mark & LOST) !== 0 && (mark & RETRANSMITTED) === 0)) continue;
    const sentAt = p.sentAt[seq] as number;
    if (!(sentAt < p.rackSentAt)) continue;
    const due = sentAt + p.rackRtt + allowance;
    if (due <= now) {
      if ((mark & RETRANSMITTED) !== 0) p.retransOut--;
      p.marks[seq] = LOST;
      p.lostOut++;
      found = true;
    } else {
      wakeAt = Math.min(wakeAt, due);
    }
  }
  return { found, wakeAt };
}

/** The retransmission timer from the last send: the tail loss probe (two smoothed RTTs; 200 ms more with one segment out) while it may fire, else the backed-off RTO. */
export function senderTimer(p: Person): { afterSeconds: number; probe: boolean } {
  const rto = p.rto * p.backoff;
  const probe = p.state === 'open' && p.tlpHighSeq < 0 ? Math.min(rto, 2 * p.srtt + (p.next - p.una === 1 ? MIN_RTO_SECONDS : 0.002)) : rto;
  return { afterSeconds: probe, probe: probe < rto };
}

/** The retransmission timeout: everything out and not SACKed is lost, and the window starts again from one segment (the cut is the congestion control's). */
export function timeoutLosses(p: Person): void {
  p.state = 'loss';
  p.recoveryPoint = p.next;
  p.cwnd = 1;
  p.cwndCount = 0;
  p.tlpHighSeq = -1;
  p.lostOut = 0;
  p.retransOut = 0;
  for (let seq = p.una; seq < p.next; seq++) {
    const mark = p.marks[seq] as number;
    if ((mark & SACKED) !== 0) continue;
    p.marks[seq] = LOST;
    p.lostOut++;
  }
  p.backoff = Math.min(p.backoff * 2, 64);
}
