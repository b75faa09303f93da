// Round-trip time to the file server, two ways: TCP handshakes to its SMB
// port (one round trip each, before any SMB is spoken), and SMB2 ECHO on an
// open session (a round trip through the server's SMB stack).

import { connect } from 'node:net';
import { cancelledError, SmbError } from '../smb/errors.js';
import type { SmbSession } from '../smb/session.js';
import type { LatencyStats } from './stats.js';
import { summarizeLatency } from './stats.js';

/** Pause between samples, so the probe does not measure its own queue. */
const SAMPLE_GAP_MS = 20;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function oneHandshake(host: string, port: number, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new SmbError('unreachable', `No TCP handshake with ${host}:${port} within ${timeoutMs / 1000} s.`, 'Check the server name, the port and any firewall on the way.'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      const elapsed = performance.now() - started;
      socket.destroy();
      resolve(elapsed);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new SmbError('unreachable', `Cannot reach ${host}:${port}: ${error.code ?? error.message}.`, 'Check the server name, the port and any firewall on the way.', undefined, { cause: error }));
    });
  });
}

export interface RttOptions {
  readonly count?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** `count` TCP handshakes to host:port; the time from SYN to established. */
export async function tcpHandshakeRtt(host: string, port: number, options: RttOptions = {}): Promise<LatencyStats> {
  const samples: number[] = [];
  for (let i = 0; i < (options.count ?? 10); i++) {
    if (options.signal?.aborted) throw cancelledError();
    samples.push(await oneHandshake(host, port, options.timeoutMs ?? 5_000));
    await pause(SAMPLE_GAP_MS);
  }
  return summarizeLatency(samples);
}

/** `count` SMB2 ECHO round trips on an open session. */
export async function smbEchoRtt(session: SmbSession, options: RttOptions = {}): Promise<LatencyStats> {
  const samples: number[] = [];
  for (let i = 0; i < (options.count ?? 10); i++) {
    const started = performance.now();
    await session.echo({ ...(options.signal ? { signal: options.signal } : {}), timeoutMs: options.timeoutMs ?? 5_000 });
    samples.push(performance.now() - started);
    await pause(SAMPLE_GAP_MS);
  }
  return summarizeLatency(samples);
}
