import { describe, expect, it } from 'vitest';
import { inLanes } from './move-workload.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('inLanes: files at once, as robocopy /MT:n', () => {
  it('keeps exactly n under way, each lane its round-robin share in order', async () => {
    let running = 0;
    let most = 0;
    const seen: number[][] = [[], [], []];
    await inLanes([0, 1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      seen[item % 3]?.push(item);
      await tick();
      running -= 1;
    });
    expect(most).toBe(3);
    expect(seen).toEqual([
      [0, 3, 6],
      [1, 4, 7],
      [2, 5],
    ]);
  });

  it('starts nothing more after a failure, waits for what is under way, then throws that failure', async () => {
    const started: number[] = [];
    let finished = 0;
    const run = inLanes([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      if (item === 1) throw new Error('lane 1 failed');
      await tick();
      finished += 1;
    });
    await expect(run).rejects.toThrow('lane 1 failed');
    // Items 0 and 1 started side by side; item 1 failed at once, so item 0's lane, once done, started nothing more.
    expect(started).toEqual([0, 1]);
    expect(finished).toBe(1);
  });
});
