// What one SMB connection's client did, read from its messages in capture
// order: each request paired with its response by message id (MS-SMB2
// 3.2.5.1), the server's time for each, the credits it granted and the
// client held (3.2.4.1.2, 3.2.5.1.4), and for each open file it read or wrote
// the requests as the client issued them: their sizes, how many were in
// flight over time, and the metadata round trips around them. Memory is
// bounded whatever the capture's length: requests waiting for a response
// (at most the credits a server grants), files (MOST_FILES) and samples
// (BoundedSamples) are capped.

import { Command, Status } from '../smb/protocol.js';
import { BoundedSamples } from './bounded-samples.js';
import type { SmbMessage } from './smb-messages.js';
import type { FileCopySeen } from './file-copy-seen.js';
import { SealedExchanges } from './sealed-exchanges.js';

export interface CommandTimes {
  readonly command: number;
  readonly count: number;
  readonly medianMs: number;
  readonly p95Ms: number;
}

export interface SmbExchangesSeen {
  readonly dialect?: number;
  readonly messages: {
    readonly requests: number;
    readonly responses: number;
    readonly signed: number;
    readonly sealed: number;
    readonly compressed: number;
    readonly smb1: number;
  };
  readonly credits: {
    /** The most credits the server let the client hold at once (granted, less those spent and answered); known where the capture saw the connection from its first message. */
    readonly windowMax?: number;
    /** The most credits requests in flight held at once. */
    readonly inUseMax: number;
    /** The most one request asked for, and one response granted. */
    readonly requestedMax: number;
    readonly grantedMax: number;
  };
  readonly commands: readonly CommandTimes[];
  readonly copies: readonly FileCopySeen[];
  /** Responses with no request the capture saw (it started late), and requests never answered in it (it ended early). */
  readonly unmatchedResponses: number;
  readonly unansweredRequests: number;
  /** Files past MOST_FILES that were not followed. */
  readonly filesNotFollowed: number;
}

/** Window sizes timed; a window seen at more sizes than this is timed at those first seen only. */
const MOST_WINDOW_SIZES = 1024;
/** Stretches kept between two data requests. */
const MOST_STRETCHES = 256;

/** Files (opens) followed on one connection; past this, the rest are counted only. */
const MOST_FILES = 100_000;
/** Requests waiting for an answer: a server grants at most 8192 credits (Samba's default), a client rarely holds more. */
const MOST_PENDING = 65_536;
const RELATED_FILE_ID = 'f'.repeat(32);

interface Pending {
  readonly command: number;
  readonly charge: number;
  readonly sentSeconds: number;
  readonly frame: number;
  readonly fileId?: string;
  readonly dataLength?: number;
}

interface FileState {
  op?: 'read' | 'write';
  bytes: number;
  requests: number;
  sizes: Map<number, number>;
  largest: number;
  first: number;
  last: number;
  outstanding: number;
  outstandingBytes: number;
  maxInFlight: number;
  area: number;
  byteArea: number;
  /** Its time with none of its requests out while the connection carried no data request either: the client's own. */
  idle: number;
  /** The connection's idle clock when its last request was answered (SmbExchanges.idleClock). */
  idleMark?: number;
  lastEvent: number;
  metadataFrames: number;
  lastFrame: number;
  opened: boolean;
  closed: boolean;
  waitedSeconds: number;
  waitedByWindow: Map<number, number>;
}

const newFile = (): FileState => ({
  bytes: 0,
  requests: 0,
  sizes: new Map(),
  largest: 0,
  first: Number.POSITIVE_INFINITY,
  last: 0,
  outstanding: 0,
  outstandingBytes: 0,
  maxInFlight: 0,
  area: 0,
  byteArea: 0,
  idle: 0,
  lastEvent: 0,
  metadataFrames: 0,
  lastFrame: -1,
  opened: false,
  closed: false,
  waitedSeconds: 0,
  waitedByWindow: new Map(),
});

