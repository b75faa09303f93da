// Samples one connection through a copy, so its retransmissions can be
// weighed against the round trip at the time they came
// (src/model/loss-split.ts). Start and end alone cannot say that: a loss
// under a full queue and one on an idle path leave the same two totals.

import type { TcpInfoSample } from './tcp-info.js';

/** Where the kernel is asked directly (a getsockopt): every 10 ms, a quarter of a 40 ms round trip. */
export const KERNEL_WATCH_INTERVAL_MS = 10;
/** Through `ss` (a process each time, a few ms of CPU): a tenth of a second. */
export const SS_WATCH_INTERVAL_MS = 100;
/** At most this many samples: past that the watch stops by itself (ten minutes at the kernel's interval). */
const MAX_SAMPLES = 60_000;

/** What the split needs of each sample (src/model/loss-split.ts LossSample, which this layer cannot import). */
export interface LossSample {
  readonly rttMs: number;
  readonly minRttMs?: number;
  readonly bytesSent: number;
  readonly bytesRetrans: number;
  readonly tMs?: number;
}

export interface ConnectionWatch {
  /** Stops sampling, takes a last sample, and returns every usable one in order. */
  stop(): Promise<LossSample[]>;
}

/** A sample of `ss`'s as the split takes it; undefined where it lacks a round trip or a byte count. */
export const lossSampleOf = (sample: Partial<Pick<TcpInfoSample, 'rttMs' | 'minRttMs' | 'bytesSent' | 'bytesRetrans'>> | undefined): LossSample | undefined =>
  sample?.rttMs === undefined || sample.bytesSent === undefined
    ? undefined
    : {
        rttMs: sample.rttMs,
        bytesSent: sample.bytesSent,
        // `ss` leaves bytes_retrans out until the connection first sends a byte again.
        bytesRetrans: sample.bytesRetrans ?? 0,
        ...(sample.minRttMs === undefined ? {} : { minRttMs: sample.minRttMs }),
      };

/**
 * Takes a sample now and every `intervalMs` until stopped, and one more at
 * the stop. `sample` never throws (a failed sample is undefined, and left
 * out). Never throws.
 */
export function watchConnection(sample: () => Promise<LossSample | undefined>, intervalMs: number): ConnectionWatch {
  const samples: LossSample[] = [];
  let stopped = false;
  const take = async () => {
    const taken = await sample().catch(() => undefined);
    // Stamped as it came back: the split looks a round trip back from each retransmission.
    if (taken) samples.push({ ...taken, tMs: performance.now() });
  };
  const loop = (async () => {
    await take();
    // Bounded: MAX_SAMPLES at most, and `stop` ends it sooner.
    for (let count = 0; !stopped && count < MAX_SAMPLES; count += 1) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      if (!stopped) await take();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await take();
      return samples;
    },
  };
}
