// Bandwidth of the path to the file server. With an iperf3 server: an iperf3
// client test through Pipefill's libiperf binding, or the `iperf3 -J`
// executable where the binding cannot load. Without one: Pipefill's own
// deepest SMB read pipeline, timed over a few seconds. The result says which
// method (and which iperf3) produced the figure.

import { spawn } from 'node:child_process';
import { MIB } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { PipefillError } from '../model/errors.js';
import { pipelineFor } from '../smb/drivers.js';
import { cancelledError } from '../smb/errors.js';
import { Access, CreateOption, Disposition } from '../smb/messages.js';
import { PatternSource } from '../smb/pattern.js';
import { removeStaleScratch, ScratchFolder } from '../smb/scratch.js';
import type { SmbCredentials, SmbTarget } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { TimelineRecorder } from '../smb/timeline.js';
import { transferFile } from '../smb/transfer.js';
import type { NativeIperf } from './iperf3-native.js';
import { loadNativeIperf } from './iperf3-native.js';

export type BandwidthMethod = 'iperf3' | 'smb-read';
export type IperfImplementation = 'libiperf' | 'iperf3-executable';

export const IPERF_DEFAULT_PORT = 5201;

export interface BandwidthResult {
  readonly mbps: number;
  readonly method: BandwidthMethod;
  /** Server to client (what a read sees). */
  readonly direction: 'download' | 'upload';
  readonly seconds: number;
  readonly retransmits?: number;
  /** Retransmitted segments over segments sent: a loss estimate where TCP reports it. */
  readonly lossPercent?: number;
  readonly congestion?: string;
  /** Which iperf3 ran the test, for method 'iperf3'. */
  readonly via?: IperfImplementation;
  /** Why a faster or more direct method was not used. */
  readonly fallbackReason?: string;
  /** For iperf3: the mean over the test after its omitted start, or the median of the short intervals of its second half (see steadyRate). */
  readonly estimate?: BandwidthEstimate;
  /** TCP connections the reads went on at once (the SMB read fallback); absent: one. */
  readonly streams?: number;
}

/**
 * How an iperf3 test becomes one figure. `mean`: iperf3's own average after
 * the omitted ramp. `steady`: a short test with no omit, read as the median
 * of its 0.1 s intervals over the second half (steadyRate).
 */
export type BandwidthEstimate = 'mean' | 'steady';

export interface IperfOptions {
  readonly host: string;
  readonly port?: number;
  readonly seconds?: number;
  /** Seconds left out at the start, so TCP's ramp does not count (default 1). */
  readonly omitSeconds?: number;
  /** Download (server sends), as a read does. */
  readonly reverse?: boolean;
  readonly streams?: number;
  readonly estimate?: BandwidthEstimate;
  readonly signal?: AbortSignal;
}

interface IperfInterval {
  readonly sum?: { readonly start: number; readonly end: number; readonly bits_per_second: number; readonly omitted?: boolean };
}

interface IperfJson {
  readonly error?: string;
  readonly intervals?: readonly IperfInterval[];
  readonly end?: {
    readonly sum_received?: { readonly bits_per_second: number; readonly seconds: number; readonly bytes: number };
    readonly sum_sent?: { readonly retransmits?: number; readonly bytes: number };
    readonly sender_tcp_congestion?: string;
  };
}

/** Short intervals of a steady test: 0.1 s, iperf3's least, a few round trips of most WAN paths. */
export const STEADY_INTERVAL_SECONDS = 0.1;
/** The fewest intervals the steady median is taken over; with fewer, the test's mean stands. */
const STEADY_MIN_INTERVALS = 5;

/**
 * The rate a flow delivers once TCP's ramp is over, from a test's short
 * intervals: the median of those that start in the test's second half.
 * Why the median of the second half and not a mean after an omitted second:
 * on a long path slow start overshoots the bottleneck's queue, and the
 * recovery that follows delivers in bursts (intervals at twice the line,
 * then near nothing, as the receiver hands over what waited behind a hole);
 * once that is over every interval carries the line's rate. Measured on the
 * WAN lab (2026-11-23, 2 s tests, 0.1 s intervals): 52 Mb/s / 75 ms steady
 * from 1.2 s, 80 / 45 from 0.7 s, 155 / 32 from 0.6 s, each then within 4%
 * from interval to interval; the medians of the second halves 50, 77 and
 * 150 Mb/s (the line less its TCP/IP headers), against 51.2, 77.2 and 149.6
 * from the 3 s means after a 1 s omit that took 2 s longer. A median is
 * not moved by the one or two burst intervals that land in the second half.
 * Undefined when fewer than STEADY_MIN_INTERVALS are there.
 */
