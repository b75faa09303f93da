import { describe, expect, it } from 'vitest';
import { CreditStarvationError, CreditWindow } from './credits.js';

describe('CreditWindow', () => {
  it('starts with one credit, for the NEGOTIATE, at message id 0', async () => {
    const window = new CreditWindow();
    expect(await window.acquire(1)).toBe(0n);
    expect(window.credits).toBe(0);
  });

  it('advances message ids by the charge of a multi-credit request', async () => {
    const window = new CreditWindow(40);
    expect(await window.acquire(16)).toBe(0n);
    expect(await window.acquire(16)).toBe(16n);
    expect(await window.acquire(1)).toBe(32n);
  });

  it('makes requests wait for a grant, and serves them in order', async () => {
    const window = new CreditWindow(2);
    await window.acquire(2);
    const order: bigint[] = [];
    const first = window.acquire(2).then((id) => order.push(id));
    const second = window.acquire(1).then((id) => order.push(id));
    window.onResponse(1, 1); // one credit back is not enough for the first waiter
    await Promise.resolve();
    expect(order).toEqual([]);
    window.onResponse(2, 1);
    await Promise.all([first, second]);
    expect(order).toEqual([2n, 4n]);
  });

  it('never lets the credits in flight exceed what was granted', async () => {
    const window = new CreditWindow(1);
    const granted = [15, 0, 3, 16, 16, 1, 8];
    let totalGranted = 1;
    const pending: Promise<bigint>[] = [];
    for (let i = 0; i < 40; i++) pending.push(window.acquire(1 + (i % 3)));
    for (const credits of granted) {
      totalGranted += credits;
      window.onResponse(credits, 0);
      expect(window.snapshot.totalCharged).toBeLessThanOrEqual(totalGranted);
      expect(window.credits).toBeGreaterThanOrEqual(0);
    }
    window.failWaiters(new Error('done'));
    await Promise.allSettled(pending);
  });

  it('fails at once when no grant can ever come', async () => {
    const window = new CreditWindow(1);
    await window.acquire(1);
    window.onResponse(0, 1);
    await expect(window.acquire(1)).rejects.toBeInstanceOf(CreditStarvationError);
  });
});
