// How a connection's bytes reach its socket. Two ways, one order:
// - Node's own socket (cork, write buffers, uncork): every platform;
// - Pipefill's sender addon (native/sender): a thread of its own that also
//   reads a WRITE's data from the local source file itself, or makes the
//   test pattern's bytes, in cache-sized slices, and sends each at once
//   (signing the message with AES-GMAC first, when the session signs),
//   which moves the data for about what smbclient spends per byte (why, and
//   the figures: native/sender/src/addon.cc; bench:smb compares both with
//   smbclient). Linux only; where it is not built or not wanted
//   (PIPEFILL_NATIVE_SEND=0) the socket is used.
// All writes of a connection go through one writer, so requests reach the
// wire in the order they were numbered.

import type { Socket } from 'node:net';
import type { AddonLoad } from '../platform/native-addon.js';
import { addonPath, loadAddon } from '../platform/native-addon.js';

/** Bytes of an open local file: the data of a WRITE, read by the sender itself as it sends them. */
export interface FileRange {
  readonly fd: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * Bytes of Pipefill's test pattern (src/copy/pattern.ts): the AES-128-CTR
 * keystream of `patternKey` from byte `offset`, made by the sender thread as
 * it sends them.
 */
export interface PatternRange {
  readonly patternKey: Buffer;
  readonly offset: number;
  readonly length: number;
}

/** Data the sender addon reads or makes itself: only a `native` writer takes these. */
export type DataRange = FileRange | PatternRange;

export type FramePart = Buffer | DataRange;

/**
 * A message the sender addon signs with AES-128-GMAC as it reads its data
 * (MS-SMB2 3.1.4.1): parts[header] is the 64-byte SMB2 header, its SIGNED
 * flag set and Signature zeroed (prepareToSign); the signature covers it and
 * every part after it.
 */
export interface NativeSignature {
  readonly gmacKey: Buffer;
  readonly nonce: Buffer;
  readonly header: number;
}

export interface FrameWriter {
  /** `native` when the sender addon sends (and takes file and pattern ranges, and signs with AES-GMAC), `socket` when Node's socket does (buffers only). */
  readonly kind: 'native' | 'socket';
  /** Queues the parts of one transport frame, in order, signed on the way when `sign` says so (native only). Throws if the connection has already failed. */
  write(parts: readonly FramePart[], sign?: NativeSignature): void;
  /** Stops sending; what is still queued is dropped (the connection is closing). */
  close(): void;
}

class SocketWriter implements FrameWriter {
  readonly kind = 'socket';

  constructor(private readonly socket: Socket) {}

  write(parts: readonly FramePart[], sign?: NativeSignature): void {
    if (sign) throw new Error('This connection signs nothing itself: sign the message in memory first.');
    // Checked before anything is written: half a frame on the wire would garble the stream.
    const buffers = parts.filter((part): part is Buffer => Buffer.isBuffer(part));
    if (buffers.length !== parts.length) throw new Error('This connection sends buffers only: read the file or make the pattern in memory first.');
    this.socket.cork();
    for (const buffer of buffers) this.socket.write(buffer);
    this.socket.uncork();
  }

  close(): void {
    // The socket is the connection's; it closes it.
  }
}

interface SenderAddon {
  Sender: new (
    fd: number,
    onDone: (id: number, error: string | null) => void,
  ) => {
    /** 0 when everything went out at once, else the id its completion will carry. */
    send(parts: readonly FramePart[], sign?: NativeSignature): number;
    close(): void;
  };
  /** The kernel's round trip for a TCP socket (src/smb/kernel-rtt.ts); undefined when it has none. Absent from a build before it. */
  tcpRoundTrip?(fd: number):
    | {
        readonly rttUs: number;
        readonly minRttUs: number;
        readonly bytesSent?: number;
        readonly bytesRetrans?: number;
        readonly inFlightBytes?: number;
        readonly deliveryBytesPerSecond?: number;
      }
    | undefined;
}

const SENDER_PATH = addonPath('sender', 'pipefill_sender');
let sender: AddonLoad<SenderAddon> | undefined;

/** Whether the sender addon is loaded here, or why not. */
export function senderAddon(): AddonLoad<SenderAddon> {
  sender ??=
    process.platform === 'linux'
      ? loadAddon<SenderAddon>(SENDER_PATH, "Pipefill's sender addon", 'on Linux with a C++ compiler')
      : { available: false, reason: `the sender addon is used on Linux only (this is ${process.platform})` };
  return sender;
}

class NativeWriter implements FrameWriter {
  readonly kind = 'native';
  // The buffers of each queued job: the thread reads them until its completion arrives.
  private readonly jobs = new Map<number, readonly FramePart[]>();
  private readonly sender: InstanceType<SenderAddon['Sender']>;

  constructor(addon: SenderAddon, fd: number, onError: (message: string) => void) {
    this.sender = new addon.Sender(fd, (id, error) => {
      this.jobs.delete(id);
      if (error !== null) onError(error);
    });
  }

  write(parts: readonly FramePart[], sign?: NativeSignature): void {
    // The key, nonce and header are copied by the addon; the other buffers are read until the completion.
    const id = this.sender.send(parts, sign);
    if (id !== 0) this.jobs.set(id, parts);
  }

  close(): void {
    this.sender.close();
    this.jobs.clear();
  }
}

export type WriterChoice = 'auto' | 'native' | 'socket';

/** The writer a new connection uses: the sender addon when it is there and wanted, else Node's socket. */
export function openFrameWriter(socket: Socket, onError: (message: string) => void, choice: WriterChoice = 'auto'): FrameWriter {
  const wanted = choice === 'auto' ? process.env['PIPEFILL_NATIVE_SEND'] !== '0' : choice === 'native';
  const addon = wanted ? senderAddon() : undefined;
  // libuv's TCP handle exposes its descriptor on Unix; without one there is nothing to hand the thread.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (addon?.available && typeof fd === 'number' && fd >= 0) return new NativeWriter(addon.addon, fd, onError);
  if (choice === 'native') throw new Error(addon && !addon.available ? addon.reason : 'the socket has no descriptor to send on');
  return new SocketWriter(socket);
}