export function steadyRate(intervals: readonly { readonly start: number; readonly end: number; readonly bitsPerSecond: number }[]): number | undefined {
  // iperf3's JSON, checked: numbers only, each interval a real span of time.
  const measured = intervals.filter(
    (interval) =>
      Number.isFinite(interval.start) &&
      Number.isFinite(interval.end) &&
      interval.end > interval.start &&
      Number.isFinite(interval.bitsPerSecond) &&
      interval.bitsPerSecond >= 0,
  );
  if (measured.length === 0) return undefined;
  const first = Math.min(...measured.map((interval) => interval.start));
  const last = Math.max(...measured.map((interval) => interval.end));
  const half = first + (last - first) / 2;
  const rates = measured
    .filter((interval) => interval.start >= half - 1e-6)
    .map((interval) => interval.bitsPerSecond)
    .sort((a, b) => a - b);
  if (rates.length < STEADY_MIN_INTERVALS) return undefined;
  const middle = Math.floor(rates.length / 2);
  return rates.length % 2 === 1 ? (rates[middle] ?? 0) : ((rates[middle - 1] ?? 0) + (rates[middle] ?? 0)) / 2;
}

/** Parses iperf3's JSON; pure, for testing without a server. */
export function parseIperfJson(text: string, reverse: boolean, estimate: BandwidthEstimate = 'mean'): BandwidthResult {
  let result: IperfJson;
  try {
    result = JSON.parse(text) as IperfJson;
  } catch (error) {
    throw new PipefillError('probe-failed', 'iperf3 printed something that is not JSON.', 'Is the installed iperf3 at least 3.1?', { cause: error });
  }
  if (result.error) throw new PipefillError('probe-failed', `iperf3: ${result.error}.`, 'Check that an iperf3 server listens on that host and port.');
  const received = result.end?.sum_received;
  if (!received) throw new PipefillError('probe-failed', 'iperf3 reported no received total.', 'Run the test again.');
  const retransmits = result.end?.sum_sent?.retransmits;
  const sentBytes = result.end?.sum_sent?.bytes ?? 0;
  const segments = sentBytes / 1448;
  const intervals = (result.intervals ?? []).flatMap((interval) =>
    interval.sum && !interval.sum.omitted ? [{ start: interval.sum.start, end: interval.sum.end, bitsPerSecond: interval.sum.bits_per_second }] : [],
  );
  const steady = estimate === 'steady' ? steadyRate(intervals) : undefined;
  return {
    mbps: (steady ?? received.bits_per_second) / 1e6,
    method: 'iperf3',
    direction: reverse ? 'download' : 'upload',
    seconds: received.seconds,
    estimate: steady === undefined ? 'mean' : 'steady',
    ...(retransmits === undefined ? {} : { retransmits, lossPercent: segments > 0 ? (retransmits / segments) * 100 : 0 }),
    ...(result.end?.sender_tcp_congestion ? { congestion: result.end.sender_tcp_congestion } : {}),
  };
}

const CONNECT_TIMEOUT_MS = 5_000;
/** The path's rate, not TCP's ramp to it: iperf3 leaves the first second out. */
const DEFAULT_OMIT_SECONDS = 1;
/** Beyond its own duration, how long an iperf3 test may take before it is stopped. */
const SET_UP_ALLOWANCE_S = 15;

/**
 * An iperf3 client test: through the libiperf binding where it loads (a
 * worker thread, cancel shuts the test down), else the executable (cancel
 * kills it).
 */
