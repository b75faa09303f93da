import { describe, expect, it } from 'vitest';
import { watchConnection } from './tcp-watch.js';

describe('watching a connection through a copy', () => {
  it('takes a sample at the start, on its interval and at the stop, leaving failed ones out, and stops its loop', async () => {
    let count = 0;
    const watch = watchConnection(async () => {
      count += 1;
      if (count === 2) throw new Error('ss went away');
      return count === 3 ? undefined : { rttMs: 40 + count, bytesSent: count * 1000 };
    }, 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const samples = await watch.stop();
    const taken = count;
    expect(samples.length).toBe(taken - 2);
    expect(samples[0]).toMatchObject({ rttMs: 41, bytesSent: 1000 });
    expect(samples.at(-1)?.bytesSent).toBe(taken * 1000);
    // Each stamped as it came back, in order.
    const times = samples.map((sample) => sample.tMs);
    expect(times.every((t, i) => i === 0 || t >= (times[i - 1] ?? Infinity))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(count).toBe(taken);
  });
});
