import { describe, expect, it } from 'vitest';
import { lossSampleOf, watchConnection } from './tcp-watch.js';

describe('watching a connection through a copy', () => {
  it('takes a sample at the start, on its interval and at the stop, leaving failed ones out, and stops its loop', async () => {
    let count = 0;
    const watch = watchConnection(async () => {
      count += 1;
      if (count === 2) throw new Error('ss went away');
      return count === 3 ? undefined : { rttMs: 40 + count, bytesSent: count * 1000, bytesRetrans: 0 };
    }, 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const samples = await watch.stop();
    const taken = count;
    expect(samples.length).toBe(taken - 2);
    expect(samples[0]).toMatchObject({ rttMs: 41, bytesSent: 1000, bytesRetrans: 0 });
    // Each stamped as it came back, in order.
    const times = samples.map((sample) => sample.tMs ?? NaN);
    expect(times.every((t, i) => i === 0 || t >= (times[i - 1] ?? Infinity))).toBe(true);
    expect(samples.at(-1)?.bytesSent).toBe(taken * 1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(count).toBe(taken);
  });

  it("reads ss's sample as the split takes it: no byte count or round trip, no sample; no bytes_retrans yet, none sent again", () => {
    expect(lossSampleOf({ rttMs: 40, bytesSent: 5000 })).toEqual({ rttMs: 40, bytesSent: 5000, bytesRetrans: 0 });
    expect(lossSampleOf({ rttMs: 40, minRttMs: 39.5, bytesSent: 5000, bytesRetrans: 20 })).toEqual({
      rttMs: 40,
      minRttMs: 39.5,
      bytesSent: 5000,
      bytesRetrans: 20,
    });
    expect(lossSampleOf({ bytesSent: 5000 })).toBeUndefined();
    expect(lossSampleOf({ rttMs: 40 })).toBeUndefined();
    expect(lossSampleOf(undefined)).toBeUndefined();
  });
});