export async function iperf3Bandwidth(options: IperfOptions, native: NativeIperf = loadNativeIperf()): Promise<BandwidthResult> {
  if (!native.available) return { ...(await iperf3Executable(options)), fallbackReason: native.reason };
  const { seconds, omitSeconds, intervalSeconds, estimate } = testShape(options);
  const reverse = options.reverse !== false;
  const guard = new AbortController();
  const timer = setTimeout(() => guard.abort(), (seconds + omitSeconds + SET_UP_ALLOWANCE_S) * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, guard.signal]) : guard.signal;
  try {
    const result = await native.run(
      {
        host: options.host,
        port: options.port ?? IPERF_DEFAULT_PORT,
        seconds,
        omitSeconds,
        reverse,
        streams: options.streams ?? 1,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        ...(intervalSeconds ? { intervalSeconds } : {}),
      },
      signal,
    );
    if (options.signal?.aborted) throw cancelledError();
    if (result.cancelled)
      throw new PipefillError(
        'probe-failed',
        `iperf3 did not finish within ${seconds + SET_UP_ALLOWANCE_S} s.`,
        'Check that the iperf3 server is not busy with another test.',
      );
    if (result.json === undefined)
      throw new PipefillError('probe-failed', `iperf3: ${result.error ?? 'no result'}.`, 'Check that an iperf3 server listens on that host and port.');
    return { ...parseIperfJson(result.json, reverse, estimate), via: 'libiperf' };
  } finally {
    clearTimeout(timer);
  }
}

/** A test's length, omitted start and interval: a steady estimate reads its own ramp out of short intervals, so it omits nothing. */
function testShape(options: IperfOptions): { seconds: number; omitSeconds: number; intervalSeconds?: number; estimate: BandwidthEstimate } {
  const estimate = options.estimate ?? 'mean';
  const seconds = options.seconds ?? 5;
  if (estimate === 'steady') return { seconds, omitSeconds: options.omitSeconds ?? 0, intervalSeconds: STEADY_INTERVAL_SECONDS, estimate };
  return { seconds, omitSeconds: options.omitSeconds ?? DEFAULT_OMIT_SECONDS, estimate };
}

/** An iperf3 client test through the executable; cancel kills it. */
function iperf3Executable(options: IperfOptions): Promise<BandwidthResult> {
  const { seconds, omitSeconds, intervalSeconds, estimate } = testShape(options);
  const args = [
    '-c',
    options.host,
    '-p',
    String(options.port ?? IPERF_DEFAULT_PORT),
    '-t',
    String(seconds),
    '-O',
    String(omitSeconds),
    '-J',
    '-P',
    String(options.streams ?? 1),
    ...(intervalSeconds ? ['-i', String(intervalSeconds)] : []),
    ...(options.reverse === false ? [] : ['-R']),
  ];
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(cancelledError());
      return;
    }
    const child = spawn('iperf3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const onAbort = () => child.kill('SIGKILL');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // iperf3 runs `seconds` plus set-up; a stuck one is killed.
    const guard = setTimeout(() => child.kill('SIGKILL'), (seconds + omitSeconds + SET_UP_ALLOWANCE_S) * 1000);
    child.once('error', (error) => {
      clearTimeout(guard);
      reject(
        new PipefillError('probe-failed', `Cannot run iperf3: ${error.message}.`, 'Install iperf3 (apt-get install iperf3), or probe without --iperf.', {
          cause: error,
        }),
      );
    });
    child.once('close', () => {
      clearTimeout(guard);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) {
        reject(cancelledError());
        return;
      }
      try {
        resolve({ ...parseIperfJson(stdout, options.reverse !== false, estimate), via: 'iperf3-executable' });
      } catch (error) {
        reject(error);
      }
    });
  });
}

export interface SmbReadOptions {
  readonly seconds?: number;
  /** TCP connections (each its own session) the reads go on; 1 where one already fills the path (a LAN, loopback). */
  readonly connections?: number;
  readonly signal?: AbortSignal;
}

/**
 * Connections the reads go on over a network path. One connection's reads
 * are held by what holds one copy (its TCP ramp, its credits), which is the
 * model's to find, not the line's: a CUBIC sender that left slow start early
 * read 622 Mb/s at 150 ms as 493-565 Mb/s on one connection and 600 on two,
 * against a 595 Mb/s payload limit; four overfilled 155 Mb/s at 150 ms
 * (128-149 Mb/s, two 149) (lab, 4 s each, 2026-11-26).
 */
