// Bandwidth of the path to the file server. With an iperf3 server: an iperf3
// client test through Pipefill's libiperf binding, or the `iperf3 -J`
// executable where the binding cannot load. Without one: SMB reads
// (src/probe/smb-read-bandwidth.ts). The result says which method (and which
// iperf3) produced the figure.

import { spawn } from 'node:child_process';
import { PipefillError } from '../model/errors.js';
import { cancelledError } from '../smb/errors.js';
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
