// One person's TCP state in the simulation: the data sender's (the server
// for a read: its scoreboard, window, timers, RACK and CUBIC state) and the
// receiving end's, with the marks a segment carries on the scoreboard.

/** A segment's marks on the sender's scoreboard (SACK, RFC 2018; RACK, RFC 8985). */
export const SACKED = 1;
export const LOST = 2;
export const RETRANSMITTED = 4;

/** Linux's minimum retransmission timeout (include/net/tcp.h: TCP_RTO_MIN). */
export const MIN_RTO_SECONDS = 0.2;

/** One person's data sender (the server for a read) with its TCP state, and the receiving end's. */
export interface Person {
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

export function newPerson(initialWindow: number, rttSeconds: number): Person {
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

/** Segments out and not yet known delivered or lost (tcp_packets_in_flight). */
export const inFlight = (p: Person) => p.next - p.una - p.sackedOut - p.lostOut + p.retransOut;
