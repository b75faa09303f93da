// People whose copies go one request at a time (or a few) share a drop-tail
// bottleneck: a packet-level simulation of what their TCP senders do.
//
// Why a simulation. The cycle model in congestion.ts assumes senders whose
// windows fill the path and lose one segment per overflow. A person held by
// their copy pipeline is not that sender: each reply leaves the server as one
// unpaced burst of up to a window of segments (CUBIC does not pace without a
// pacing qdisc), and a queue shallower than a few people's bursts overflows
// when their bursts meet, however little the line carries on average. What
// happens then turns on the queue's order, not on averages. Measured in the
// WAN lab (52 Mb/s / 75 ms, a quarter-BDP queue of 81 packets, XP's 60 KB
// reads of 43 segments; packet captures on both sides and ss -ti,
// 2026-11-24):
//  - People who join a step log on while someone reads. A small reply that
//    arrives during that reader's burst leaves behind it, the next request
//    goes out just after the reader's, and so on: the newcomers' first reads
//    left the server 0.7-1.3 ms after the reader's burst in four runs of four.
//  - Their slow start then sees that burst's 10 ms in its RTT samples, and
//    CUBIC's HyStart ends it at 25-32 segments, under one reply: each read
//    takes two round trips (2.5-2.9 Mb/s against 5.7).
//  - The window climbs back about a segment per two reads and, near 40, the
//    round's burst behind the reader's overflows the queue: 0.7 of it, and
//    again. With HyStart off, four people moved 22.7 Mb/s; with it, 15.7-22.0.
// None of that has a closed form worth trusting; the rules each end follows
// do, and they are what this file runs. Which newcomers end up in step is
// chance: a run is one draw, and src/model/capacity.ts averages seeds.
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
//  - Loss detection is RACK (RFC 8985): a segment is lost once one sent after
//    it is delivered and a round trip (plus a quarter of the minimum RTT
//    until three segments are SACKed) has gone by. A lost tail is found by
//    the tail loss probe two smoothed RTTs after the last send (RFC 8985
//    section 7; 200 ms more when one segment is out), and by the
//    retransmission timeout (RFC 6298, at least 200 ms as Linux's minimum)
//    when the probe is lost too. A loss cuts the window once per round
//    trip; one repaired by the probe alone cuts it too (tcp_process_tlp_ack).
//  - CUBIC as tcp_cubic.c: beta 0.7, C 0.4, fast convergence, the
//    Reno-friendly estimate, its clock shifted by the time the sender idled
//    (cubictcp_cwnd_event, CA_EVENT_TX_START), and HyStart's delay test: from
//    a window of 16, slow start ends where the first eight RTT samples of a
//    round exceed the minimum by an eighth of it (4 to 16 ms). Growth as
//    tcp_cong_avoid_ai: credit piled up while growth was slow is spent one
//    segment at a time. Reno: beta 0.5, one segment per window.
//  - The window grows only while the sender is window-limited
//    (tcp_is_cwnd_limited: in slow start, below twice the most segments out
//    in the last window). A sender that leaves part of its window unused for
//    an RTO halves the unused part (RFC 2861, tcp_cwnd_application_limited),
//    but every ACK that may raise the window restarts that clock, so a
//    person who hears back each round trip keeps theirs.
// Named simplifications: during recovery the window is set to the new
// threshold at once (Linux's proportional rate reduction gets there over a
// round trip); HyStart's ACK-train test is left out (a reply's train is far
// shorter than the half RTT it looks for); the reverse path (requests,
// ACKs) never queues. The ends' own time per request was measured in the
// same captures (HOST_TURNAROUND): the client answers replies one at a time
// in the order they came, as one process driving everyone does.

import { median } from './stats.js';
import { seededRandom } from './workloads.js';

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
/**
 * A person's round trips before their first read, each with a small reply: the TCP handshake, SMB2 NEGOTIATE,
 * two SESSION_SETUPs, TREE_CONNECT, then CREATE, SET_INFO and CLOSE to size the file and CREATE to open it
 * (src/capacity/load-user.ts), and the size of such a reply on the wire.
 */
