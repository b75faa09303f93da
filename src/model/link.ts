// A network path as the model sees it: a bottleneck rate, a round-trip time,
// (optionally) a packet-loss rate, the size of the bottleneck's buffer and
// what the two machines at its ends take per request and per byte.

import type { HostCosts } from './host-costs.js';

export interface Link {
  readonly bandwidthBitsPerSecond: number;
  readonly rttMs: number;
  /** Fraction of packets lost, 0..1. Absent or 0: a clean path. */
  readonly lossRate?: number;
  /**
   * The bottleneck router's queue, bytes. Absent: one BDP, the rule routers
   * have long been sized by (Villamizar and Song, "High performance TCP in
   * ANSNET", 1994), deep enough that one Reno or CUBIC flow fills the line.
   */
  readonly bufferBytes?: number;
  /**
   * The hosts' own costs, measured on the share (src/model/host-costs.ts).
   * Absent: hosts fast enough never to matter, as on any WAN path.
   */
  readonly hosts?: HostCosts;
  /**
   * The largest packet the path carries: the kernel's path MTU once the
   * probe's transfers ran (src/probe/probe-path.ts), or a person's input (a
   * tunnel in the Planner, `--mtu`). Absent: Ethernet's 1500.
   */
  readonly mtuBytes?: number;
}

/** The bottleneck's queue in bytes: as given, or one BDP. */
export function bufferBytesOf(link: Link): number {
  return link.bufferBytes ?? bdpBytes(link);
}

/** Bandwidth-delay product: the bytes that must be in flight to keep the pipe full. */
export function bdpBytes(link: Link): number {
  return (link.bandwidthBitsPerSecond * (link.rttMs / 1000)) / 8;
}

export const ETHERNET_MTU_BYTES = 1500;
/** The path MTUs the model takes: IPv4's least a host must accept (RFC 791, 576) to loopback's 64 KiB. */
export const MTU_RANGE = { least: 576, most: 65_536 } as const;
/** Whether `bytes` is a path MTU the model takes: a whole number in MTU_RANGE. */
export const isMtuBytes = (bytes: number): boolean => Number.isInteger(bytes) && bytes >= MTU_RANGE.least && bytes <= MTU_RANGE.most;
/** IPv4 (20) + TCP (20) headers. */
const IP_TCP_HEADER_BYTES = 40;
/** TCP timestamp option, on by default on Linux, off by default on Windows. */
const TCP_TIMESTAMP_OPTION_BYTES = 12;
/**
 * Ethernet header counted by a WAN emulator that shapes frames (14 bytes;
 * preamble and FCS are not seen by software shapers). TR-3869's emulator and
 * Pipefill's own lab both shape at this level or at the IP packet, within 1%.
 */
const LINK_HEADER_BYTES = 14;

export function maxSegmentBytes(tcpTimestamps: boolean, mtuBytes = ETHERNET_MTU_BYTES): number {
  return mtuBytes - IP_TCP_HEADER_BYTES - (tcpTimestamps ? TCP_TIMESTAMP_OPTION_BYTES : 0);
}

/**
 * Share of the line rate that carries TCP payload: one MSS per MTU-sized
 * packet plus its link header. 1460 / 1514 = 0.964 for Windows' segments.
 * A 100 MB copy over OC-1 then takes 17.0 s, as TR-3869 measured for every
 * pipelined client (tr3869-32ms.json, read-100MB, OC1). A path MTU below
 * Ethernet's is a tunnel or PPPoE inside Ethernet frames: each packet on the
 * line is still a full frame, its own headers the tunnel's (WireGuard over
 * IPv4: 1420 inside 1500, so 1368 / 1514 = 0.904 with timestamps).
 */
export function payloadEfficiency(tcpTimestamps: boolean, mtuBytes = ETHERNET_MTU_BYTES): number {
  return maxSegmentBytes(tcpTimestamps, mtuBytes) / (Math.max(mtuBytes, ETHERNET_MTU_BYTES) + LINK_HEADER_BYTES);
}

/**
 * The line under a measured TCP payload rate (iperf3's, or a copy's), sent
 * by this machine's own stack (Linux and macOS send timestamps) in packets
 * of `mtuBytes`. What a probe or a copy measures is data: the headers are
 * already off it, and the model takes them off a line (payloadEfficiency).
 * Taken for the line as it is, the payload lost its headers twice: every
 * expectation about 4% slow on Ethernet, and through WireGuard's 1420-byte
 * packets a 50 Mb/s line read 46.2 (lab, 2026-11-28).
 */
export function lineRateOf(payloadBitsPerSecond: number, mtuBytes = ETHERNET_MTU_BYTES, tcpTimestamps = true): number {
  return payloadBitsPerSecond / payloadEfficiency(tcpTimestamps, mtuBytes);
}
