// One run of the shared-queue simulation: the rules src/model/shared-queue-sim.ts
// sets out at its top, one method each, over one bottleneck, its people and
// their events. Apart from that file so each stays a size a person reads.

import { median } from './stats.js';
import type { SharedQueueInput, SharedQueueResult, SharedQueueStep } from './queue-sim/input.js';
import { HOST_TURNAROUND } from './queue-sim/input.js';
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

/**
 * One run of the simulation: the bottleneck, the people, the event queue and
 * what each counted interval saw. Its methods are the rules at the top of
 * this file, one each; run() steps through the events in time order.
 */
export class QueueRun {
  private readonly random: () => number;
  private readonly rttSeconds: number;
  private readonly oneWay: number;
  private readonly bytesPerSecond: number;
  private readonly segmentsPerUnit: number;
  private readonly lastSegmentBytes: number;
  private readonly payloadPerUnit: number;
  private readonly warmup: number;
  private readonly measure: number;
  private readonly events = new EventQueue();
  private readonly people: Person[] = [];
  private readonly results: SharedQueueStep[] = [];
  private linkFreeAt = 0;
  private counting = false;
  private countedSince = 0;
  private packetsCounted = 0;
  private dropsCounted = 0;
  private timeouts = 0;
  private queueSamples: number[] = [];
  private clientFreeAt = 0;

  constructor(private readonly input: SharedQueueInput) {
    this.random = seededRandom(input.seed ?? 1);
    this.rttSeconds = input.rttMs / 1000;
    this.oneWay = this.rttSeconds / 2;
    this.bytesPerSecond = input.lineBitsPerSecond / 8;
    this.segmentsPerUnit = Math.ceil(input.unitBytes / input.segmentBytes);
    this.lastSegmentBytes = input.unitBytes - (this.segmentsPerUnit - 1) * input.segmentBytes;
    this.payloadPerUnit = input.payloadBytesPerUnit ?? input.unitBytes;
    const { warmupSeconds, measureSeconds } = simulatedTimes(input);
    this.warmup = warmupSeconds;
    this.measure = measureSeconds;
  }

  private spread(side: { readonly minSeconds: number; readonly meanExcessSeconds: number }): number {
    return side.minSeconds - Math.log(1 - this.random()) * side.meanExcessSeconds;
  }

  /** When a request that the client decides to send at `now` reaches the server and the server starts to answer. */
  private requestServedAt(now: number): number {
    this.clientFreeAt = Math.max(now, this.clientFreeAt) + this.spread(HOST_TURNAROUND.client);
    return this.clientFreeAt + this.oneWay + this.spread(HOST_TURNAROUND.server);
  }

  private backlogBytes(now: number): number {
    return Math.max(0, this.linkFreeAt - now) * this.bytesPerSecond;
  }

  /** The bottleneck: drop-tail on the bytes waiting, else serialised after what is ahead and delivered a one-way delay later. */
  private transmit(index: number, seq: number, now: number): void {
    const p = this.people[index] as Person;
    const wire = p.wireBytes[seq] as number;
    if (this.counting) this.packetsCounted++;
    if (this.backlogBytes(now) + wire > this.input.bufferBytes) {
      if (this.counting) this.dropsCounted++;
      return;
    }
    this.linkFreeAt = Math.max(now, this.linkFreeAt) + wire / this.bytesPerSecond;
    this.events.push({ at: this.linkFreeAt + this.oneWay, kind: EventKind.SegmentAtReceiver, person: index, seq, generation: 0 });
  }

  private writeUnit(p: Person): void {
    for (let segment = 0; segment < this.segmentsPerUnit; segment++) {
      const payload = segment === this.segmentsPerUnit - 1 ? this.lastSegmentBytes : this.input.segmentBytes;
      p.wireBytes.push(payload + this.input.packetOverheadBytes);
      p.sentAt.push(-Infinity);
      p.marks.push(0);
    }
    p.written += this.segmentsPerUnit;
    p.unitEnds.push(p.written);
  }

  private send(index: number, seq: number, now: number, retransmission: boolean): void {
    const p = this.people[index] as Person;
    // A sender starting again with nothing out moves CUBIC's clock on by the time it idled (cubictcp_cwnd_event).
    if (inFlight(p) === 0 && p.epochStart > 0 && now > p.lastSendAt) p.epochStart = Math.min(now, p.epochStart + (now - p.lastSendAt));
    p.sentAt[seq] = now;
    p.lastSendAt = now;
    if (retransmission) {
      p.marks[seq] = (p.marks[seq] as number) | RETRANSMITTED;
      p.retransOut++;
    }
    this.transmit(index, seq, now);
  }

