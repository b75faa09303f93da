// The RTT probe against a listener of the test's own on loopback: samples
// spaced out rather than one after another, the count checked, a cancel prompt.

import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcpHandshakeRtt } from './rtt.js';

describe('tcpHandshakeRtt', () => {
  let server: Server;
  let port = 0;
  const accepted: number[] = [];
  beforeAll(async () => {
    server = createServer((socket) => {
      accepted.push(performance.now());
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('takes the samples asked for, each a handshake of its own, about 20 ms apart', async () => {
    accepted.length = 0;
    const asked = performance.now();
    const stats = await tcpHandshakeRtt('127.0.0.1', port, { count: 6 });
    expect(stats.samples).toBe(6);
    expect(stats.medianMs).toBeGreaterThan(0);
    // Six handshakes, started 20 ms apart: the last begins 100 ms after the first, so it is accepted at least that long
    // after they were asked for (timers fire late, never early, but for libuv's millisecond clock: 95). Measured from
    // the ask, not the first accept: on a busy machine the first accept's callback can run late, which shortened the
    // spread between accepts to 94.4 ms on one run.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(accepted).toHaveLength(6);
    expect((accepted.at(-1) ?? 0) - asked).toBeGreaterThanOrEqual(95);
  });

  it('refuses a count that is no whole number from 1 to 1000', async () => {
    for (const count of [0, -1, 1.5, 1001, Number.NaN]) await expect(tcpHandshakeRtt('127.0.0.1', port, { count })).rejects.toThrow(/1 to 1000 samples/);
  });

  it('stops on a cancel: no more handshakes are started, and the probe says it was cancelled', async () => {
    const controller = new AbortController();
    accepted.length = 0;
    const probe = tcpHandshakeRtt('127.0.0.1', port, { count: 50, signal: controller.signal });
    setTimeout(() => controller.abort(), 70);
    await expect(probe).rejects.toMatchObject({ kind: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // About four started in 70 ms; none after the cancel.
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length).toBeLessThan(10);
  });
});
