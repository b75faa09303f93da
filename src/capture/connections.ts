// The TCP connections in a capture, each followed from its segments: who
// opened it (the client), the round trip its handshake took, the MSS and
// window scale each side offered, the windows each advertised (zero-window
// events among them) and what each direction sent again. A connection that
// carries SMB (its first payload starts as a Direct TCP frame does, or one
// does later, where the capture began mid-stream) is reassembled both ways
// and its messages go to an SmbExchanges. At most MOST_CONNECTIONS are
// followed; the rest are counted.

import { looksLikeFrameStart, SmbFramer } from './smb-frames.js';
import type { FramerCounts } from './smb-frames.js';
import { messagesOf } from './smb-messages.js';
import type { SmbMessage } from './smb-messages.js';
import { SmbExchanges } from './smb-exchanges.js';
import type { SmbExchangesSeen } from './smb-exchanges.js';
import type { StreamCounts } from './tcp-stream.js';
import type { WaitingBudget } from './tcp-stream.js';
import { MOST_WAITING_BYTES_IN_ALL, TcpDirection } from './tcp-stream.js';
import type { TcpSegment } from './tcp-packet.js';
import { TcpFlag } from './tcp-packet.js';

const MOST_CONNECTIONS = 4096;
/** Frames a connection holds back to hand on in time order; past this the oldest go on. */
const MOST_WAITING_FRAMES = 1024;
/** SMB's own ports (Direct TCP, and NetBIOS session service). */
const SMB_PORTS = new Set([445, 139]);
/** Payload segments a connection may carry before the first that starts an SMB frame; past them it is not SMB. */
const SEGMENTS_TO_FIND_SMB = 64;

export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

export interface SideSeen {
  /** The MSS and window scale its SYN offered. */
  readonly mss?: number;
  readonly windowScale?: number;
  /** The largest receive window it advertised (scaled where both sides agreed on scaling), and how often it advertised none. */
  readonly maxWindowBytes: number;
  readonly zeroWindows: number;
  /** What it sent: its stream's counts. */
  readonly sent: StreamCounts;
  readonly framing: FramerCounts;
}

export interface ConnectionSeen {
  readonly client: Endpoint;
  readonly server: Endpoint;
  /** SYN to the handshake's last ACK: one round trip wherever the capture was taken. */
  readonly handshakeRttMs?: number;
  /**
   * SYN to SYN-ACK: the round trip between the capture's point and the server (all of it at the client, none at
   * the server), which every exchange timed there includes beside the server's own time.
   */
  readonly toServerRttMs?: number;
  /** Whether the capture saw the connection open, and end. */
  readonly sawOpen: boolean;
  readonly sawEnd: boolean;
  readonly firstSeconds: number;
  readonly lastSeconds: number;
  readonly clientSide: SideSeen;
  readonly serverSide: SideSeen;
  readonly smb: SmbExchangesSeen;
}

/** The bytes that say whether a stream starts as a Direct TCP frame does (looksLikeFrameStart). */
const FRAME_START_BYTES = 8;

interface Side {
  readonly endpoint: Endpoint;
  readonly stream: TcpDirection;
  readonly framer: SmbFramer;
  /**
   * Its first segments while, together, they are too short to say whether a frame starts there (fewer than
   * FRAME_START_BYTES): go-smb2 sends each frame's 4-byte length in a segment of its own. Handed on if SMB is found.
   */
  short: { readonly seq: number; readonly payload: Buffer; readonly seconds: number }[];
  shortBytes: number;
  mss?: number;
  windowScale?: number;
  maxWindow: number;
  zeroWindows: number;
}

class Connection {
  readonly sides: [Side, Side];
  /** Which side is the client: the one that sent the SYN, else the one an SMB response did not come from. */
  clientIndex: 0 | 1 | undefined;
  smb: boolean | undefined;
  payloadSegments = 0;
  syn?: number;
  synAck?: number;
  handshakeAck?: number;
  sawEnd = false;
  first: number;
  last: number;
  readonly exchanges = new SmbExchanges();
  /** Frames read and not yet handed to the exchanges, in the order they ended. */
  private events: { seconds: number; messages: SmbMessage[] }[] = [];

