// The path probe: RTT (TCP handshakes and SMB2 ECHO) and bandwidth (iperf3
// when a server answers, else an SMB read pipeline).

import type { ProbeResult } from '../contract/probe.js';
import { PipefillError } from '../model/errors.js';
import { connectHost } from '../model/share-path.js';
import type { SmbCredentials, SmbTarget } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { askServerIdentity } from '../smb/server-identity.js';
import type { BandwidthEstimate, BandwidthResult } from './bandwidth.js';
import { iperf3Bandwidth } from './bandwidth.js';
import { SMB_READ_CONNECTIONS, smbReadBandwidth } from './smb-read-bandwidth.js';
import { FAST_PATH_RTT_MS } from '../model/host-costs.js';
import { echoesUnderLoad, loadedLatency, smbEchoBackToBack, smbEchoRtt, tcpHandshakeRtt } from './rtt.js';
import type { LatencyStats } from './stats.js';
import type { TcpInfoSample } from '../platform/tcp-info.js';
import { sampleTcpInfo } from '../platform/tcp-info.js';
import { CONGESTION_NAME } from '../model/congestion.js';
import { isMtuBytes } from '../model/link.js';

export interface ProbeOptions {
  readonly iperf?: { readonly host: string; readonly port: number };
  /** The bandwidth test's length: the SMB read pipeline's, and iperf3's for a mean (a steady one runs steadyTestSeconds). */
  readonly seconds?: number;
  /**
   * The SMB read pipeline's length where the path is a fast one (FAST_PATH_RTT_MS), in place of `seconds` when
   * shorter: there its rate settles within milliseconds (a LAN's window fills in a few round trips of a fraction of
   * one), so an assessment's budget is spent on copies rather than on seconds more of the same reads.
   */
  readonly fastPathSeconds?: number;
  /** How iperf3's test becomes a figure (src/probe/bandwidth.ts); the mean after an omitted second when absent. */
  readonly estimate?: BandwidthEstimate;
  /** TCP handshakes and SMB2 ECHOs each (10 when absent, 20 ms apart: src/probe/rtt.ts); a run on a short budget takes fewer. */
  readonly rttSamples?: number;
  /**
   * iperf3's parallel streams (1 when absent). One loss-based flow leaves
   * part of a line behind a shallow queue idle; several fill it, so a probe
   * of the line itself for a model that shares it takes several.
   */
  readonly streams?: number;
  readonly signal?: AbortSignal;
}

/**
 * Round trips a steady test runs: its second half must be mostly past TCP's
 * ramp. On the WAN lab the ramp (slow start, the overshoot into the
 * bottleneck's queue and its recovery) ended by 16 round trips at 52 Mb/s /
 * 75 ms; 24 leaves the second half's median on steady intervals. iperf3
 * counts whole seconds, two at least (twenty intervals).
 */
const STEADY_TEST_RTTS = 24;

export function steadyTestSeconds(rttMs: number): number {
  return Math.max(2, Math.ceil((STEADY_TEST_RTTS * rttMs) / 1000));
}

/**
 * The round trip the model uses. Where the kernel timed the handshakes
 * (Linux, TCP_INFO) and the path is not a fast one, their median: the path's
 * own round trip, whatever this process was doing (beside a busy core the
 * process's clock read a 60 ms lab link as 82.5 ms; issue 48). Otherwise the
 * lowest of the medians: each sample is at least one trip over the path, and
 * only the hosts can add to it: a handshake timed in the process waits
 * behind whatever the process is doing (on a busy two-core machine, loopback
 * handshakes read a median of 1.6-7 ms against ECHOs of 0.38 ms); an ECHO
 * adds the server's turnaround, as every request of a copy does, which on a
 * fast path is most of the trip (loopback's kernel handshake is tens of
 * microseconds): there the handshakes count as this process timed them, as
 * before (a busy machine's ECHOs alone once put a loopback capacity model's
 * round trip so high that its steps expected nothing).
 */