export const SMB_READ_CONNECTIONS = 2;

/** The file read again and again; big enough that a read is mostly data, small enough to write quickly. */
const PROBE_FILE_BYTES = 16 * MIB;

/** One whole-file read of the probe: when its first and last replies were taken in (ms), and their payload. */
export interface ReadSpan {
  readonly firstMs: number;
  readonly lastMs: number;
  readonly firstBytes: number;
  readonly bytes: number;
}

/**
 * The payload rate a copy can reach, from the probe's reads: what arrived
 * after each read's first reply up to its last, over that time. The first
 * read is TCP's ramp and is left out where later reads exist; the gap between
 * two reads (one round trip: the last reply, then the next read's first
 * request) is the probe's own pacing, not the path's, and a mean over the
 * whole run counted it (a 100 Mb/s, 40 ms link read 87 Mb/s where one copy
 * then moved 92.5). A single read (a slow link, where one read fills the
 * seconds given) is taken whole: its ramp is short beside it. Only a read's
 * ends are used: replies that wait in the socket buffer while the process is
 * busy are taken in late and in a bunch, which shifts bytes within a read
 * (a rate over its second half read a 40 Mb/s line as 51) but never moves
 * its last reply earlier. Undefined when nothing can be read from the spans.
 */
export function steadyReadRate(spans: readonly ReadSpan[]): number | undefined {
  const usable = spans.filter((span) => span.lastMs > span.firstMs && span.bytes > span.firstBytes);
  const steady = spans.length > 1 ? usable.filter((span) => span !== spans[0]) : usable;
  if (steady.length === 0) return undefined;
  const bytes = steady.reduce((sum, span) => sum + span.bytes - span.firstBytes, 0);
  const ms = steady.reduce((sum, span) => sum + span.lastMs - span.firstMs, 0);
  return (bytes * 8) / (ms / 1000);
}

/** Every reply's arrival, across readers: the rate of a stream of reads that keeps the path busy (rateSince). */
export class ArrivalLog {
  private readonly arrivals: { readonly ms: number; readonly bytes: number }[] = [];

  add(ms: number, bytes: number): void {
    this.arrivals.push({ ms, bytes });
  }

  get bytes(): number {
    return this.arrivals.reduce((sum, arrival) => sum + arrival.bytes, 0);
  }

  /**
   * Bits per second from the second reply after `fromMs` (its own bytes and
   * the first reply's left out) to the last one; undefined with fewer than
   * three. The replies just after a second reader joins are taken in late:
   * the process is busy starting it. In the lab's 155 Mb/s, 150 ms link the
   * first of them came 150 ms late and the next on time (4 MiB every 224 ms),
   * and a rate from the first read the link 11% fast (165 against 150).
   */
  rateSince(fromMs: number): number | undefined {
    return this.rateBetween(fromMs, Infinity);
  }

  /**
   * Bits per second between `fromMs` and `toMs` as the slope of a least-squares
   * line through the bytes taken in so far at each reply: replies the process
   * took in late and in a bunch (eight readers on one event loop) move a few
   * points of the line, where a rate from the first and last replies moves
   * with them (622 Mb/s, 150 ms: 554-630 Mb/s from the ends, above the line's
   * 595). Undefined with fewer than three replies.
   */
  slopeBetween(fromMs: number, toMs: number): number | undefined {
    const inside = this.arrivals.filter((arrival) => arrival.ms > fromMs && arrival.ms <= toMs);
    if (inside.length < 3) return undefined;
    let total = 0;
    const points = inside.map((arrival) => ({ x: arrival.ms, y: (total += arrival.bytes) }));
    const meanX = points.reduce((sum, point) => sum + point.x, 0) / points.length;
    const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
    const sxx = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0);
    const sxy = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0);
    return sxx > 0 ? (sxy / sxx) * 8 * 1000 : undefined;
  }

  /** As rateSince, counting only the replies taken in up to `toMs` (the stream's end, before the readers' last reads drain). */
  rateBetween(fromMs: number, toMs: number): number | undefined {
    const after = this.arrivals.filter((arrival) => arrival.ms > fromMs && arrival.ms <= toMs);
    const origin = after[1];
    const last = after[after.length - 1];
    if (!origin || !last || after.length < 3 || !(last.ms > origin.ms)) return undefined;
    const bytes = after.slice(2).reduce((sum, arrival) => sum + arrival.bytes, 0);
    return (bytes * 8) / ((last.ms - origin.ms) / 1000);
  }
}

