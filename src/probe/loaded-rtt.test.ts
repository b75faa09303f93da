// The round trip under load (issue 52): ECHOs beside the bandwidth test, and
// the figure made of its second half.

import { describe, expect, it } from 'vitest';
import type { SmbSession } from '../smb/session.js';
import { echoesUnderLoad, loadedLatency } from './rtt.js';

/** A session whose ECHOs each take `ms` and whose `failAfter`-th fails. */
function fakeSession(ms: number, failAfter = Infinity): { session: SmbSession; echoes: () => number } {
  let count = 0;
  const session = {
    echo: async () => {
      count += 1;
      if (count > failAfter) throw new Error('the session is gone');
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
  } as unknown as SmbSession;
  return { session, echoes: () => count };
}

const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ECHOs under load', () => {
  it('sample while the load runs and stop with it', async () => {
    const fake = fakeSession(5);
    const samples = await echoesUnderLoad(fake.session, after(400));
    expect(samples.length).toBeGreaterThanOrEqual(1);
    // One ECHO every 50 ms at most: 400 ms of load, at most ten.
    expect(samples.length).toBeLessThanOrEqual(10);
    expect(samples.every((sample) => sample.ms >= 4)).toBe(true);
    const count = fake.echoes();
    await after(150);
    expect(fake.echoes()).toBe(count);
  });

  it('stop at the first failure, without failing the probe', async () => {
    const samples = await echoesUnderLoad(fakeSession(1, 2).session, after(1_000));
    expect(samples).toHaveLength(2);
  });

  it('stop with a load that fails', async () => {
    const load = after(100).then(() => {
      throw new Error('the bandwidth test failed');
    });
    load.catch(() => undefined);
    await expect(echoesUnderLoad(fakeSession(1).session, load)).resolves.toBeInstanceOf(Array);
  });
});

describe('the loaded round trip', () => {
  it("is the second half's samples, summarised", () => {
    const samples = [
      { atMs: 0, ms: 20 },
      { atMs: 100, ms: 25 },
      { atMs: 500, ms: 300 },
      { atMs: 600, ms: 310 },
      { atMs: 700, ms: 290 },
      { atMs: 900, ms: 305 },
    ];
    expect(loadedLatency(samples, 0, 1_000)).toMatchObject({ samples: 4, medianMs: 302.5, minMs: 290 });
  });

  it('is none from fewer than three late samples', () => {
    expect(loadedLatency([{ atMs: 900, ms: 300 }], 0, 1_000)).toBeUndefined();
    expect(loadedLatency([], 0, 1_000)).toBeUndefined();
  });
});
