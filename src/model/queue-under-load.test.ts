import { describe, expect, it } from 'vitest';
import { BLOAT_LEAST_MS, queueUnderLoad } from './queue-under-load.js';

describe('the queue under load', () => {
  it('is the loaded round trip less the idle one, and the data that is at the line rate', () => {
    // 50 Mb/s, 20 ms, a buffer of 1.75 MB: 280 ms of queue when full.
    const queue = queueUnderLoad(20, 300, 50e6);
    expect(queue.queueMs).toBe(280);
    expect(queue.queueBytes).toBeCloseTo(1.75e6, 3);
    expect(queue.bloated).toBe(true);
  });

  it('is bloated only beyond a round trip of its own and BLOAT_LEAST_MS', () => {
    expect(queueUnderLoad(20, 20 + BLOAT_LEAST_MS - 1, 50e6).bloated).toBe(false);
    expect(queueUnderLoad(20, 20 + BLOAT_LEAST_MS, 50e6).bloated).toBe(true);
    expect(queueUnderLoad(100, 199, 50e6).bloated).toBe(false);
    expect(queueUnderLoad(100, 200, 50e6).bloated).toBe(true);
  });

  it('is none where the loaded round trip read below the idle one', () => {
    expect(queueUnderLoad(40, 38, 100e6)).toMatchObject({ queueMs: 0, queueBytes: 0, bloated: false });
  });
});
