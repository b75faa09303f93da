// People whose copies go one request at a time (or a few) share a drop-tail
// bottleneck: a packet-level simulation of what their TCP senders do.
//
// Why a simulation, and what the WAN lab showed of people in step behind a
// shallow queue (packet captures, 2026-11-24): docs/model.md, "People
// sharing a queue". The cycle model in congestion.ts assumes senders whose
// windows fill the path; a person held by their copy pipeline sends a reply
// as one unpaced burst, and when bursts meet a shallow queue what happens
// turns on the queue's order, not on averages.
//
// The rules, as Linux 6.x follows them (the server here is smbd on Linux;
// Windows' CUBIC follows RFC 9438 as well):
//  - The bottleneck is the lab's forwarder and a router's FIFO alike: a
//    packet is serialised at the line rate after those ahead of it, then
//    takes the one-way delay; one that would put the bytes waiting past the
//    buffer is dropped (native/wanem/wanem.c).
//  - The receiver ACKs every second segment (RFC 9293 section 3.8.6.3), at
//    once on a segment out of order or filling a hole (RFC 5681 section 4.2),
//    after 40 ms otherwise (Linux's TCP_DELACK_MIN); its next request carries
//    the ACK of the reply it completes. It reports what it holds beyond a
//    hole (SACK, RFC 2018), and a duplicate (D-SACK, RFC 2883).
//  - Loss detection and recovery as Linux's (RACK, the tail loss probe, the
//    retransmission timeout): src/model/queue-sim/loss-recovery.ts.
//  - CUBIC or Reno, HyStart and window validation as Linux's:
//    src/model/queue-sim/congestion-control.ts.
// Named simplifications: during recovery the window is set to the new
// threshold at once (Linux's proportional rate reduction gets there over a
// round trip); HyStart's ACK-train test is left out (a reply's train is far
// shorter than the half RTT it looks for); the reverse path (requests,
// ACKs) never queues. The ends' own time per request was measured in the
// same captures (HOST_TURNAROUND): the client answers replies one at a time
// in the order they came, as one process driving everyone does.

import { median } from './stats.js';
import type { SharedQueueInput, SharedQueueResult, SharedQueueStep } from './queue-sim/input.js';
import { HOST_TURNAROUND, validateSharedQueueInput } from './queue-sim/input.js';
import { seededRandom } from './workloads.js';
import { enterRecovery, grow, hystart, isWindowLimited, reduceWindow, validateWindow } from './queue-sim/congestion-control.js';
import { EventKind, EventQueue } from './queue-sim/events.js';
import { ackScoreboard, rackLosses, senderTimer, takeRttSample, timeoutLosses } from './queue-sim/loss-recovery.js';
import type { Person } from './queue-sim/person.js';
import { inFlight, LOST, newPerson, RETRANSMITTED, SACKED } from './queue-sim/person.js';

/**
 * A person's round trips before their first read, each with a small reply: the TCP handshake, SMB2 NEGOTIATE,
 * two SESSION_SETUPs, TREE_CONNECT, then CREATE, SET_INFO and CLOSE to size the file and CREATE to open it
 * (src/capacity/load-user.ts), and the size of such a reply on the wire.
 */
const JOIN_ROUND_TRIPS = 9;
const JOIN_REPLY_BYTES = 200;
/** Linux's delayed-ACK timer (include/net/tcp.h: TCP_DELACK_MIN). */
const DELAYED_ACK_SECONDS = 0.04;
/**
 * The most data packets a run's line could carry (its warm-ups and counts are shortened to fit: about a
 * tenth of a second of work here), and a hard limit on events. A fast line's round trips are short, so
 * a shortened run still spans thousands of them.
 */
const MAX_PACKETS = 200_000;
const MAX_EVENTS = 2_000_000;
/** How often the queue is sampled for its mean. */
const QUEUE_SAMPLE_SECONDS = 0.001;

/**
 * Each step's warm-up and count as a run simulates them: long runs on fast lines are shortened, warm-up and
 * count alike, to what MAX_PACKETS carry at the line rate. The TCP timers are not shortened with them.
 */