/** Moves a file's in-flight integrals on to `seconds` (never back: events of two directions can cross by a hair). */
function advance(file: FileState, seconds: number): void {
  if (file.outstanding > 0 && seconds > file.lastEvent) {
    file.area += file.outstanding * (seconds - file.lastEvent);
    file.byteArea += file.outstandingBytes * (seconds - file.lastEvent);
  }
  file.lastEvent = Math.max(file.lastEvent, seconds);
}

/** The value that stood for half the time or more, counting from the smallest. */
function weightedMedian(secondsByValue: ReadonlyMap<number, number>): number {
  const entries = [...secondsByValue.entries()].sort((a, b) => a[0] - b[0]);
  const half = entries.reduce((sum, [, seconds]) => sum + seconds, 0) / 2;
  let seen = 0;
  for (const [value, seconds] of entries) {
    seen += seconds;
    if (seen >= half) return value;
  }
  return entries.at(-1)?.[0] ?? 0;
}

export class SmbExchanges {
  private dialect: number | undefined;
  private readonly counts = { requests: 0, responses: 0, signed: 0, sealed: 0, compressed: 0, smb1: 0 };
  private readonly pending = new Map<bigint, Pending>();
  private readonly files = new Map<string, FileState>();
  private readonly times = new Map<number, BoundedSamples>();
  private readonly sealed = new SealedExchanges();
  /** Credits: whether the count starts at the connection's first message, what is available, and what requests hold. */
  private creditsKnown: boolean | undefined;
  private available = 0;
  private inUse = 0;
  private windowMax = 0;
  /** Seconds the window stood at each size while a data request waited for credits (bounded: MOST_WINDOW_SIZES sizes). */
  /** The stretches since the last data request: whether the next one waited in each is known when it goes. */
  private stretches: { seconds: number; window: number; available: number }[] = [];
  private dataOut = 0;
  /**
   * Seconds the connection had no data request out, summed, as of `idleTickAt`: a file's stretch with none of its
   * own out is the client's own pace only for the part of it this clock ran (robocopy /MT's files take turns on one
   * connection, and one file's turn is not the client idling for another).
   */
  private idleClock = 0;
  private idleTickAt: number | undefined;
  private lastSeconds: number | undefined;
  private inUseMax = 0;
  private requestedMax = 0;
  private grantedMax = 0;
  private requestFrames = 0;
  private unmatched = 0;
  private notFollowed = 0;

  /** One frame's messages, in capture order. */
  frame(messages: readonly SmbMessage[]): void {
    const frameNumber = messages[0]?.direction === 'request' ? this.requestFrames++ : -1;
    for (const message of messages) {
      if (message.sealed) {
        this.counts.sealed++;
        this.sealed.message(message);
        // What a sealed message spends and grants is hidden: from here the credits cannot be followed.
        this.creditsKnown = false;
      } else if (message.compressed) this.counts.compressed++;
      else if (message.smb1) this.counts.smb1++;
      if (message.command === undefined || message.messageId === undefined) continue;
      if (message.signed) this.counts.signed++;
      if (message.direction === 'request') this.request(message, frameNumber);
      else this.response(message);
    }
  }

  private fileOf(id: string | undefined): FileState | undefined {
    if (id === undefined || id === RELATED_FILE_ID) return undefined;
    let file = this.files.get(id);
    if (!file) {
      if (this.files.size >= MOST_FILES) {
        this.notFollowed++;
        return undefined;
      }
      file = newFile();
      this.files.set(id, file);
    }
    return file;
  }

  /** Times the window as it stood since the last message, where data requests were out. */
  private timeWindow(seconds: number): void {
    const last = this.lastSeconds;
    this.lastSeconds = Math.max(last ?? seconds, seconds);
    if (!this.creditsKnown || this.dataOut <= 0 || last === undefined || !(seconds > last)) return;
    const stretch = { seconds: seconds - last, window: this.available + this.inUse, available: this.available };
    // Bounded: past MOST_STRETCHES between two data requests, the last stretch grows.
    const previous = this.stretches.at(-1);
    if (this.stretches.length >= MOST_STRETCHES && previous) previous.seconds += stretch.seconds;
    else this.stretches.push(stretch);
  }

