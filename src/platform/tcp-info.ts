// What the kernel knows about a copy's TCP connection: the window the peer
// advertises and how long sending waited on it. On Linux, `ss -ti` prints the
// connection's tcp_info; sampled when the copy starts and ends, the
// difference belongs to the copy. This is the evidence that tells "the
// server's TCP window" apart from "something else" when a copy stalls below
// every SMB-level limit. Elsewhere there is no evidence, and the diagnosis
// says less.

import { spawn } from 'node:child_process';

export interface TcpInfoSample {
  /** The receive window the peer last advertised (scaled), bytes. */
  readonly sndWndBytes?: number;
  /** Our own receive-buffer estimate (what we can advertise), bytes. */
  readonly rcvSpaceBytes?: number;
  /** Time the sender had data to send, and the part of it spent waiting on the peer's window or our send buffer. */
  readonly busyMs?: number;
  readonly rwndLimitedMs?: number;
  readonly sndbufLimitedMs?: number;
  readonly bytesSent?: number;
  readonly bytesRetrans?: number;
  readonly bytesReceived?: number;
  /** Bytes sent that the peer has acknowledged. */
  readonly bytesAcked?: number;
  /** The kernel's smoothed round trip (ms). */
  readonly rttMs?: number;
  /** The least round trip the connection has seen (ms). */
  readonly minRttMs?: number;
  /** Segments that arrived out of order: a gap, filled later by a retransmission (loss on the way here). */
  readonly rcvOooPackets?: number;
  /** The largest payload this side sends in a segment (TCP options taken off), and the path MTU the kernel holds for the connection: their difference is each packet's IP and TCP headers. */
  readonly mssBytes?: number;
  readonly pmtuBytes?: number;
  readonly congestion?: string;
}

export interface TcpEvidence {
  readonly peerWindowBytes?: number;
  readonly receiveSpaceBytes?: number;
  /** Share of the copy's sending time that waited on the peer's receive window. */
  readonly peerWindowLimitedFraction?: number;
  readonly sendBufferLimitedFraction?: number;
  /** Retransmitted bytes over bytes sent during the copy. */
  readonly retransmittedFraction?: number;
  /** The kernel's smoothed RTT before and after the copy (ms): a path whose delay changed shows here. */
  readonly rttStartMs?: number;
  readonly rttEndMs?: number;
  /** Segments received out of order during the copy: losses on the server's way to this client. */
  readonly outOfOrderPackets?: number;
  /**
   * Of the bytes sent (a write's), those sent again whose losses came with
   * the queue near its fullest (the copy's own) and with no queue behind them
   * (the path's), and the most the round trip rose during the copy (ms):
   * src/model/loss-split.ts.
   */
  readonly lossAtQueueFraction?: number;
  readonly lossOnPathFraction?: number;
  readonly peakQueueMs?: number;
  /** Of the bytes sent, those sent again too few to say whose (src/model/loss-split.ts, LossSplit.decided). */
  readonly lossUnsplitFraction?: number;
  /** The deepest queue that stood at losses not put to the path (ms): an overflow's depth, if they were one. */
  readonly queueAtLossMs?: number;
  readonly congestion?: string;
}

const number = (text: string, pattern: RegExp): number | undefined => {
  const match = pattern.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
};

/** Parses one connection's `ss -tinH` output (pure). */
export function parseSsTcpInfo(text: string): TcpInfoSample | undefined {
  // One connection: its addresses, then a line of tcp_info (mss is always there).
  if (!/\bmss:\d+/.test(text)) return undefined;
  const values: Record<string, number | undefined> = {
    sndWndBytes: number(text, /\bsnd_wnd:(\d+)/),
    rcvSpaceBytes: number(text, /\brcv_space:(\d+)/),
    busyMs: number(text, /\bbusy:(\d+)ms/),
    rwndLimitedMs: number(text, /\brwnd_limited:(\d+)ms/),
    sndbufLimitedMs: number(text, /\bsndbuf_limited:(\d+)ms/),
    bytesSent: number(text, /\bbytes_sent:(\d+)/),
    bytesRetrans: number(text, /\bbytes_retrans:(\d+)/),
    bytesReceived: number(text, /\bbytes_received:(\d+)/),
    bytesAcked: number(text, /\bbytes_acked:(\d+)/),
    rttMs: number(text, /\brtt:([\d.]+)\//),
    minRttMs: number(text, /\bminrtt:([\d.]+)/),
    rcvOooPackets: number(text, /\brcv_ooopack:(\d+)/),
    mssBytes: number(text, /\smss:(\d+)/),
    pmtuBytes: number(text, /\bpmtu:(\d+)/),
  };
  // The tcp_info line starts with the congestion control's name.
  const congestion = /^\s+([a-z][a-z0-9_]*)\s+(?:wscale|rto|ts|sack|ecn)/m.exec(text)?.[1];
  const present = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && Number.isFinite(value)));
  return { ...present, ...(congestion ? { congestion } : {}) };
}