export function pathRttMs(
  tcp: LatencyStats & { readonly timedBy?: 'kernel' | 'process'; readonly processMedianMs?: number },
  smbEcho: LatencyStats,
  backToBack?: LatencyStats,
): number {
  const kernel = tcp.timedBy === 'kernel';
  if (kernel && tcp.medianMs >= BACK_TO_BACK_BELOW_MS) return tcp.medianMs;
  // A fast path as before: the handshakes as this process timed them (the kernel's left out), beside the ECHOs.
  return Math.min(kernel ? (tcp.processMedianMs ?? Infinity) : tcp.medianMs, smbEcho.medianMs, backToBack?.medianMs ?? Infinity);
}

/**
 * Below this, the probe also sends ECHOs back to back. An exchange after
 * 20 ms of quiet pays every hop's wake-up (on a virtual machine whose CPUs
 * halt when idle, each hop's interrupt and scheduler), which a copy's
 * requests, sent as the last reply arrives, do not: in the lab at 1 Gb/s /
 * 0.5 ms the spaced ECHOs read 1.13-1.36 ms where XP's synchronous writes
 * took 0.67 ms a round trip (2026-11-25). Sixteen back to back cost
 * milliseconds there.
 */
const BACK_TO_BACK_BELOW_MS = 2;
const BACK_TO_BACK_SAMPLES = 16;

/**
 * Whether the spaced ECHOs show a fast path: their least, not their median. A busy machine adds to most
 * samples (the process is late to read the reply) and takes from none, so the least is the path's. Beside
 * two busy loops a loopback's spaced ECHOs read a median of up to 1.55 ms and a least of 0.11-0.21 ms
 * (2026-11-27); in the fresh-clone suite, busier still, the median gate sent no back-to-back ECHOs now and
 * then, and the assessment's "by default" test failed.
 */
export function wantsBackToBack(smbEcho: LatencyStats): boolean {
  return smbEcho.minMs < BACK_TO_BACK_BELOW_MS;
}

export async function probePath(target: SmbTarget, credentials: SmbCredentials, options: ProbeOptions = {}): Promise<ProbeResult> {
  const signal = options.signal ? { signal: options.signal } : {};
  const samples = options.rttSamples === undefined ? {} : { count: options.rttSamples };
  // The handshakes and the session's ECHOs run side by side: each is a packet or two per round trip, too
  // little to queue behind the other, and on a long path doing them one after the other cost a second or more.
  // The session stays open for the ECHOs under load, beside the bandwidth test.
  const echoes = (async () => {
    const session = await SmbSession.open(target, credentials, signal);
    try {
      const { dialect, signing, encryption, login } = session.negotiated;
      // A Kerberos logon hears no NTLM challenge, which is what names the server: asked for on its own, beside the ECHOs.
      const asked = login?.mechanism === 'kerberos' && !session.negotiated.serverSays?.ntlmVersion ? askServerIdentity(target, options.signal) : undefined;
      const smbEcho = await smbEchoRtt(session, { ...signal, ...samples });
      const serverSays = (await asked) ?? session.negotiated.serverSays;
      const backToBack = wantsBackToBack(smbEcho) ? await smbEchoBackToBack(session, { ...signal, count: BACK_TO_BACK_SAMPLES }) : undefined;
      return {
        session,
        negotiated: { dialect, signing, encryption, ...(serverSays ? { serverSays } : {}), ...(login ? { login: { ...login } } : {}) },
        smbEcho,
        backToBack,
      };
    } catch (error) {
      await session.end();
      throw error;
    }
  })();
  echoes.catch(() => undefined);
  const tcp = await tcpHandshakeRtt(connectHost(target), target.port, { ...signal, ...samples }).catch(async (error: unknown) => {
    await echoes.then((opened) => opened.session.end()).catch(() => undefined);
    throw error;
  });
  const { session, negotiated, smbEcho, backToBack } = await echoes;
  try {
    const rtt = { medianMs: pathRttMs(tcp, smbEcho, backToBack), tcp, smbEcho, ...(backToBack ? { smbEchoBackToBack: backToBack } : {}) };
    // The round trip while the bandwidth test fills the link: a queue on the path that grows under load shows here.
    const loadStarted = performance.now();
    const bandwidthTest = bandwidthOf(target, credentials, rtt.medianMs, tcp.medianMs, options);
    const underLoad = await echoesUnderLoad(session, bandwidthTest, signal);
    const bandwidth = await bandwidthTest;
    const loaded = loadedLatency(underLoad, loadStarted, performance.now());
    // The kernel's path MTU, read once the transfers have run: a hop whose ICMP said it was smaller is in it by now.
    // With it, the congestion control the kernel runs on a connection to the share: a route may name its own
    // (`ip route … congctl`), whatever the machine's default says.
    const kernel = await sampleTcpInfo(session.connection.endpoints).catch(() => undefined);
    const path = pathOfKernel(kernel);
    return { rtt: { ...rtt, ...(loaded ? { loaded } : {}) }, session: negotiated, ...(path ? { path } : {}), bandwidth };
  } finally {
    await session.end();
  }
}