  /** Runs the idle clock on to `seconds` (data requests change their count only at such a moment). */
  private tickIdle(seconds: number): void {
    if (this.idleTickAt !== undefined && this.dataOut === 0 && seconds > this.idleTickAt) this.idleClock += seconds - this.idleTickAt;
    this.idleTickAt = Math.max(this.idleTickAt ?? seconds, seconds);
  }

  /** A data request of `charge` credits goes for `file`: the stretches since the last one where fewer were free, it waited in. */
  private dataRequestGoes(charge: number, file: FileState | undefined): void {
    for (const stretch of this.stretches) {
      if (!file || stretch.available >= charge) continue;
      file.waitedSeconds += stretch.seconds;
      if (file.waitedByWindow.has(stretch.window) || file.waitedByWindow.size < MOST_WINDOW_SIZES)
        file.waitedByWindow.set(stretch.window, (file.waitedByWindow.get(stretch.window) ?? 0) + stretch.seconds);
    }
    this.stretches = [];
  }

  private request(message: SmbMessage, frame: number): void {
    this.counts.requests++;
    this.timeWindow(message.firstSeconds);
    const { command = 0, messageId = 0n } = message;
    // The first message of a connection is NEGOTIATE with message id 0: from there the client's credits are known (it starts with one).
    if (this.creditsKnown === undefined) {
      this.creditsKnown = messageId === 0n && command === Command.negotiate;
      this.available = 1;
    }
    const charge = Math.max(1, message.creditCharge ?? 0);
    if (command === Command.read || command === Command.write) this.dataRequestGoes(charge, this.fileOf(message.fileId));
    this.available -= charge;
    this.inUse += charge;
    this.inUseMax = Math.max(this.inUseMax, this.inUse);
    this.requestedMax = Math.max(this.requestedMax, message.credits ?? 0);
    const data = command === Command.read || command === Command.write;
    if (data) this.tickIdle(message.firstSeconds);
    const file = this.fileOf(message.fileId);
    if (file && data && message.dataLength !== undefined) {
      advance(file, message.firstSeconds);
      if (file.requests > 0 && file.outstanding === 0 && file.idleMark !== undefined) file.idle += this.idleClock - file.idleMark;
      file.op ??= command === Command.read ? 'read' : 'write';
      file.requests++;
      file.outstanding++;
      file.outstandingBytes += message.dataLength;
      file.maxInFlight = Math.max(file.maxInFlight, file.outstanding);
      file.first = Math.min(file.first, message.firstSeconds);
      file.sizes.set(message.dataLength, (file.sizes.get(message.dataLength) ?? 0) + 1);
      file.largest = Math.max(file.largest, message.dataLength);
    } else if (file && !data && file.lastFrame !== frame) {
      file.metadataFrames++;
      file.lastFrame = frame;
      if (command === Command.close) file.closed = true;
    }
    if (this.pending.size >= MOST_PENDING) return;
    // Counted only where its answer can be matched: what is counted in is counted out.
    if (data) this.dataOut++;
    this.pending.set(messageId, {
      command,
      charge,
      sentSeconds: message.lastSeconds,
      frame,
      ...(message.fileId === undefined ? {} : { fileId: message.fileId }),
      ...(message.dataLength === undefined ? {} : { dataLength: message.dataLength }),
    });
  }

  private response(message: SmbMessage): void {
    this.counts.responses++;
    this.timeWindow(message.firstSeconds);
    const { messageId = 0n, command = 0, status = 0 } = message;
    const granted = message.credits ?? 0;
    this.available += granted;
    this.grantedMax = Math.max(this.grantedMax, granted);
    if (command === Command.negotiate && message.dialect !== undefined) this.dialect = message.dialect;
    // An interim response (STATUS_PENDING, 3.3.4.2) grants credits; the request stays in flight until its final one.
    if (message.async && status === Status.pending) return;
    const sent = this.pending.get(messageId);
    if (!sent) {
      this.unmatched++;
      return;
    }
    this.pending.delete(messageId);
    this.inUse -= sent.charge;
    if (this.creditsKnown) this.windowMax = Math.max(this.windowMax, this.available + this.inUse);
    let samples = this.times.get(sent.command);
    if (!samples) this.times.set(sent.command, (samples = new BoundedSamples()));
    samples.add((message.firstSeconds - sent.sentSeconds) * 1000);
    if (sent.command === Command.create && message.fileId !== undefined) {
      // The open this request frame made: its frame (and a compound's related queries and close) is a round trip of that file.
      const file = this.fileOf(message.fileId);
      if (file) {
        file.opened = true;
        if (file.lastFrame !== sent.frame) {
          file.metadataFrames++;
          file.lastFrame = sent.frame;
        }
      }
    }
    this.dataAnswered(sent, message);
  }

