import { describe, expect, it, vi } from 'vitest';
import { CreditStarvationError, CreditWaitEnded, CreditWindow } from './credits.js';

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

  it('a waiter its caller cancels or whose deadline passes leaves the line, spends nothing, and lets those behind it go', async () => {
    vi.useFakeTimers();
    try {
      const window = new CreditWindow(2);
      await window.acquire(2);
      const cancel = new AbortController();
      const cancelled = window.acquire(2, { signal: cancel.signal });
      const timedOut = window.acquire(3, { timeoutMs: 5_000 });
      const behind = window.acquire(1);
      window.onResponse(1, 1);
      cancel.abort();
      await expect(cancelled).rejects.toMatchObject({ reason: 'cancelled' });
      vi.advanceTimersByTime(5_000);
      await expect(timedOut).rejects.toBeInstanceOf(CreditWaitEnded);
      await expect(timedOut).rejects.toMatchObject({ reason: 'timeout' });
      // The one credit granted goes to the request behind them, at the next message id.
      expect(await behind).toBe(2n);
      expect(window.snapshot.totalCharged).toBe(3);
      await expect(window.acquire(1, { signal: AbortSignal.abort() })).rejects.toMatchObject({ reason: 'cancelled' });
    } finally {
      vi.useRealTimers();
    }
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

  it('times the credits held while a request waited, and says how much of the time something waited', async () => {
    let clock = 0;
    const window = new CreditWindow(32, () => clock);
    const mark = window.checkpoint();
    await window.acquire(16);
    await window.acquire(16);
    clock = 10;
    window.onResponse(16, 16); // 16 unspent, 16 in flight: the next request goes at once
    await window.acquire(16);
    expect(window.waitsSince(mark)).toEqual({});
    const waiting = window.acquire(16); // 32 in flight, none unspent: this one waits from 10 ms
    clock = 90;
    window.onResponse(8, 16); // 80 ms waited holding 32; now 24 held, still short of 16 unspent
    clock = 100;
    window.onResponse(8, 0); // 10 ms more holding 24, then it goes
    await waiting;
    const seen = { ...window.snapshot, ...window.waitsSince(mark) };
    expect(seen.maxHeld).toBe(32);
    expect(seen.heldWhileWaiting).toBe(32);
    expect(seen.waitingFraction).toBeCloseTo(90 / 100, 5);
  });

  it('takes the middle of the waiting time, not the largest grant of a moment', async () => {
    let clock = 0;
    const window = new CreditWindow(16, () => clock);
    const mark = window.checkpoint();
    await window.acquire(16);
    const pending: Promise<bigint>[] = [];
    // 24 held for 300 ms of waiting, 32 for 10 ms: the copy was held at 24.
    pending.push(window.acquire(16));
    clock = 5;
    window.onResponse(8, 0); // 24 held: 8 unspent + 16 in flight, the waiter needs 16
    clock = 305;
    window.onResponse(8, 0); // 32 held: the waiter goes
    await pending[0];
    pending.push(window.acquire(16));
    clock = 315;
    window.onResponse(16, 16);
    await pending[1];
    const seen = { ...window.snapshot, ...window.waitsSince(mark) };
    expect(seen.maxHeld).toBe(32);
    expect(seen.heldWhileWaiting).toBe(24);
    expect(seen.waitingFraction).toBeCloseTo(315 / 315, 5);
  });

  it("measures one copy's waits from a checkpoint, not the session's whole life", async () => {
    let clock = 0;
    const window = new CreditWindow(16, () => clock);
    await window.acquire(16);
    const early = window.acquire(16); // an earlier copy waits 100 ms holding 16
    clock = 100;
    window.onResponse(16, 16);
    await early;
    clock = 1_000;
    const mark = window.checkpoint();
    const waiting = window.acquire(16); // this copy waits 30 ms of its 40 holding 16
    clock = 1_030;
    window.onResponse(16, 16);
    await waiting;
    clock = 1_040;
    expect(window.waitsSince(mark)).toEqual({ heldWhileWaiting: 16, waitingFraction: 0.75 });
    expect(window.waitsSince(window.checkpoint())).toEqual({});
  });
});
