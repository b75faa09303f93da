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
  const tcp = await tcpHandshakeRtt(target.host, target.port, signal);
  const session = await SmbSession.open(target, credentials, signal);
  const { dialect, signing, encryption } = session.negotiated;
  const negotiated = { dialect, signing, encryption };
  let smbEcho;
  try {
    smbEcho = await smbEchoRtt(session, signal);
  } finally {
    await session.end();
  }
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