  private dataAnswered(sent: Pending, message: SmbMessage): void {
    if (sent.command !== Command.read && sent.command !== Command.write) return;
    this.tickIdle(message.lastSeconds);
    this.dataOut = Math.max(0, this.dataOut - 1);
    const file = this.fileOf(sent.fileId);
    if (!file || sent.dataLength === undefined) return;
    // Out until its answer has all arrived: a read's data still crossing the path is in flight (an 8 MiB answer's
    // first byte came 1.3 s before its last on the lab's 50 Mb/s link, and the copy read as 85 Mb/s).
    advance(file, message.lastSeconds);
    file.outstanding = Math.max(0, file.outstanding - 1);
    file.outstandingBytes = Math.max(0, file.outstandingBytes - sent.dataLength);
    if (file.outstanding === 0) file.idleMark = this.idleClock;
    file.last = Math.max(file.last, message.lastSeconds);
    // What moved: a read's data as the server sent it, a write's as the server took it.
    if (message.status === Status.success || message.status === Status.bufferOverflow) file.bytes += message.dataLength ?? 0;
  }

  result(): SmbExchangesSeen {
    const copies: FileCopySeen[] = [];
    for (const file of this.files.values()) {
      if (!file.op || file.bytes <= 0 || !(file.last > file.first)) continue;
      // In flight over the time the requests were watched: to the last event, past the last answer where some went unanswered.
      const span = Math.max(file.last, file.lastEvent) - file.first;
      let requestBytes = 0;
      let most = -1;
      for (const [size, count] of file.sizes) if (size * count > most) [requestBytes, most] = [size, size * count];
      copies.push({
        op: file.op,
        bytes: file.bytes,
        requests: file.requests,
        requestBytes,
        largestRequestBytes: file.largest,
        firstSeconds: file.first,
        lastSeconds: file.last,
        meanInFlight: file.area / span,
        idleFraction: Math.min(1, file.idle / span),
        maxInFlight: file.maxInFlight,
        meanBytesInFlight: file.byteArea / span,
        metadataRoundTrips: file.metadataFrames,
        opened: file.opened,
        closed: file.closed,
        unanswered: file.outstanding,
        ...(file.waitedByWindow.size > 0
          ? { heldWhileWaiting: weightedMedian(file.waitedByWindow), waitingFraction: Math.min(1, file.waitedSeconds / span) }
          : {}),
      });
    }
    const sealed = this.sealed.result();
    const commands = [...this.times.entries()]
      .map(([command, samples]) => ({ command, count: samples.count, medianMs: samples.quantile(0.5) ?? 0, p95Ms: samples.quantile(0.95) ?? 0 }))
      .sort((a, b) => a.command - b.command);
    return {
      ...(this.dialect === undefined ? {} : { dialect: this.dialect }),
      messages: { ...this.counts },
      credits: {
        ...(this.creditsKnown ? { windowMax: this.windowMax } : {}),
        inUseMax: this.inUseMax,
        requestedMax: this.requestedMax,
        grantedMax: this.grantedMax,
      },
      commands,
      copies: [...copies, ...sealed.copies].sort((a, b) => a.firstSeconds - b.firstSeconds),
      unmatchedResponses: this.unmatched,
      unansweredRequests: this.pending.size + sealed.unanswered,
      filesNotFollowed: this.notFollowed + sealed.notFollowed,
    };
  }
}
