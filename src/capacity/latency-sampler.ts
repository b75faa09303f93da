// What a person at the branch feels while others copy: how long an SMB2
// ECHO takes (one round trip through both directions' queues) and how long
// opening and closing a small file takes (what a click in Explorer waits
// on), sampled on a session of its own that moves no bulk data.

import type { RequestOptions } from '../smb/request-frames.js';
import { cancelledError, SmbError } from '../smb/errors.js';
import { Access, CreateOption, Disposition } from '../smb/messages.js';
import type { SmbSession } from '../smb/session.js';

export interface LatencySamples {
  readonly echoMs: number[];
  readonly openCloseMs: number[];
}

/** Samples start this far apart (each waits for the one before it). */
export const LATENCY_INTERVAL_MS = 200;
/** An ECHO or an open that takes longer counts as this long and the sampling goes on (a stalled queue is the finding). */
const SAMPLE_TIMEOUT_MS = 10_000;

/** Waits `ms`, or rejects with a cancelled error as soon as `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Samples until `untilMs` (performance.now()): an ECHO every interval and an
 * open and close of `smallFile` every other one. At most one sample in
 * flight, so the sampler adds no load of its own.
 */
export async function sampleLatency(session: SmbSession, smallFile: string, untilMs: number, signal?: AbortSignal): Promise<LatencySamples> {
  const samples: LatencySamples = { echoMs: [], openCloseMs: [] };
  const options: RequestOptions = { timeoutMs: SAMPLE_TIMEOUT_MS, ...(signal ? { signal } : {}) };
  const timed = async (into: number[], work: () => Promise<void>) => {
    const started = performance.now();
    try {
      await work();
      into.push(performance.now() - started);
    } catch (error) {
      if (signal?.aborted) throw cancelledError();
      // A timed-out sample is the wait a person would have had, at least.
      if (error instanceof SmbError && error.kind === 'timeout') into.push(performance.now() - started);
      else throw error;
    }
  };
  for (let index = 0; performance.now() < untilMs; index++) {
    const started = performance.now();
    await timed(samples.echoMs, () => session.echo(options));
    if (index % 2 === 1 && performance.now() < untilMs) {
      await timed(samples.openCloseMs, async () => {
        const { fileId } = await session.create(
          { path: smallFile, access: Access.readAttributes, disposition: Disposition.open, options: CreateOption.nonDirectory },
          options,
        );
        await session.close(fileId, options);
      });
    }
    const left = Math.min(untilMs - performance.now(), LATENCY_INTERVAL_MS - (performance.now() - started));
    if (left > 0) await pause(left, signal);
  }
  return samples;
}