const JOIN_ROUND_TRIPS = 9;
const JOIN_REPLY_BYTES = 200;
/** Linux's delayed-ACK timer and minimum retransmission timeout (include/net/tcp.h: TCP_DELACK_MIN, TCP_RTO_MIN). */
const DELAYED_ACK_SECONDS = 0.04;
const MIN_RTO_SECONDS = 0.2;
/** CUBIC (RFC 9438 sections 4.6 and 5; tcp_cubic.c) and Reno (RFC 5681). */
const CUBIC_BETA = 0.7;
const CUBIC_C = 0.4;
const RENO_BETA = 0.5;
/** HyStart (tcp_cubic.c): from this window, on this many samples a round, an RTT this much above the minimum. */
const HYSTART_LOW_WINDOW = 16;
const HYSTART_SAMPLES = 8;
const HYSTART_DELAY_MIN = 0.004;
const HYSTART_DELAY_MAX = 0.016;
/**
 * The most data packets a run's line could carry (its warm-ups and counts are shortened to fit: about a
 * tenth of a second of work here), and a hard limit on events. A fast line's round trips are short, so
 * a shortened run still spans thousands of them.
 */
const MAX_PACKETS = 200_000;
const MAX_EVENTS = 2_000_000;
/** How often the queue is sampled for its mean. */
const QUEUE_SAMPLE_SECONDS = 0.001;

const SACKED = 1;
const LOST = 2;
const RETRANSMITTED = 4;

const enum EventKind {
  StepStart,
  JoinRequestAtSender,
  JoinReplyAtReceiver,
  CountStart,
  CountEnd,
  RequestAtSender,
  SegmentAtReceiver,
  AckAtSender,
  SenderTimer,
  RackTimer,
  DelayedAck,
  QueueSample,
}

interface SimEvent {
  readonly at: number;
  order: number;
  readonly kind: EventKind;
  readonly person: number;
  readonly seq: number;
  readonly generation: number;
  readonly sacks?: readonly number[];
  readonly duplicate?: boolean;
}

/** A binary min-heap on (at, order): events at the same instant run in the order they were made. */
class EventQueue {
  private readonly heap: SimEvent[] = [];
  private made = 0;
  get size(): number {
    return this.heap.length;
  }
  push(event: Omit<SimEvent, 'order'>): void {
    // The caller's fresh object takes its place in line; no copy per event.
    const item = event as SimEvent;
    item.order = this.made++;
    const heap = this.heap;
    heap.push(item);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(item, heap[parent] as SimEvent)) break;
      heap[index] = heap[parent] as SimEvent;
      index = parent;
    }
    heap[index] = item;
  }
  pop(): SimEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right] as SimEvent, heap[left] as SimEvent) ? right : left;
      if (!before(heap[child] as SimEvent, last)) break;
      heap[index] = heap[child] as SimEvent;
      index = child;
    }
    heap[index] = last;
    return top;
  }
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}

/** One person's data sender (the server for a read) with its TCP state, and the receiving end's. */
interface Person {
  // Sender: segments written by the application, next new one, first unacknowledged.
  written: number;
  next: number;
  una: number;
  sentAt: number[];
  wireBytes: number[];
  marks: number[];
  sackedOut: number;
  lostOut: number;
  retransOut: number;
  cwnd: number;
  ssthresh: number;
  state: 'open' | 'recovery' | 'loss';
  recoveryPoint: number;
  srtt: number;
  mdev: number;
  minRtt: number;
  /** CUBIC's own least RTT (delay_min), from every sample since the handshake, log-on included: HyStart measures from it. */
  delayMin: number;
  /** When the last log-on reply left, for the RTT sample its ACK (the next request) gives. */
  joinReplySentAt: number;
  rto: number;
  backoff: number;
  rackSentAt: number;
  rackRtt: number;
  /** The retransmission timer: when it is due (Infinity: not armed), whether it is the tail loss probe, and the time of the one event queued for it. */
  timerDue: number;
  timerProbe: boolean;
  timerQueuedAt: number;
  rackGeneration: number;
  tlpHighSeq: number;
  lastSendAt: number;
  // Window validation (tcp_cwnd_validate).
  cwndLimited: boolean;
  maxPacketsOut: number;
  cwndUsageSeq: number;
  cwndUsed: number;
  cwndStamp: number;
  // HyStart: the round's end, its lowest RTT sample so far and how many.
  roundEnd: number;
  roundRtt: number;
  roundSamples: number;
  // CUBIC.
  epochStart: number;
  lastMaxCwnd: number;
  cubicK: number;
  origin: number;
  friendlyCwnd: number;
  ackCount: number;
  cwndCount: number;
  // Receiver.
  rcvNext: number;
  outOfOrder: Set<number>;
  unacked: number;
  delackGeneration: number;
  unitEnds: number[];
  delivered: number;
}