export function simulatedTimes(
  input: Pick<SharedQueueInput, 'steps' | 'lineBitsPerSecond' | 'segmentBytes' | 'packetOverheadBytes' | 'warmupSeconds' | 'measureSeconds'>,
): { readonly warmupSeconds: number; readonly measureSeconds: number } {
  const packetsPerSecond = input.lineBitsPerSecond / 8 / (input.segmentBytes + input.packetOverheadBytes);
  const wanted = input.steps.length * (input.warmupSeconds + input.measureSeconds);
  const scale = Math.min(1, MAX_PACKETS / packetsPerSecond / wanted);
  return { warmupSeconds: input.warmupSeconds * scale, measureSeconds: input.measureSeconds * scale };
}

/** Runs the people's copies over the shared bottleneck (see the top of this file). Deterministic for a seed. */
export function simulateSharedQueue(input: SharedQueueInput): SharedQueueResult {
  validateSharedQueueInput(input);
  const random = seededRandom(input.seed ?? 1);
  const rttSeconds = input.rttMs / 1000;
  const oneWay = rttSeconds / 2;
  const bytesPerSecond = input.lineBitsPerSecond / 8;
  const segmentsPerUnit = Math.ceil(input.unitBytes / input.segmentBytes);
  const lastSegmentBytes = input.unitBytes - (segmentsPerUnit - 1) * input.segmentBytes;
  const payloadPerUnit = input.payloadBytesPerUnit ?? input.unitBytes;
  const { warmupSeconds: warmup, measureSeconds: measure } = simulatedTimes(input);
  const events = new EventQueue();
  const people: Person[] = [];
  const results: SharedQueueStep[] = [];
  let linkFreeAt = 0;
  let counting = false;
  let countedSince = 0;
  let packetsCounted = 0;
  let dropsCounted = 0;
  let timeouts = 0;
  let queueSamples: number[] = [];

  const spread = (side: { readonly minSeconds: number; readonly meanExcessSeconds: number }) =>
    side.minSeconds - Math.log(1 - random()) * side.meanExcessSeconds;
  let clientFreeAt = 0;
  /** When a request that the client decides to send at `now` reaches the server and the server starts to answer. */
  const requestServedAt = (now: number) => {
    clientFreeAt = Math.max(now, clientFreeAt) + spread(HOST_TURNAROUND.client);
    return clientFreeAt + oneWay + spread(HOST_TURNAROUND.server);
  };
  const backlogBytes = (now: number) => Math.max(0, linkFreeAt - now) * bytesPerSecond;

  /** The bottleneck: drop-tail on the bytes waiting, else serialised after what is ahead and delivered a one-way delay later. */
  function transmit(index: number, seq: number, now: number): void {
    const p = people[index] as Person;
    const wire = p.wireBytes[seq] as number;
    if (counting) packetsCounted++;
    if (backlogBytes(now) + wire > input.bufferBytes) {
      if (counting) dropsCounted++;
      return;
    }
    linkFreeAt = Math.max(now, linkFreeAt) + wire / bytesPerSecond;
    events.push({ at: linkFreeAt + oneWay, kind: EventKind.SegmentAtReceiver, person: index, seq, generation: 0 });
  }

  function writeUnit(p: Person): void {
    for (let segment = 0; segment < segmentsPerUnit; segment++) {
      const payload = segment === segmentsPerUnit - 1 ? lastSegmentBytes : input.segmentBytes;
      p.wireBytes.push(payload + input.packetOverheadBytes);
      p.sentAt.push(-Infinity);
      p.marks.push(0);
    }
    p.written += segmentsPerUnit;
    p.unitEnds.push(p.written);
  }

  function send(index: number, seq: number, now: number, retransmission: boolean): void {
    const p = people[index] as Person;
    // A sender starting again with nothing out moves CUBIC's clock on by the time it idled (cubictcp_cwnd_event).
    if (inFlight(p) === 0 && p.epochStart > 0 && now > p.lastSendAt) p.epochStart = Math.min(now, p.epochStart + (now - p.lastSendAt));
    p.sentAt[seq] = now;
    p.lastSendAt = now;
    if (retransmission) {
      p.marks[seq] = (p.marks[seq] as number) | RETRANSMITTED;
      p.retransOut++;
    }
    transmit(index, seq, now);
  }

  function trySend(index: number, now: number): void {
    const p = people[index] as Person;
    let sent = 0;
    let lostScan = p.una;
    while (inFlight(p) < p.cwnd) {
      let seq = -1;
      if (p.lostOut > 0) {
        for (; lostScan < p.next; lostScan++) {
          const mark = p.marks[lostScan] as number;
          if ((mark & LOST) !== 0 && (mark & RETRANSMITTED) === 0 && (mark & SACKED) === 0) {
            seq = lostScan;
            break;
          }
        }
      }
      if (seq >= 0) {
        send(index, seq, now, true);
      } else if (p.next < p.written) {
        send(index, p.next++, now, false);
      } else {
        break;
      }
      sent++;
    }
    validateWindow(p, now, inFlight(p) >= p.cwnd, sent > 0, input.initialWindowSegments);
    if (sent > 0) armSenderTimer(index, now);
  }

  /**
   * Re-arms the retransmission timer. Every ACK moves it on, so one event stays queued per person and, when it
   * comes early, queues itself again for the time now due: the event queue holds people, not every ACK's timer.
   */
  function armSenderTimer(index: number, now: number): void {
    const p = people[index] as Person;
    if (p.next === p.una) {
      p.timerDue = Infinity;
      return;
    }
    const timer = senderTimer(p);
    p.timerDue = now + timer.afterSeconds;
    p.timerProbe = timer.probe;
    if (p.timerDue < p.timerQueuedAt) {
      p.timerQueuedAt = p.timerDue;
      events.push({ at: p.timerDue, kind: EventKind.SenderTimer, person: index, seq: 0, generation: 0 });
    }
  }

  function onTimerEvent(index: number, now: number): void {
    const p = people[index] as Person;
    if (now !== p.timerQueuedAt) return;
    p.timerQueuedAt = Infinity;
    if (p.timerDue === Infinity) return;
    if (now < p.timerDue) {
      p.timerQueuedAt = p.timerDue;
      events.push({ at: p.timerDue, kind: EventKind.SenderTimer, person: index, seq: 0, generation: 0 });
      return;
    }
    p.timerDue = Infinity;
    onTimer(index, now, p.timerProbe);
  }

  function onTimer(index: number, now: number, probe: boolean): void {
    const p = people[index] as Person;
    if (p.next === p.una) return;
    if (probe) {
      // The tail loss probe: new data if there is some, else the last segment again; its ACK tells what was lost.
      if (p.next < p.written) send(index, p.next++, now, false);
      else if (((p.marks[p.next - 1] as number) & SACKED) === 0) send(index, p.next - 1, now, true);
      p.tlpHighSeq = p.next;
      armSenderTimer(index, now);
      return;
    }
    // Retransmission timeout: everything out and not SACKed is lost; start again from one segment.
    if (counting) timeouts++;
    if (p.state !== 'loss') reduceWindow(p, input.congestion);
    timeoutLosses(p);
    trySend(index, now);
    armSenderTimer(index, now);
  }

  /** RACK (loss-recovery.ts); where a segment is not due yet, its timer is queued. */
  function detectLosses(index: number, now: number): boolean {
    const p = people[index] as Person;
    const { found, wakeAt } = rackLosses(p, now);
    if (wakeAt < Infinity) events.push({ at: wakeAt, kind: EventKind.RackTimer, person: index, seq: 0, generation: ++p.rackGeneration });
    return found;
  }

  function onAck(index: number, now: number, cumulative: number, sacks: readonly number[], duplicate: boolean): void {
    const p = people[index] as Person;
    const { delivered, advanced, latestSentAt } = ackScoreboard(p, cumulative, sacks);
    if (delivered > 0) {
      const sample = now - latestSentAt;
      takeRttSample(p, sample, latestSentAt);
      if (input.congestion === 'cubic' && p.state === 'open' && p.cwnd < p.ssthresh) hystart(p, sample);
    }
    // A tail loss probe that repaired a loss by itself is a loss too (no D-SACK: the original never arrived).
    if (p.tlpHighSeq >= 0 && p.una >= p.tlpHighSeq) {
      if (!duplicate && p.state === 'open') {
        reduceWindow(p, input.congestion);
        p.cwnd = Math.min(p.cwnd, p.ssthresh);
      }
      p.tlpHighSeq = -1;
    }
    if (detectLosses(index, now) && p.state === 'open') enterRecovery(p, input.congestion);
    if (p.state !== 'open' && p.una >= p.recoveryPoint) {
      if (p.state === 'recovery') p.cwnd = p.ssthresh;
      p.state = 'open';
    }
    if (p.state === 'open' && delivered > 0) {
      // tcp_cong_avoid stamps the window on every ACK that may raise it, grown or not: a sender that hears
      // back every round trip never sits an RTO "unused", and keeps its window (as ss -ti showed in the lab).
      p.cwndStamp = now;
      if (isWindowLimited(p)) grow(p, delivered, now, input.congestion);
    }
    if (p.state === 'loss' && delivered > 0) p.cwnd = Math.min(p.cwnd + delivered, Math.max(p.ssthresh, 2));
    trySend(index, now);
    if (advanced || delivered > 0) armSenderTimer(index, now);
  }

  function sendAck(index: number, now: number, duplicate: boolean): void {
    const p = people[index] as Person;
    p.unacked = 0;
    p.delackGeneration++;
    const sacks = p.outOfOrder.size > 0 ? [...p.outOfOrder] : [];
    events.push({ at: now + oneWay, kind: EventKind.AckAtSender, person: index, seq: p.rcvNext, generation: 0, sacks, duplicate });
  }

  function requestUnit(index: number, now: number): void {
    events.push({ at: requestServedAt(now) + (input.extraSecondsPerUnit ?? 0), kind: EventKind.RequestAtSender, person: index, seq: 0, generation: 0 });
  }

  /**
   * Logging on and opening the file: small exchanges, one round trip each, whose replies cross the same queue.
   * A reply that meets another person's burst leaves behind it, and so does every exchange after it: this is how
   * people who join find themselves in step with those already copying (seen in the lab, 2026-11-24: every
   * newcomer's first read left the server within 1.3 ms of the person already reading's next burst).
   */
  function joinRequest(index: number, now: number, left: number): void {
    events.push({ at: requestServedAt(now), kind: EventKind.JoinRequestAtSender, person: index, seq: left, generation: 0 });
  }

  function joinReply(index: number, now: number, left: number): void {
    if (backlogBytes(now) + JOIN_REPLY_BYTES > input.bufferBytes) {
      // Lost: the sender tries again after its retransmission timeout.
      events.push({ at: now + (people[index] as Person).rto, kind: EventKind.JoinRequestAtSender, person: index, seq: left, generation: 0 });
      return;
    }
    (people[index] as Person).joinReplySentAt = now;
    linkFreeAt = Math.max(now, linkFreeAt) + JOIN_REPLY_BYTES / bytesPerSecond;
    events.push({ at: linkFreeAt + oneWay, kind: EventKind.JoinReplyAtReceiver, person: index, seq: left, generation: 0 });
  }

  /**
   * The request after a log-on reply carries that reply's ACK: an RTT sample for the server's CUBIC, queueing
   * included. People who log on in step with a reader's burst from their first exchange take its delay as
   * the path's, and HyStart then lets their slow start run: our reading of the lab's four-person runs in
   * which nobody was slowed (about one in four), not one we captured.
   */
  function takeJoinSample(p: Person, now: number): void {
    if (p.joinReplySentAt < 0) return;
    p.delayMin = Math.min(p.delayMin, now - p.joinReplySentAt);
    p.joinReplySentAt = -1;
  }

  function onSegment(index: number, seq: number, now: number): void {
    const p = people[index] as Person;
    if (seq < p.rcvNext || p.outOfOrder.has(seq)) {
      sendAck(index, now, true);
      return;
    }
    let immediate = false;
    if (seq === p.rcvNext) {
      p.rcvNext++;
      while (p.outOfOrder.delete(p.rcvNext)) {
        p.rcvNext++;
        immediate = true;
      }
      if (p.outOfOrder.size > 0) immediate = true;
    } else {
      p.outOfOrder.add(seq);
      immediate = true;
    }
    let completed = false;
    while (p.unitEnds.length > 0 && (p.unitEnds[0] as number) <= p.rcvNext) {
      p.unitEnds.shift();
      completed = true;
      if (counting) p.delivered += payloadPerUnit;
      requestUnit(index, now);
    }
    p.unacked++;
    if (immediate || completed || p.unacked >= 2) {
      sendAck(index, now, false);
    } else if (p.unacked === 1) {
      events.push({ at: now + DELAYED_ACK_SECONDS, kind: EventKind.DelayedAck, person: index, seq: 0, generation: ++p.delackGeneration });
    }
  }

  function startCounting(now: number): void {
    counting = true;
    countedSince = now;
    packetsCounted = 0;
    dropsCounted = 0;
    timeouts = 0;
    queueSamples = [];
    for (const p of people) p.delivered = 0;
    events.push({ at: now, kind: EventKind.QueueSample, person: 0, seq: 0, generation: 0 });
  }

  function stopCounting(now: number): void {
    counting = false;
    const seconds = Math.max(1e-9, now - countedSince);
    const perPerson = people.map((p) => (p.delivered * 8) / seconds);
    results.push({
      people: people.length,
      aggregateBitsPerSecond: perPerson.reduce((sum, rate) => sum + rate, 0),
      perPersonBitsPerSecond: perPerson,
      meanQueueBytes: queueSamples.length > 0 ? queueSamples.reduce((sum, bytes) => sum + bytes, 0) / queueSamples.length : 0,
      medianQueueBytes: queueSamples.length > 0 ? median(queueSamples) : 0,
      dropShare: packetsCounted > 0 ? dropsCounted / packetsCounted : 0,
      timeouts,
    });
  }

  // Each step: its new people start together (each after their own turn-around), the warm-up, then the count.
  for (const [index, target] of input.steps.entries()) {
    const stepStart = index * (warmup + measure);
    events.push({ at: stepStart, kind: EventKind.StepStart, person: target, seq: 0, generation: 0 });
    events.push({ at: stepStart + warmup, kind: EventKind.CountStart, person: 0, seq: 0, generation: 0 });
    events.push({ at: stepStart + warmup + measure, kind: EventKind.CountEnd, person: 0, seq: 0, generation: 0 });
  }

  let handled = 0;
  for (let event = events.pop(); event !== undefined && results.length < input.steps.length; event = events.pop()) {
    if (++handled > MAX_EVENTS) {
      // A safety net, not a path taken: MAX_PACKETS keeps a run well inside it.
      if (counting) stopCounting(event.at);
      break;
    }
    const p = people[event.person] as Person;
    switch (event.kind) {
      case EventKind.StepStart: {
        // The people a step adds start together, at a moment that bears no relation to where the others are in
        // their round trips (logging on and laying down files takes as long as it takes).
        const joinAt = event.at + random() * (rttSeconds + (segmentsPerUnit * (input.segmentBytes + input.packetOverheadBytes)) / bytesPerSecond);
        while (people.length < event.person) {
          people.push(newPerson(input.initialWindowSegments, rttSeconds));
          joinRequest(people.length - 1, joinAt, JOIN_ROUND_TRIPS);
        }
        break;
      }
      case EventKind.JoinRequestAtSender:
        takeJoinSample(p, event.at);
        joinReply(event.person, event.at, event.seq);
        break;
      case EventKind.JoinReplyAtReceiver:
        if (event.seq > 1) {
          joinRequest(event.person, event.at, event.seq - 1);
        } else {
          for (let unit = 0; unit < input.unitsInFlight; unit++) requestUnit(event.person, event.at);
        }
        break;
      case EventKind.CountStart:
        startCounting(event.at);
        break;
      case EventKind.CountEnd:
        stopCounting(event.at);
        break;
      case EventKind.RequestAtSender:
        takeJoinSample(p, event.at);
        writeUnit(p);
        trySend(event.person, event.at);
        break;
      case EventKind.SegmentAtReceiver:
        onSegment(event.person, event.seq, event.at);
        break;
      case EventKind.AckAtSender:
        onAck(event.person, event.at, event.seq, event.sacks ?? [], event.duplicate ?? false);
        break;
      case EventKind.SenderTimer:
        onTimerEvent(event.person, event.at);
        break;
      case EventKind.RackTimer:
        if (event.generation === p.rackGeneration && detectLosses(event.person, event.at)) {
          if (p.state === 'open') enterRecovery(p, input.congestion);
          trySend(event.person, event.at);
        }
        break;
      case EventKind.DelayedAck:
        if (event.generation === p.delackGeneration && p.unacked > 0) sendAck(event.person, event.at, false);
        break;
      case EventKind.QueueSample:
        if (!counting) break;
        queueSamples.push(backlogBytes(event.at));
        events.push({ at: event.at + QUEUE_SAMPLE_SECONDS, kind: EventKind.QueueSample, person: 0, seq: 0, generation: 0 });
        break;
    }
  }
  return { steps: results };
}
