// The kernel's round trip (TCP_INFO through the socket addon) of a real
// loopback connection, and of the probe's handshakes.

import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcpHandshakeRtt } from '../probe/rtt.js';
import { senderAddon } from './frame-writer.js';
import { kernelRoundTrip } from './kernel-rtt.js';

const linux = process.platform === 'linux' && senderAddon().available;
if (!linux) console.warn('SKIPPED: the kernel round trip needs Linux and the socket addon.');

describe.skipIf(!linux)("the kernel's round trip of a TCP connection", () => {
  // Reads what comes (so a connection that sent data still closes) and leaves its side open until the client
  // closes its own (Node then ends it): a peer that ended first would take the client's socket down mid-test.
  const server = createServer((socket) => socket.resume());
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A connection to the test's server, destroyed after `use`. */
  async function withConnection(use: (socket: Socket) => Promise<void> | void): Promise<void> {
    const socket: Socket = await new Promise((resolve, reject) => {
      const client = connect({ host: '127.0.0.1', port }, () => resolve(client));
      client.once('error', reject);
    });
    try {
      await use(socket);
    } finally {
      socket.destroy();
    }
  }

  it('reads the handshake the kernel timed', async () => {
    await withConnection((socket) => {
      const rtt = kernelRoundTrip(socket);
      expect(rtt).toBeDefined();
      expect(rtt?.rttMs).toBeGreaterThan(0);
      expect(rtt?.minRttMs).toBeGreaterThan(0);
      expect(rtt?.minRttMs).toBeLessThanOrEqual(rtt?.rttMs ?? 0);
    });
  });

  it("counts the bytes the connection sent, and those it sent again (what a copy's losses are weighed by)", async () => {
    await withConnection(async (socket) => {
      expect(kernelRoundTrip(socket)?.bytesSent).toBe(0);
      await new Promise<void>((resolve, reject) => socket.write(Buffer.alloc(10_000), (error) => (error ? reject(error) : resolve())));
      // Handed to the kernel is not yet sent: it goes at once on loopback, and is looked for every 10 ms for at most a second.
      for (let check = 0; check < 100 && (kernelRoundTrip(socket)?.bytesSent ?? 0) < 10_000; check += 1)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(kernelRoundTrip(socket)).toMatchObject({ bytesSent: 10_000, bytesRetrans: 0 });
    });
  });

  it('says what is in flight and the rate the peer took it at (what tells a queue from a delayed ACK)', async () => {
    await withConnection(async (socket) => {
      expect(kernelRoundTrip(socket)).toMatchObject({ inFlightBytes: 0, deliveryBytesPerSecond: 0 });
      await new Promise<void>((resolve, reject) => socket.write(Buffer.alloc(100_000), (error) => (error ? reject(error) : resolve())));
      // Looked for every 10 ms for at most a second: everything sent and acknowledged.
      const settled = () => {
        const sample = kernelRoundTrip(socket);
        return sample?.bytesSent === 100_000 && sample.inFlightBytes === 0;
      };
      for (let check = 0; check < 100 && !settled(); check += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(kernelRoundTrip(socket)).toMatchObject({ bytesSent: 100_000, inFlightBytes: 0 });
      expect(kernelRoundTrip(socket)?.deliveryBytesPerSecond).toBeGreaterThan(0);
    });
  });

  it('is what the probe times its handshakes by, and says so', async () => {
    const handshakes = await tcpHandshakeRtt('127.0.0.1', port, { count: 5 });
    expect(handshakes.timedBy).toBe('kernel');
    expect(handshakes.samples).toBe(5);
    expect(handshakes.medianMs).toBeGreaterThan(0);
  });

  it('says nothing for a socket without a descriptor', () => {
    expect(kernelRoundTrip({} as Socket)).toBeUndefined();
  });
});