  /** Hands on, in time order, every frame no frame still being read began before (all of them at the end). */
  applyEvents(all: boolean): void {
    const starts = this.sides.map((side) => side.framer.startedAt).filter((seconds): seconds is number => seconds !== undefined);
    const watermark = all ? Number.POSITIVE_INFINITY : Math.min(...starts, Number.POSITIVE_INFINITY);
    this.events.sort((a, b) => a.seconds - b.seconds);
    // Bounded: past MOST_WAITING_FRAMES, the oldest go on whatever is still being read.
    let ready = this.events.findIndex((event) => event.seconds > watermark);
    if (ready < 0) ready = this.events.length;
    ready = Math.max(ready, this.events.length - MOST_WAITING_FRAMES);
    for (const event of this.events.splice(0, ready)) this.exchanges.frame(event.messages);
  }

  /** Until the SYN or an SMB2 message says: the side not on SMB's port, else the one that sent first. */
  private readonly guessedClient: 0 | 1;

  constructor(
    a: Endpoint,
    b: Endpoint,
    seconds: number,
    private readonly waitingBudget: WaitingBudget,
  ) {
    this.first = seconds;
    this.last = seconds;
    this.sides = [this.side(a, 0), this.side(b, 1)];
    this.guessedClient = SMB_PORTS.has(a.port) && !SMB_PORTS.has(b.port) ? 1 : 0;
  }

  get client(): 0 | 1 {
    return this.clientIndex ?? this.guessedClient;
  }

  private side(endpoint: Endpoint, index: 0 | 1): Side {
    const framer = new SmbFramer((frame) => {
      const messages = messagesOf(frame, 'request');
      // Where the capture missed the SYN, the first SMB2 message says which way is the server's.
      const first = messages[0];
      if (this.clientIndex === undefined && first?.fromServer !== undefined) this.clientIndex = first.fromServer ? (index === 0 ? 1 : 0) : index;
      const direction: SmbMessage['direction'] = index === (this.clientIndex ?? this.guessedClient) ? 'request' : 'response';
      const ordered: SmbMessage[] = direction === 'request' ? messages : messages.map((message) => ({ ...message, direction }));
      // A request counts from its first byte, an answer from its last: frames end out of that order (an 8 MiB
      // answer ends after the next request began), so each waits until no frame still being read began before it.
      this.events.push({ seconds: direction === 'request' ? frame.firstSeconds : frame.lastSeconds, messages: ordered });
      this.applyEvents(false);
    });
    return { endpoint, stream: new TcpDirection(framer, this.waitingBudget), framer, short: [], shortBytes: 0, maxWindow: 0, zeroWindows: 0 };
  }
}

const keyOf = (a: Endpoint, b: Endpoint) => `${a.address}|${a.port}|${b.address}|${b.port}`;

export class ConnectionTracker {
  private readonly connections = new Map<string, Connection>();
  /** What every connection's streams hold waiting for a gap, against one limit. */
  private readonly waitingBudget: WaitingBudget = { bytes: 0, limit: MOST_WAITING_BYTES_IN_ALL };
  private notFollowed = 0;

  segment(segment: TcpSegment): void {
    const from = { address: segment.source, port: segment.sourcePort };
    const to = { address: segment.destination, port: segment.destinationPort };
    let connection = this.connections.get(keyOf(from, to)) ?? this.connections.get(keyOf(to, from));
    if (!connection) {
      if (this.connections.size >= MOST_CONNECTIONS) {
        this.notFollowed++;
        return;
      }
      connection = new Connection(from, to, segment.seconds, this.waitingBudget);
      this.connections.set(keyOf(from, to), connection);
    }
    const index: 0 | 1 = connection.sides[0].endpoint.address === from.address && connection.sides[0].endpoint.port === from.port ? 0 : 1;
    this.follow(connection, index, segment);
  }

