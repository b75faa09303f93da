// The path probe: RTT (TCP handshakes and SMB2 ECHO) and bandwidth (iperf3
// when a server answers, else an SMB read pipeline).

import type { ProbeResult } from '../contract/probe.js';
import { PipefillError } from '../model/errors.js';
import type { SmbCredentials, SmbTarget } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import type { BandwidthResult } from './bandwidth.js';
import { iperf3Bandwidth, smbReadBandwidth } from './bandwidth.js';
import { smbEchoRtt, tcpHandshakeRtt } from './rtt.js';

export interface ProbeOptions {
  readonly iperf?: { readonly host: string; readonly port: number };
  readonly seconds?: number;
  readonly signal?: AbortSignal;
}

export async function probePath(target: SmbTarget, credentials: SmbCredentials, options: ProbeOptions = {}): Promise<ProbeResult> {
  const signal = options.signal ? { signal: options.signal } : {};
  // The handshakes and the session's ECHOs run side by side: each is a packet or two per round trip, too
  // little to queue behind the other, and on a long path doing them one after the other cost a second or more.
  const echoes = (async () => {
    const session = await SmbSession.open(target, credentials, signal);
    try {
      const { dialect, signing, encryption } = session.negotiated;
      return { negotiated: { dialect, signing, encryption }, smbEcho: await smbEchoRtt(session, signal) };
    } finally {
      await session.end();
    }
  })();
  echoes.catch(() => undefined);
  const tcp = await tcpHandshakeRtt(target.host, target.port, signal).catch(async (error: unknown) => {
    await echoes.catch(() => undefined);
    throw error;
  });
  const { negotiated, smbEcho } = await echoes;
  let bandwidth: BandwidthResult;
  let fallbackReason = options.iperf ? undefined : 'no iperf3 server was given';
  if (options.iperf) {
    try {
      bandwidth = await iperf3Bandwidth({ host: options.iperf.host, port: options.iperf.port, ...(options.seconds ? { seconds: options.seconds } : {}), reverse: true, ...signal });
      return { rtt: { medianMs: tcp.medianMs, tcp, smbEcho }, session: negotiated, bandwidth };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      fallbackReason = `iperf3 failed: ${error instanceof PipefillError ? error.message : String(error)}`;
    }
  }
  bandwidth = await smbReadBandwidth(target, credentials, { ...(options.seconds ? { seconds: options.seconds } : {}), ...signal });
  return { rtt: { medianMs: tcp.medianMs, tcp, smbEcho }, session: negotiated, bandwidth: { ...bandwidth, ...(fallbackReason ? { fallbackReason } : {}) } };
}