function newPerson(initialWindow: number, rttSeconds: number): Person {
  const mdev = rttSeconds / 2;
  return {
    written: 0,
    next: 0,
    una: 0,
    sentAt: [],
    wireBytes: [],
    marks: [],
    sackedOut: 0,
    lostOut: 0,
    retransOut: 0,
    cwnd: initialWindow,
    ssthresh: Infinity,
    state: 'open',
    recoveryPoint: 0,
    // The handshake's round trip is the first sample (RFC 6298 section 2.2).
    srtt: rttSeconds,
    mdev,
    minRtt: rttSeconds,
    delayMin: Infinity,
    joinReplySentAt: -1,
    rto: rttSeconds + Math.max(4 * mdev, MIN_RTO_SECONDS),
    backoff: 1,
    rackSentAt: -Infinity,
    rackRtt: rttSeconds,
    timerDue: Infinity,
    timerProbe: false,
    timerQueuedAt: Infinity,
    rackGeneration: 0,
    tlpHighSeq: -1,
    lastSendAt: 0,
    cwndLimited: false,
    maxPacketsOut: 0,
    cwndUsageSeq: 0,
    cwndUsed: 0,
    cwndStamp: 0,
    roundEnd: 0,
    roundRtt: Infinity,
    roundSamples: 0,
    epochStart: 0,
    lastMaxCwnd: 0,
    cubicK: 0,
    origin: 0,
    friendlyCwnd: 0,
    ackCount: 0,
    cwndCount: 0,
    rcvNext: 0,
    outOfOrder: new Set(),
    unacked: 0,
    delackGeneration: 0,
    unitEnds: [],
    delivered: 0,
  };
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

/** Runs the people's copies over the shared bottleneck (see the top of this file). Deterministic for a seed. */
export function simulateSharedQueue(input: SharedQueueInput): SharedQueueResult {
  validateSharedQueueInput(input);
  const random = seededRandom(input.seed ?? 1);
  const rttSeconds = input.rttMs / 1000;
  const oneWay = rttSeconds / 2;
  const bytesPerSecond = input.lineBitsPerSecond / 8;
  const beta = input.congestion === 'cubic' ? CUBIC_BETA : RENO_BETA;
  const segmentsPerUnit = Math.ceil(input.unitBytes / input.segmentBytes);
  const lastSegmentBytes = input.unitBytes - (segmentsPerUnit - 1) * input.segmentBytes;
  const payloadPerUnit = input.payloadBytesPerUnit ?? input.unitBytes;
  // Long runs on fast lines are shortened, warm-up and count alike, to what MAX_PACKETS carry at the line rate.
  const packetsPerSecond = bytesPerSecond / (input.segmentBytes + input.packetOverheadBytes);
  const wanted = input.steps.length * (input.warmupSeconds + input.measureSeconds);
  const scale = Math.min(1, MAX_PACKETS / packetsPerSecond / wanted);
  const warmup = input.warmupSeconds * scale;
  const measure = input.measureSeconds * scale;
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
  const inFlight = (p: Person) => p.next - p.una - p.sackedOut - p.lostOut + p.retransOut;

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
    validateWindow(p, now, inFlight(p) >= p.cwnd, sent > 0);
    if (sent > 0) armSenderTimer(index, now);
  }

  /** tcp_cwnd_validate: whether this window was window-limited, and the unused window's decay. */
  function validateWindow(p: Person, now: number, limitedNow: boolean, sentAny: boolean): void {
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
      const used = Math.max(p.cwndUsed, input.initialWindowSegments);
      if (p.state === 'open' && used < p.cwnd) {
        p.ssthresh = Math.max(p.ssthresh, 0.75 * p.cwnd);
        p.cwnd = Math.floor((p.cwnd + used) / 2);
      }
      p.cwndUsed = 0;
      p.cwndStamp = now;
    }
  }

  function isWindowLimited(p: Person): boolean {
    if (p.cwndLimited) return true;
    return p.cwnd < p.ssthresh && p.cwnd < 2 * p.maxPacketsOut;
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
    const rto = p.rto * p.backoff;
    const probe = p.state === 'open' && p.tlpHighSeq < 0 ? Math.min(rto, 2 * p.srtt + (p.next - p.una === 1 ? MIN_RTO_SECONDS : 0.002)) : rto;
    p.timerDue = now + probe;
    p.timerProbe = probe < rto;
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

  /** A window cut for a loss: the congestion control's new threshold, and CUBIC's curve starts again from it. */
  function reduceWindow(p: Person): void {
    if (input.congestion === 'cubic') {
      p.epochStart = 0;
      p.lastMaxCwnd = p.cwnd < p.lastMaxCwnd ? (p.cwnd * (1 + CUBIC_BETA)) / 2 : p.cwnd;
    }
    p.ssthresh = Math.max(Math.floor(p.cwnd * beta), 2);
  }

  /** Fast recovery: one cut for the losses of this round trip; it ends when everything sent so far is acknowledged. */
  function enterRecovery(p: Person): void {
    reduceWindow(p);
    p.cwnd = p.ssthresh;
    p.cwndCount = 0;
    p.state = 'recovery';
    p.recoveryPoint = p.next;
    p.tlpHighSeq = -1;
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
    if (p.state !== 'loss') reduceWindow(p);
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
    trySend(index, now);
    armSenderTimer(index, now);
  }

  /** RACK: segments sent before one now delivered, and older than a round trip (and the reordering allowance), are lost. */
  function detectLosses(index: number, now: number): boolean {
    const p = people[index] as Person;
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
    if (wakeAt < Infinity) events.push({ at: wakeAt, kind: EventKind.RackTimer, person: index, seq: 0, generation: ++p.rackGeneration });
    return found;
  }

  function deliveredMark(p: Person, seq: number): number | undefined {
    const mark = p.marks[seq] as number;
    if ((mark & SACKED) !== 0) return undefined;
    if ((mark & LOST) !== 0) p.lostOut--;
    if ((mark & RETRANSMITTED) !== 0) p.retransOut--;
    return p.sentAt[seq] as number;
  }

  function onAck(index: number, now: number, cumulative: number, sacks: readonly number[], duplicate: boolean): void {
    const p = people[index] as Person;
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
    if (delivered > 0) {
      const sample = now - latestSentAt;
      p.mdev = 0.75 * p.mdev + 0.25 * Math.abs(sample - p.srtt);
      p.srtt = 0.875 * p.srtt + 0.125 * sample;
      p.minRtt = Math.min(p.minRtt, sample);
      p.delayMin = Math.min(p.delayMin, sample);
      p.rto = p.srtt + Math.max(4 * p.mdev, MIN_RTO_SECONDS);
      if (input.congestion === 'cubic' && p.state === 'open' && p.cwnd < p.ssthresh) hystart(p, sample);
      if (latestSentAt >= p.rackSentAt) {
        p.rackSentAt = latestSentAt;
        p.rackRtt = sample;
      }
    }
    // A tail loss probe that repaired a loss by itself is a loss too (no D-SACK: the original never arrived).
    if (p.tlpHighSeq >= 0 && p.una >= p.tlpHighSeq) {
      if (!duplicate && p.state === 'open') {
        reduceWindow(p);
        p.cwnd = Math.min(p.cwnd, p.ssthresh);
      }
      p.tlpHighSeq = -1;
    }
    if (detectLosses(index, now) && p.state === 'open') enterRecovery(p);
    if (p.state !== 'open' && p.una >= p.recoveryPoint) {
      if (p.state === 'recovery') p.cwnd = p.ssthresh;
      p.state = 'open';
    }
    if (p.state === 'open' && delivered > 0) {
      // tcp_cong_avoid stamps the window on every ACK that may raise it, grown or not: a sender that hears
      // back every round trip never sits an RTO "unused", and keeps its window (as ss -ti showed in the lab).
      p.cwndStamp = now;
      if (isWindowLimited(p)) grow(p, delivered, now);
    }
    if (p.state === 'loss' && delivered > 0) p.cwnd = Math.min(p.cwnd + delivered, Math.max(p.ssthresh, 2));
    trySend(index, now);
    if (advanced || delivered > 0) armSenderTimer(index, now);
  }

  /** HyStart's delay test (tcp_cubic.c hystart_update, HYSTART_DELAY). */
  function hystart(p: Person, sample: number): void {
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
  function grow(p: Person, acked: number, now: number): void {
    let left = acked;
    if (p.cwnd < p.ssthresh) {
      const room = Math.min(left, Math.ceil(p.ssthresh - p.cwnd));
      p.cwnd += room;
      left -= room;
      if (left <= 0) return;
    }
    let count = p.cwnd;
    if (input.congestion === 'cubic') count = cubicCount(p, left, now);
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
          if (p.state === 'open') enterRecovery(p);
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