  private trySend(index: number, now: number): void {
    const p = this.people[index] as Person;
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
        this.send(index, seq, now, true);
      } else if (p.next < p.written) {
        this.send(index, p.next++, now, false);
      } else {
        break;
      }
      sent++;
    }
    validateWindow(p, now, inFlight(p) >= p.cwnd, sent > 0, this.input.initialWindowSegments);
    if (sent > 0) this.armSenderTimer(index, now);
  }

  /**
   * Re-arms the retransmission timer. Every ACK moves it on, so one event stays queued per person and, when it
   * comes early, queues itself again for the time now due: the event queue holds people, not every ACK's timer.
   */
  private armSenderTimer(index: number, now: number): void {
    const p = this.people[index] as Person;
    if (p.next === p.una) {
      p.timerDue = Infinity;
      return;
    }
    const timer = senderTimer(p);
    p.timerDue = now + timer.afterSeconds;
    p.timerProbe = timer.probe;
    if (p.timerDue < p.timerQueuedAt) {
      p.timerQueuedAt = p.timerDue;
      this.events.push({ at: p.timerDue, kind: EventKind.SenderTimer, person: index, seq: 0, generation: 0 });
    }
  }

  private onTimerEvent(index: number, now: number): void {
    const p = this.people[index] as Person;
    if (now !== p.timerQueuedAt) return;
    p.timerQueuedAt = Infinity;
    if (p.timerDue === Infinity) return;
    if (now < p.timerDue) {
      p.timerQueuedAt = p.timerDue;
      this.events.push({ at: p.timerDue, kind: EventKind.SenderTimer, person: index, seq: 0, generation: 0 });
      return;
    }
    p.timerDue = Infinity;
    this.onTimer(index, now, p.timerProbe);
  }

  private onTimer(index: number, now: number, probe: boolean): void {
    const p = this.people[index] as Person;
    if (p.next === p.una) return;
    if (probe) {
      // The tail loss probe: new data if there is some, else the last segment again; its ACK tells what was lost.
      if (p.next < p.written) this.send(index, p.next++, now, false);
      else if (((p.marks[p.next - 1] as number) & SACKED) === 0) this.send(index, p.next - 1, now, true);
      p.tlpHighSeq = p.next;
      this.armSenderTimer(index, now);
      return;
    }
    // Retransmission timeout: everything out and not SACKed is lost; start again from one segment.
    if (this.counting) this.timeouts++;
    if (p.state !== 'loss') reduceWindow(p, this.input.congestion);
    timeoutLosses(p);
    this.trySend(index, now);
    this.armSenderTimer(index, now);
  }

  /** RACK (loss-recovery.ts); where a segment is not due yet, its timer is queued. */
  private detectLosses(index: number, now: number): boolean {
    const p = this.people[index] as Person;
    const { found, wakeAt } = rackLosses(p, now);
    if (wakeAt < Infinity) this.events.push({ at: wakeAt, kind: EventKind.RackTimer, person: index, seq: 0, generation: ++p.rackGeneration });
    return found;
  }

  private onAck(index: number, now: number, cumulative: number, sacks: readonly number[], duplicate: boolean): void {
    const p = this.people[index] as Person;
    const { delivered, advanced, latestSentAt } = ackScoreboard(p, cumulative, sacks);
    if (delivered > 0) {
      const sample = now - latestSentAt;
      takeRttSample(p, sample, latestSentAt);
      if (this.input.congestion === 'cubic' && p.state === 'open' && p.cwnd < p.ssthresh) hystart(p, sample);
    }
    // A tail loss probe that repaired a loss by itself is a loss too (no D-SACK: the original never arrived).
    if (p.tlpHighSeq >= 0 && p.una >= p.tlpHighSeq) {
      if (!duplicate && p.state === 'open') {
        reduceWindow(p, this.input.congestion);
        p.cwnd = Math.min(p.cwnd, p.ssthresh);
      }
      p.tlpHighSeq = -1;
    }
    if (this.detectLosses(index, now) && p.state === 'open') enterRecovery(p, this.input.congestion);
    if (p.state !== 'open' && p.una >= p.recoveryPoint) {
      if (p.state === 'recovery') p.cwnd = p.ssthresh;
      p.state = 'open';
    }
    if (p.state === 'open' && delivered > 0) {
      // tcp_cong_avoid stamps the window on every ACK that may raise it, grown or not: a sender that hears
      // back every round trip never sits an RTO "unused", and keeps its window (as ss -ti showed in the lab).
      p.cwndStamp = now;
      if (isWindowLimited(p)) grow(p, delivered, now, this.input.congestion);
    }
    if (p.state === 'loss' && delivered > 0) p.cwnd = Math.min(p.cwnd + delivered, Math.max(p.ssthresh, 2));
    this.trySend(index, now);
    if (advanced || delivered > 0) this.armSenderTimer(index, now);
  }

  private sendAck(index: number, now: number, duplicate: boolean): void {
    const p = this.people[index] as Person;
    p.unacked = 0;
    p.delackGeneration++;
    const sacks = p.outOfOrder.size > 0 ? [...p.outOfOrder] : [];
    this.events.push({ at: now + this.oneWay, kind: EventKind.AckAtSender, person: index, seq: p.rcvNext, generation: 0, sacks, duplicate });
  }

  private requestUnit(index: number, now: number): void {
    this.events.push({
      at: this.requestServedAt(now) + (this.input.extraSecondsPerUnit ?? 0),
      kind: EventKind.RequestAtSender,
      person: index,
      seq: 0,
      generation: 0,
    });
  }

  /**
   * Logging on and opening the file: small exchanges, one round trip each, whose replies cross the same queue.
   * A reply that meets another person's burst leaves behind it, and so does every exchange after it: this is how
   * people who join find themselves in step with those already copying (seen in the lab, 2026-11-24: every
   * newcomer's first read left the server within 1.3 ms of the person already reading's next burst).
   */
  private joinRequest(index: number, now: number, left: number): void {
    this.events.push({ at: this.requestServedAt(now), kind: EventKind.JoinRequestAtSender, person: index, seq: left, generation: 0 });
  }

  private joinReply(index: number, now: number, left: number): void {
    if (this.backlogBytes(now) + JOIN_REPLY_BYTES > this.input.bufferBytes) {
      // Lost: the sender tries again after its retransmission timeout.
      this.events.push({ at: now + (this.people[index] as Person).rto, kind: EventKind.JoinRequestAtSender, person: index, seq: left, generation: 0 });
      return;
    }
    (this.people[index] as Person).joinReplySentAt = now;
    this.linkFreeAt = Math.max(now, this.linkFreeAt) + JOIN_REPLY_BYTES / this.bytesPerSecond;
    this.events.push({ at: this.linkFreeAt + this.oneWay, kind: EventKind.JoinReplyAtReceiver, person: index, seq: left, generation: 0 });
  }

  /**
   * The request after a log-on reply carries that reply's ACK: an RTT sample for the server's CUBIC, queueing
   * included. People who log on in step with a reader's burst from their first exchange take its delay as
   * the path's, and HyStart then lets their slow start run: our reading of the lab's four-person runs in
   * which nobody was slowed (about one in four), not one we captured.
   */
  private takeJoinSample(p: Person, now: number): void {
    if (p.joinReplySentAt < 0) return;
    p.delayMin = Math.min(p.delayMin, now - p.joinReplySentAt);
    p.joinReplySentAt = -1;
  }

  private onSegment(index: number, seq: number, now: number): void {
    const p = this.people[index] as Person;
    if (seq < p.rcvNext || p.outOfOrder.has(seq)) {
      this.sendAck(index, now, true);
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
      if (this.counting) p.delivered += this.payloadPerUnit;
      this.requestUnit(index, now);
    }
    p.unacked++;
    if (immediate || completed || p.unacked >= 2) {
      this.sendAck(index, now, false);
    } else if (p.unacked === 1) {
      this.events.push({ at: now + DELAYED_ACK_SECONDS, kind: EventKind.DelayedAck, person: index, seq: 0, generation: ++p.delackGeneration });
    }
  }

  private startCounting(now: number): void {
    this.counting = true;
    this.countedSince = now;
    this.packetsCounted = 0;
    this.dropsCounted = 0;
    this.timeouts = 0;
    this.queueSamples = [];
    for (const p of this.people) p.delivered = 0;
    this.events.push({ at: now, kind: EventKind.QueueSample, person: 0, seq: 0, generation: 0 });
  }

  private stopCounting(now: number): void {
    this.counting = false;
    const seconds = Math.max(1e-9, now - this.countedSince);
    const perPerson = this.people.map((p) => (p.delivered * 8) / seconds);
    this.results.push({
      people: this.people.length,
      aggregateBitsPerSecond: perPerson.reduce((sum, rate) => sum + rate, 0),
      perPersonBitsPerSecond: perPerson,
      meanQueueBytes: this.queueSamples.length > 0 ? this.queueSamples.reduce((sum, bytes) => sum + bytes, 0) / this.queueSamples.length : 0,
      medianQueueBytes: this.queueSamples.length > 0 ? median(this.queueSamples) : 0,
      dropShare: this.packetsCounted > 0 ? this.dropsCounted / this.packetsCounted : 0,
      timeouts: this.timeouts,
    });
  }

  /** Each step: its new people start together (each after their own turn-around), the warm-up, then the count. */
  run(): SharedQueueResult {
    for (const [index, target] of this.input.steps.entries()) {
      const stepStart = index * (this.warmup + this.measure);
      this.events.push({ at: stepStart, kind: EventKind.StepStart, person: target, seq: 0, generation: 0 });
      this.events.push({ at: stepStart + this.warmup, kind: EventKind.CountStart, person: 0, seq: 0, generation: 0 });
      this.events.push({ at: stepStart + this.warmup + this.measure, kind: EventKind.CountEnd, person: 0, seq: 0, generation: 0 });
    }

    let handled = 0;
    for (let event = this.events.pop(); event !== undefined && this.results.length < this.input.steps.length; event = this.events.pop()) {
      if (++handled > MAX_EVENTS) {
        // A safety net, not a path taken: MAX_PACKETS keeps a run well inside it.
        if (this.counting) this.stopCounting(event.at);
        break;
      }
      const p = this.people[event.person] as Person;
      switch (event.kind) {
        case EventKind.StepStart: {
          // The this.people a step adds start together, at a moment that bears no relation to where the others are in
          // their round trips (logging on and laying down files takes as long as it takes).
          const joinAt =
            event.at +
            this.random() * (this.rttSeconds + (this.segmentsPerUnit * (this.input.segmentBytes + this.input.packetOverheadBytes)) / this.bytesPerSecond);
          while (this.people.length < event.person) {
            this.people.push(newPerson(this.input.initialWindowSegments, this.rttSeconds));
            this.joinRequest(this.people.length - 1, joinAt, JOIN_ROUND_TRIPS);
          }
          break;
        }
        case EventKind.JoinRequestAtSender:
          this.takeJoinSample(p, event.at);
          this.joinReply(event.person, event.at, event.seq);
          break;
        case EventKind.JoinReplyAtReceiver:
          if (event.seq > 1) {
            this.joinRequest(event.person, event.at, event.seq - 1);
          } else {
            for (let unit = 0; unit < this.input.unitsInFlight; unit++) this.requestUnit(event.person, event.at);
          }
          break;
        case EventKind.CountStart:
          this.startCounting(event.at);
          break;
        case EventKind.CountEnd:
          this.stopCounting(event.at);
          break;
        case EventKind.RequestAtSender:
          this.takeJoinSample(p, event.at);
          this.writeUnit(p);
          this.trySend(event.person, event.at);
          break;
        case EventKind.SegmentAtReceiver:
          this.onSegment(event.person, event.seq, event.at);
          break;
        case EventKind.AckAtSender:
          this.onAck(event.person, event.at, event.seq, event.sacks ?? [], event.duplicate ?? false);
          break;
        case EventKind.SenderTimer:
          this.onTimerEvent(event.person, event.at);
          break;
        case EventKind.RackTimer:
          if (event.generation === p.rackGeneration && this.detectLosses(event.person, event.at)) {
            if (p.state === 'open') enterRecovery(p, this.input.congestion);
            this.trySend(event.person, event.at);
          }
          break;
        case EventKind.DelayedAck:
          if (event.generation === p.delackGeneration && p.unacked > 0) this.sendAck(event.person, event.at, false);
          break;
        case EventKind.QueueSample:
          if (!this.counting) break;
          this.queueSamples.push(this.backlogBytes(event.at));
          this.events.push({ at: event.at + QUEUE_SAMPLE_SECONDS, kind: EventKind.QueueSample, person: 0, seq: 0, generation: 0 });
          break;
      }
    }
    return { steps: this.results };
  }
}