/** The difference between two samples of the same connection (pure). */
export function tcpEvidence(before: TcpInfoSample | undefined, after: TcpInfoSample | undefined): TcpEvidence | undefined {
  if (!after) return undefined;
  const delta = (key: 'busyMs' | 'rwndLimitedMs' | 'sndbufLimitedMs' | 'bytesSent' | 'bytesRetrans') => (after[key] ?? 0) - (before?.[key] ?? 0);
  const busy = delta('busyMs');
  const sent = delta('bytesSent');
  return {
    ...(after.sndWndBytes === undefined ? {} : { peerWindowBytes: after.sndWndBytes }),
    ...(after.rcvSpaceBytes === undefined ? {} : { receiveSpaceBytes: after.rcvSpaceBytes }),
    ...(busy > 0
      ? { peerWindowLimitedFraction: Math.min(1, delta('rwndLimitedMs') / busy), sendBufferLimitedFraction: Math.min(1, delta('sndbufLimitedMs') / busy) }
      : {}),
    ...(sent > 0 ? { retransmittedFraction: delta('bytesRetrans') / sent } : {}),
    ...(before?.rttMs === undefined ? {} : { rttStartMs: before.rttMs }),
    ...(after.rttMs === undefined ? {} : { rttEndMs: after.rttMs }),
    ...(after.rcvOooPackets === undefined ? {} : { outOfOrderPackets: after.rcvOooPackets - (before?.rcvOooPackets ?? 0) }),
    ...(after.congestion ? { congestion: after.congestion } : {}),
  };
}

export interface TcpEndpoints {
  readonly localPort: number;
  readonly remotePort: number;
}

/**
 * Every connection in one `ss -tinH` listing, by local port (pure): an
 * address line (`Recv-Q Send-Q local:port peer:port`), then its indented
 * tcp_info line.
 */
export function parseSsConnections(text: string): Map<number, TcpInfoSample> {
  const connections = new Map<number, TcpInfoSample>();
  let localPort: number | undefined;
  let info = '';
  const flush = () => {
    const sample = localPort === undefined ? undefined : parseSsTcpInfo(info);
    if (localPort !== undefined && sample) connections.set(localPort, sample);
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (!/^\s/.test(line)) {
      flush();
      const ports = [...line.matchAll(/:(\d{1,5})(?=\s|$)/g)].map((match) => Number(match[1]));
      localPort = ports.length >= 2 && ports[0] !== undefined && ports[0] <= 65_535 ? ports[0] : undefined;
      info = '';
    } else {
      info += `${line}\n`;
    }
  }
  flush();
  return connections;
}

/** Every established connection to `remotePort` on this machine, through one `ss` call; undefined off Linux or on failure. Never throws. */
export function sampleConnectionsTo(remotePort: number): Promise<Map<number, TcpInfoSample> | undefined> {
  if (process.platform !== 'linux' || !(Number.isInteger(remotePort) && remotePort > 0 && remotePort <= 65_535)) return Promise.resolve(undefined);
  return runSs(`( dport = :${remotePort} )`).then((text) => (text === undefined ? undefined : parseSsConnections(text)));
}

/** Samples the connection's tcp_info through `ss`; undefined where that is not possible. Never throws. */
export function sampleTcpInfo(endpoints: TcpEndpoints): Promise<TcpInfoSample | undefined> {
  if (process.platform !== 'linux' || endpoints.localPort === 0) return Promise.resolve(undefined);
  return runSs(`( sport = :${endpoints.localPort} and dport = :${endpoints.remotePort} )`).then((text) =>
    text === undefined ? undefined : parseSsTcpInfo(text),
  );
}

/** `ss -tinH state established FILTER`'s output; undefined when ss is missing, fails or takes over 2 s. Never throws. */
function runSs(filter: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn('ss', ['-tinH', 'state', 'established', filter], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? text : undefined);
    });
  });
}