/** How long the SMB read test reads (undefined: its own default): the time asked, shortened on a fast path, lengthened on a long one. */
export function smbReadSeconds(rttMs: number, options: Pick<ProbeOptions, 'seconds' | 'fastPathSeconds'>): number | undefined {
  const asked = options.seconds;
  if (rttMs < FAST_PATH_RTT_MS) return options.fastPathSeconds === undefined ? asked : Math.min(asked ?? Infinity, options.fastPathSeconds);
  return asked === undefined ? undefined : Math.max(asked, steadyTestSeconds(rttMs));
}

/** The line's rate: iperf3 where a server was given and answers, else an SMB read pipeline (and why). */
async function bandwidthOf(
  target: SmbTarget,
  credentials: SmbCredentials,
  rttMs: number,
  handshakeMs: number,
  options: ProbeOptions,
): Promise<BandwidthResult> {
  const signal = options.signal ? { signal: options.signal } : {};
  let fallbackReason = options.iperf ? undefined : 'no iperf3 server was given';
  if (options.iperf) {
    try {
      const steady = options.estimate === 'steady';
      const seconds = steady ? steadyTestSeconds(handshakeMs) : options.seconds;
      const measured = await iperf3Bandwidth({
        host: options.iperf.host,
        port: options.iperf.port,
        ...(seconds ? { seconds } : {}),
        ...(steady ? { estimate: 'steady' as const } : {}),
        ...(options.streams ? { streams: options.streams } : {}),
        reverse: true,
        ...signal,
      });
      // Nothing arrived: the SMB read test, which checks the path MTU before its first write, says why (a black hole
      // swallows iperf3's full-size packets while its control connection's small ones pass). Checked only then, so a
      // healthy path pays nothing for it (a check of its own before iperf3 cost 1.4 s at 75 ms).
      if (!(measured.mbps > 0)) throw new PipefillError('probe-failed', 'iperf3 moved nothing.', 'The path may drop full-size packets.');
      return measured;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      fallbackReason = `iperf3 failed: ${error instanceof PipefillError ? error.message : String(error)}`;
    }
  }
  // On a fast path one connection fills the line, and more would measure the hosts' parallel work instead of it.
  // On a long path the reads run at least a steady test's round trips, whose second half they are read over.
  const fast = rttMs < FAST_PATH_RTT_MS;
  const connections = fast ? 1 : SMB_READ_CONNECTIONS;
  const seconds = smbReadSeconds(rttMs, options);
  const bandwidth = await smbReadBandwidth(target, credentials, { ...(seconds ? { seconds } : {}), connections, rttMs, ...signal });
  return { ...bandwidth, ...(fallbackReason ? { fallbackReason } : {}) };
}

/** What the kernel held for the probe's connection, where it says: its path MTU and its congestion control. */
function pathOfKernel(kernel: TcpInfoSample | undefined): ProbeResult['path'] {
  const mtuBytes = kernel?.pmtuBytes;
  const congestion = kernel?.congestion;
  const path = {
    ...(mtuBytes !== undefined && isMtuBytes(mtuBytes) ? { mtuBytes } : {}),
    ...(congestion !== undefined && CONGESTION_NAME.test(congestion) ? { congestion } : {}),
  };
  return Object.keys(path).length > 0 ? path : undefined;
}