  private follow(connection: Connection, index: 0 | 1, segment: TcpSegment): void {
    const side = connection.sides[index];
    const other = connection.sides[index === 0 ? 1 : 0];
    connection.last = Math.max(connection.last, segment.seconds);
    const { flags } = segment;
    if (flags & TcpFlag.syn) {
      side.stream.startAt(segment.seq);
      if (segment.mss !== undefined) side.mss = segment.mss;
      if (segment.windowScale !== undefined) side.windowScale = segment.windowScale;
      if (flags & TcpFlag.ack) connection.synAck ??= segment.seconds;
      else {
        connection.syn ??= segment.seconds;
        connection.clientIndex = index;
      }
    } else if (connection.synAck !== undefined && connection.handshakeAck === undefined && index === connection.clientIndex && flags & TcpFlag.ack) {
      connection.handshakeAck = segment.seconds;
    }
    if (flags & (TcpFlag.fin | TcpFlag.rst)) connection.sawEnd = true;
    if (flags & TcpFlag.fin) side.stream.finAt(segment.seq, segment.payloadLength);
    // What this side acknowledges of the other's stream and the capture never saw, it never will.
    if (flags & TcpFlag.ack && connection.smb) other.stream.acknowledged(segment.ack, segment.seconds);
    // Window scaling holds only where both SYNs offered it (RFC 7323 2.2); a SYN's own window is never scaled.
    const scale = !(flags & TcpFlag.syn) && side.windowScale !== undefined && other.windowScale !== undefined ? side.windowScale : 0;
    const window = segment.window * 2 ** scale;
    side.maxWindow = Math.max(side.maxWindow, window);
    if (segment.window === 0 && !(flags & (TcpFlag.syn | TcpFlag.rst | TcpFlag.fin))) side.zeroWindows++;
    if (segment.payloadLength <= 0) return;
    if (connection.smb === undefined && !this.foundSmb(connection, side, segment)) return;
    if (connection.smb) side.stream.segment(segment.seq, segment.payloadLength, segment.payload, segment.seconds);
  }

  /**
   * Whether `segment` shows the connection carries SMB: it starts a frame, or the side's first segments and it
   * together do. Found, the short segments held before it go on first, each side's in turn.
   */
  private foundSmb(connection: Connection, side: Side, segment: TcpSegment): boolean {
    connection.payloadSegments++;
    const joined = side.shortBytes > 0 ? Buffer.concat([...side.short.map((held) => held.payload), segment.payload]) : segment.payload;
    if (looksLikeFrameStart(segment.payload) || looksLikeFrameStart(joined)) {
      connection.smb = true;
      for (const each of connection.sides) {
        for (const held of each.short) each.stream.segment(held.seq, held.payload.length, held.payload, held.seconds);
        each.short = [];
        each.shortBytes = 0;
      }
      return true;
    }
    if (connection.payloadSegments >= SEGMENTS_TO_FIND_SMB) connection.smb = false;
    // Held while the side's first bytes are too few to tell; past that, what was held is no frame's start.
    const stillShort = joined.length < FRAME_START_BYTES;
    side.short = stillShort ? [...side.short, { seq: segment.seq, payload: Buffer.from(segment.payload), seconds: segment.seconds }] : [];
    side.shortBytes = stillShort ? joined.length : 0;
    return false;
  }

  /** The SMB connections seen, each finished (what waits for a gap handed on), in the order they began. */
  finish(): { connections: ConnectionSeen[]; notFollowed: number; otherConnections: number } {
    const seen: ConnectionSeen[] = [];
    let other = 0;
    for (const connection of this.connections.values()) {
      if (!connection.smb) {
        other++;
        continue;
      }
      for (const side of connection.sides) side.stream.finish();
      connection.applyEvents(true);
      const clientIndex = connection.client;
      const client = connection.sides[clientIndex];
      const server = connection.sides[clientIndex === 0 ? 1 : 0];
      const { syn, synAck, handshakeAck } = connection;
      seen.push({
        client: client.endpoint,
        server: server.endpoint,
        ...(syn !== undefined && handshakeAck !== undefined && handshakeAck >= syn ? { handshakeRttMs: (handshakeAck - syn) * 1000 } : {}),
        ...(syn !== undefined && synAck !== undefined && synAck >= syn ? { toServerRttMs: (synAck - syn) * 1000 } : {}),
        sawOpen: syn !== undefined,
        sawEnd: connection.sawEnd,
        firstSeconds: connection.first,
        lastSeconds: connection.last,
        clientSide: sideSeen(client),
        serverSide: sideSeen(server),
        smb: connection.exchanges.result(),
      });
    }
    return { connections: seen.sort((a, b) => a.firstSeconds - b.firstSeconds), notFollowed: this.notFollowed, otherConnections: other };
  }
}

function sideSeen(side: Side): SideSeen {
  return {
    ...(side.mss === undefined ? {} : { mss: side.mss }),
    ...(side.windowScale === undefined ? {} : { windowScale: side.windowScale }),
    maxWindowBytes: side.maxWindow,
    zeroWindows: side.zeroWindows,
    sent: { ...side.stream.counts },
    framing: { ...side.framer.counts },
  };
}
