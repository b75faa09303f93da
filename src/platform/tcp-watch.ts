// Samples one connection through a copy, so its retransmissions can be
// weighed against the round trip at the time they came
// (src/model/loss-split.ts). Start and end alone cannot say that: a loss
// under a full queue and one on an idle path leave the same two totals.

/** Where the kernel is asked directly (a getsockopt): every 10 ms, a quarter of a 40 ms round trip. */
export const KERNEL_WATCH_INTERVAL_MS = 10;
/** Through `ss` (a process each time, a few ms of CPU): a tenth of a second. */
export const SS_WATCH_INTERVAL_MS = 100;
/** At most this many samples: past that the watch stops by itself (ten minutes at the kernel's interval). */
const MAX_SAMPLES = 60_000;

export interface ConnectionWatch<T> {
  /** Stops sampling, takes a last sample, and returns every one taken, in order, each stamped with when it came back (ms). */
  stop(): Promise<(T & { readonly tMs: number })[]>;
}

/**
 * Takes a sample now and every `intervalMs` until stopped, and one more at
 * the stop. A sample that fails or gives nothing is left out. Never throws.
 */
export function watchConnection<T extends object>(sample: () => Promise<T | undefined>, intervalMs: number): ConnectionWatch<T> {
  const samples: (T & { readonly tMs: number })[] = [];
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
