// The kernel's own round trip for a TCP connection (Linux TCP_INFO, through
// the socket addon: native/sender/src/tcp_info.cc). The probe's handshakes
// are timed by it where it can: the kernel stamps the SYN and its SYN-ACK in
// its own softirq, where the event loop's clock runs late on a busy machine
// (a 60 ms lab link read 82.5 ms beside a busy core, issue 48). Elsewhere
// (macOS, Windows, no addon) the caller times in the process, and says so.

import type { Socket } from 'node:net';
import { senderAddon } from './frame-writer.js';

export interface KernelRoundTrip {
  /** The smoothed round trip (ms); for a connection just made, its handshake's. */
  readonly rttMs: number;
  /** The least round trip the connection has seen (ms). */
  readonly minRttMs: number;
  /** Bytes sent on the connection, those sent again included, and of them sent again (Linux 4.19 and later). */
  readonly bytesSent?: number;
  readonly bytesRetrans?: number;
  /** What the kernel counts in flight (bytes), and its latest delivery rate (bytes/s): Linux 4.9 and later. */
  readonly inFlightBytes?: number;
  readonly deliveryBytesPerSecond?: number;
}

/** The kernel's round trip for a connected socket, or undefined where the kernel is not asked. */
export function kernelRoundTrip(socket: Socket): KernelRoundTrip | undefined {
  const addon = senderAddon();
  // libuv's TCP handle exposes its descriptor on Unix.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (!addon.available || typeof addon.addon.tcpRoundTrip !== 'function' || typeof fd !== 'number' || fd < 0) return undefined;
  const info = addon.addon.tcpRoundTrip(fd);
  if (!info || !(info.rttUs > 0)) return undefined;
  const counts = info.bytesSent !== undefined && info.bytesRetrans !== undefined ? { bytesSent: info.bytesSent, bytesRetrans: info.bytesRetrans } : {};
  const flight =
    info.inFlightBytes !== undefined && info.deliveryBytesPerSecond !== undefined
      ? { inFlightBytes: info.inFlightBytes, deliveryBytesPerSecond: info.deliveryBytesPerSecond }
      : {};
  return { rttMs: info.rttUs / 1000, minRttMs: (info.minRttUs > 0 ? info.minRttUs : info.rttUs) / 1000, ...counts, ...flight };
}