/** A timeline that also keeps when its first and last replies were taken in, so a transfer's span can be read off (steadyReadRate). */
export class SpanRecorder extends TimelineRecorder {
  private first: { ms: number; bytes: number } | undefined;
  private lastMs = 0;

  constructor(private readonly log?: ArrivalLog) {
    super();
  }

  override record(bytes: number): void {
    super.record(bytes);
    const now = performance.now();
    this.first ??= { ms: now, bytes };
    this.lastMs = now;
    this.log?.add(now, bytes);
  }

  span(): ReadSpan | undefined {
    return this.first ? { firstMs: this.first.ms, lastMs: this.lastMs, firstBytes: this.first.bytes, bytes: this.bytes } : undefined;
  }
}

/** A second reader joins a connection only with at least this long left to read the stream over (smbReadBandwidth). */
const SECOND_READER_LEAST_MS = 500;

/** The largest reply the reads over several connections ask for (smbReadBandwidth). */
const STREAM_REPLY_BYTES = 256 * 1024;

/** One connection of the probe: its session and the probe file open on it. */
interface ReadConnection {
  readonly session: SmbSession;
  readonly fileId: Buffer;
}

/**
 * Reads one scratch file over and over with Pipefill's deepest pipeline for
 * about `seconds`, on `connections` connections at once, and reports the
 * payload rate those reads reached together (steadyReadRate for one read on
 * one connection; otherwise the stream of replies once every connection has
 * finished its first read, up to the time given). The file is written first
 * and the connections opened meanwhile (untimed); the file is removed after,
 * with the scratch folder.
 */
