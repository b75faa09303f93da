// The path probe against real servers on loopback: smbd and iperf3.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../lab/samba.js';
import type { SambaServer } from '../lab/samba.js';
import type { LoopbackServers } from '../lab/loopback-servers.js';
import { startLoopbackServers } from '../lab/loopback-servers.js';
import { probePath } from './probe-path.js';

describe('probePath on loopback', () => {
  let servers: LoopbackServers;
  let server: SambaServer;
  let iperfPort: number;
  beforeAll(async () => {
    servers = await startLoopbackServers();
    ({ samba: server, iperfPort } = servers);
  });
  afterAll(async () => {
    await servers?.stop();
  });

  it('measures RTT both ways and bandwidth with iperf3 when a server answers', async () => {
    const result = await probePath(server.share, server.credentials, { iperf: { host: '127.0.0.1', port: iperfPort }, seconds: 1 });
    expect(result.rtt.tcp.samples).toBe(10);
    expect(result.rtt.medianMs).toBeLessThan(5);
    expect(result.rtt.smbEcho.medianMs).toBeLessThan(5);
    expect(result.bandwidth.method).toBe('iperf3');
    expect(result.bandwidth.mbps).toBeGreaterThan(100);
    expect(result.bandwidth.fallbackReason).toBeUndefined();
  }, 30_000);

  it('falls back to an SMB read pipeline, says why, and leaves nothing on the share', async () => {
    const closedPort = await freePort();
    const result = await probePath(server.share, server.credentials, { iperf: { host: '127.0.0.1', port: closedPort }, seconds: 1 });
    expect(result.bandwidth.method).toBe('smb-read');
    expect(result.bandwidth.fallbackReason).toMatch(/iperf3 failed/);
    expect(result.bandwidth.mbps).toBeGreaterThan(100);
    expect(server.shareContents()).toEqual([]);
    const plain = await probePath(server.share, server.credentials, { seconds: 1 });
    expect(plain.bandwidth.fallbackReason).toBe('no iperf3 server was given');
  }, 30_000);
});
