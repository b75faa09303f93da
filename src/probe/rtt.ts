// Round-trip time to the file server, two ways: TCP handshakes to its SMB
// port (one round trip each, before any SMB is spoken), and SMB2 ECHO on an
// open session (a round trip through the server's SMB stack).

import { connect } from 'node:net';
import { cancelledError, SmbError } from '../smb/errors.js';
import { kernelRoundTrip } from '../smb/kernel-rtt.js';
import type { SmbSession } from '../smb/session.js';
import type { LatencyStats } from './stats.js';
import { summarizeLatency } from './stats.js';

/**
 * Samples start this far apart, each without waiting for the one before (as
 * ping paces its echoes): a sample is a packet or two each way, which no
 * queue notices, and on a long path waiting for each one cost a round trip
 * per sample (ten handshakes at 75 ms took a second, six 0.6 s; six spaced
 * out take one round trip and a tenth of a second).
 */
const SAMPLE_GAP_MS = 20;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` samples started SAMPLE_GAP_MS apart; the first failure or a cancel ends the probe once all have settled. */
async function spacedSamples<T>(count: number, signal: AbortSignal | undefined, sample: () => Promise<T>): Promise<T[]> {
  const started: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    if (signal?.aborted) break;
    const next = sample();
    next.catch(() => undefined);
    started.push(next);
    if (i < count - 1) await pause(SAMPLE_GAP_MS);
  }
  const settled = Promise.allSettled(started);
  // A cancel does not wait for the samples in flight (a silent host holds each for its whole timeout).
  if (signal && !signal.aborted) {
    let onAbort: () => void = () => undefined;
    await Promise.race([
      settled,
      new Promise<undefined>((resolve) => {
        onAbort = () => resolve(undefined);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    signal.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw cancelledError();
  const outcomes = await settled;
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
}

/** A sample count: a whole number from 1 to 1000 (the median of none is nothing, and each is a round trip). */
function sampleCount(count: number | undefined): number {
  const value = count ?? 10;
  if (!Number.isInteger(value) || value < 1 || value > 1000) throw new RangeError(`An RTT probe takes 1 to 1000 samples, not ${String(count)}.`);
  return value;
}

/** One handshake's round trip, and who timed it: the kernel (TCP_INFO) where it can, else this process. */
interface Handshake {
  readonly ms: number;
  /** As this process timed it (the connect callback): what a fast path's requests are compared with. */
  readonly processMs: number;
  readonly kernel: boolean;
}

function oneHandshake(host: string, port: number, timeoutMs: number): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new SmbError(
          'unreachable',
          `No TCP handshake with ${host}:${port} within ${timeoutMs / 1000} s.`,
          'Check the server name, the port and any firewall on the way.',
        ),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      const elapsed = performance.now() - started;
      // The kernel's sample of this handshake, unless it cannot be asked: the process's clock runs late on a busy machine.
      const kernel = kernelRoundTrip(socket);
      socket.destroy();
      resolve(kernel ? { ms: kernel.rttMs, processMs: elapsed, kernel: true } : { ms: elapsed, processMs: elapsed, kernel: false });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new SmbError(
          'unreachable',
          `Cannot reach ${host}:${port}: ${error.code ?? error.message}.`,
          'Check the server name, the port and any firewall on the way.',
          undefined,
          { cause: error },
        ),
      );
    });
  });
}

export interface RttOptions {
  readonly count?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Handshake statistics, and who timed them: the kernel for all, or this
 * process (for any it could not). Kernel-timed, the median as this process
 * timed them too (probe-path.ts uses it on a fast path, as before).
 */
export type HandshakeStats = LatencyStats & { readonly timedBy: 'kernel' | 'process'; readonly processMedianMs?: number };

/** `count` TCP handshakes to host:port; the time from SYN to established, as the kernel measured it where it can. */
export async function tcpHandshakeRtt(host: string, port: number, options: RttOptions = {}): Promise<HandshakeStats> {
  const count = sampleCount(options.count);
  const handshakes = await spacedSamples(count, options.signal, () => oneHandshake(host, port, options.timeoutMs ?? 5_000));
  const kernel = handshakes.length > 0 && handshakes.every((handshake) => handshake.kernel);
  if (!kernel) return { ...summarizeLatency(handshakes.map((handshake) => handshake.processMs)), timedBy: 'process' };
  return {
    ...summarizeLatency(handshakes.map((handshake) => handshake.ms)),
    timedBy: 'kernel',
    processMedianMs: summarizeLatency(handshakes.map((handshake) => handshake.processMs)).medianMs,
  };
}

/**
 * `count` SMB2 ECHO round trips one after the other, each sent as the last
 * reply arrives: what a synchronous copy's requests see. Only for fast
 * paths, where `count` round trips cost milliseconds.
 */
export async function smbEchoBackToBack(session: SmbSession, options: RttOptions = {}): Promise<LatencyStats> {
  const count = sampleCount(options.count);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    if (options.signal?.aborted) throw cancelledError();
    const started = performance.now();
    await session.echo({ ...(options.signal ? { signal: options.signal } : {}), timeoutMs: options.timeoutMs ?? 5_000 });
    samples.push(performance.now() - started);
  }
  return summarizeLatency(samples);
}

/** `count` SMB2 ECHO round trips on an open session. */
export async function smbEchoRtt(session: SmbSession, options: RttOptions = {}): Promise<LatencyStats> {
  const count = sampleCount(options.count);
  return summarizeLatency(
    await spacedSamples(count, options.signal, async () => {
      const started = performance.now();
      await session.echo({ ...(options.signal ? { signal: options.signal } : {}), timeoutMs: options.timeoutMs ?? 5_000 });
      return performance.now() - started;
    }),
  );
}

/** How often the round trip is sampled while the link is loaded: often enough for a queue's growth, too seldom to add to it (a packet each way). */
const LOADED_GAP_MS = 50;
/** At most this many samples under load: 20 s of them. */
const LOADED_MOST_SAMPLES = 400;

/** One ECHO timed while the link was loaded, and when it started (ms on this process's clock). */
export interface LoadedSample {
  readonly atMs: number;
  readonly ms: number;
}

/**
 * SMB2 ECHOs on `session`, one after the other LOADED_GAP_MS apart, while
 * `load` runs (the bandwidth test filling the link), as Crusader and flent
 * measure a link's latency under load: on a connection of its own, so a
 * queue the test fills delays the ECHOs (their replies wait behind the
 * test's data) and nothing else does. Samples stop with the load or a
 * failure (a slow ECHO is a sample; a lost session ends the sampling, not
 * the probe).
 */
export async function echoesUnderLoad(session: SmbSession, load: Promise<unknown>, options: { readonly signal?: AbortSignal } = {}): Promise<LoadedSample[]> {
  let loading = true;
  const settled = load.then(
    () => (loading = false),
    () => (loading = false),
  );
  const samples: LoadedSample[] = [];
  while (loading && samples.length < LOADED_MOST_SAMPLES && !options.signal?.aborted) {
    const atMs = performance.now();
    try {
      await session.echo({ ...(options.signal ? { signal: options.signal } : {}), timeoutMs: 5_000 });
    } catch {
      break;
    }
    if (loading) samples.push({ atMs, ms: performance.now() - atMs });
    await Promise.race([pause(LOADED_GAP_MS), settled]);
  }
  return samples;
}

/**
 * The round trip while the link was full: the samples of the load's second
 * half (its first half fills the queue, and an SMB read test spends it on
 * set-up), summarised; undefined for fewer than three.
 */
export function loadedLatency(samples: readonly LoadedSample[], loadStartedMs: number, loadEndedMs: number): LatencyStats | undefined {
  const middle = (loadStartedMs + loadEndedMs) / 2;
  const late = samples.filter((sample) => sample.atMs >= middle).map((sample) => sample.ms);
  return late.length >= 3 ? summarizeLatency(late) : undefined;
}