export async function smbReadBandwidth(target: SmbTarget, credentials: SmbCredentials, options: SmbReadOptions = {}): Promise<BandwidthResult> {
  const signal = options.signal;
  const request = signal ? { signal } : {};
  const connectionCount = Math.max(1, Math.min(SMB_READ_CONNECTIONS, Math.floor(options.connections ?? 1)));
  const session = await SmbSession.open(target, credentials, request);
  // The other connections log on while the file is written: a few round trips, beside it.
  const extraSessions = Array.from({ length: connectionCount - 1 }, () => SmbSession.open(target, credentials, request));
  for (const opening of extraSessions) opening.catch(() => undefined);
  const opened: ReadConnection[] = [];
  let scratch: ScratchFolder | undefined;
  try {
    await removeStaleScratch(session);
    scratch = await ScratchFolder.create(session);
    const path = scratch.path('bandwidth-probe.bin');
    const pattern = new PatternSource(scratch.name, 'bandwidth-probe.bin');
    const profile = CLIENT_PROFILES['pipefill-max'];
    const writeHandle = await session.create({
      path,
      access: Access.readData | Access.writeData,
      disposition: Disposition.create,
      options: CreateOption.nonDirectory,
    });
    await transferFile({
      session,
      fileBytes: PROBE_FILE_BYTES,
      pattern,
      verify: false,
      label: path,
      ...request,
      fileId: writeHandle.fileId,
      op: 'write',
      pipeline: pipelineFor(profile, session.negotiated, 'write', PROBE_FILE_BYTES),
      recorder: new TimelineRecorder(),
    });
    await session.close(writeHandle.fileId);
    for (const on of [session, ...(await Promise.all(extraSessions))]) {
      const handle = await on.create({ path, access: Access.readData, disposition: Disposition.open, options: CreateOption.nonDirectory }, request);
      opened.push({ session: on, fileId: handle.fileId });
    }
    // Each connection reads its share of the file, so that N connections move what one did per round (a slow link's
    // first reads take no longer than one whole-file read did).
    const readBytes = Math.ceil(PROBE_FILE_BYTES / connectionCount);
    const started = performance.now();
    const seconds = options.seconds ?? 5;
    const endMs = started + seconds * 1000;
    const spans: ReadSpan[] = [];
    const stream = new ArrivalLog();
    // Whole reads until the time is up: at most seconds x (1 GB/s / the read) of them per reader.
    const reader = async (on: ReadConnection, onFirstRead: () => void = () => undefined) => {
      // The whole read asked for at once: the path is what is measured, so no pipeline of a guessed depth may hold the
      // reads back (four 4 MiB requests read a 622 Mb/s, 150 ms link, 11.7 MB in flight, as 400-490 Mb/s).
      // The server's credits still bound what is outstanding on each connection.
      const best = pipelineFor(profile, on.session.negotiated, 'read', readBytes);
      // Over several connections the rate is read off the replies as they come, and a 4 MiB reply is one point every
      // 3.4 s at 10 Mb/s: the replies are made small enough to give the line many (their headers are 0.1% of them).
      const sized =
        connectionCount > 1
          ? { ...best, chunkBytes: Math.min(best.chunkBytes, STREAM_REPLY_BYTES), requestBytes: Math.min(best.requestBytes, STREAM_REPLY_BYTES) }
          : best;
      const whole = { ...sized, depth: Math.max(sized.depth, Math.ceil(readBytes / sized.chunkBytes)) };
      do {
        const recorder = new SpanRecorder(stream);
        await transferFile({
          session: on.session,
          fileId: on.fileId,
          op: 'read',
          fileBytes: readBytes,
          pipeline: whole,
          pattern,
          verify: false,
          label: path,
          recorder,
          ...request,
        });
        const span = recorder.span();
        if (span) spans.push(span);
        onFirstRead();
      } while (performance.now() < endMs);
    };
    // Between two reads a connection idles a round trip (the last reply, then the next read's requests): where a read
    // is short beside that, a second reader on the connection keeps it busy (its window open), and the rate is read
    // over the stream of replies from the moment every connection has one.
    let joined = 0;
    let streamFrom: number | undefined;
    const readers = opened.map((on) => {
      let second: Promise<void> | undefined;
      const first = reader(on, () => {
        if (second || performance.now() > endMs - SECOND_READER_LEAST_MS) return;
        second = reader(on);
        second.catch(() => undefined);
        joined += 1;
        if (joined === opened.length) streamFrom = performance.now();
      });
      return first.then(() => second);
    });
    const settled = await Promise.allSettled(readers);
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const elapsed = (performance.now() - started) / 1000;
    // Over a network path the rate is the second half's, as iperf3's steady estimate: a connection's first read ends
    // inside TCP's ramp (622 Mb/s, 150 ms: four connections read 566-569 Mb/s from their first reads' ends, 579-589
    // over six seconds, against a 595 Mb/s payload limit).
    const from = streamFrom === undefined ? undefined : connectionCount > 1 ? Math.max(streamFrom, started + (seconds * 1000) / 2) : streamFrom;
    const steady =
      from !== undefined
        ? connectionCount > 1
          ? stream.slopeBetween(from, endMs)
          : stream.rateBetween(from, endMs)
        : connectionCount === 1
          ? steadyReadRate(spans)
          : // Every connection still in its first read when the time was up (a slow link): the stream of all of them.
            stream.slopeBetween(started, Infinity);
    return {
      mbps: (steady ?? (stream.bytes * 8) / elapsed) / 1e6,
      method: 'smb-read',
      direction: 'download',
      seconds: elapsed,
      ...(connectionCount > 1 ? { streams: connectionCount } : {}),
      ...(steady === undefined ? {} : { estimate: 'steady' as const }),
    };
  } finally {
    for (const on of opened.slice(1)) await on.session.close(on.fileId).catch(() => undefined);
    if (opened[0]) await session.close(opened[0].fileId).catch(() => undefined);
    if (scratch) await scratch.remove({ timeoutMs: 5_000 }).catch(() => undefined);
    for (const opening of extraSessions) await opening.then((extra) => extra.end()).catch(() => undefined);
    await session.end();
  }
}
