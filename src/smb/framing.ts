// Direct-TCP framing (MS-SMB2 2.1): each SMB2 message is preceded by a 4-byte
// length. node-smb2 joins every arriving TCP chunk onto the unparsed rest,
// copying an 8 MiB read reply over and over (quadratic in its size).
//
// This reader tells the socket where to put the next bytes (Node's `onread`):
// once a large message's length is known, the socket reads straight into
// that message's own buffer, so its payload is never copied in user space.
// Small messages (headers, metadata replies) collect in a scratch buffer and
// are copied out, which costs little.

import { TRANSPORT_HEADER_BYTES } from './protocol.js';

/** Largest frame accepted: 8 MiB of data plus headers, with room for a 16 MiB server maximum. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024 + 65_536;
const SCRATCH_BYTES = 256 * 1024;
/** Large reply buffers kept for reuse: fresh memory costs a page fault per 4 KiB and grows RSS until GC runs. */
const SPARE_BUFFERS = 8;

export class FrameError extends Error {
  override readonly name = 'FrameError';
}

export class FrameReader {
  private readonly scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  /** Bytes in scratch [start, end) not yet consumed. */
  private start = 0;
  private end = 0;
  /** The large message being filled in place, and how much of it has arrived. */
  private message: Buffer | undefined;
  private filled = 0;
  private readonly spare: ArrayBuffer[] = [];
  /**
   * The largest frame the caller can be owed right now (what its outstanding
   * requests can bring back): a longer announced length is refused before any
   * memory is set aside for it.
   */
  maxFrameBytes = MAX_FRAME_BYTES;

  /**
   * Returns a large message's memory once its reader is done with every
   * slice of it (the caller's promise: nothing refers to it any more).
   */
  recycle(memory: ArrayBufferLike): void {
    if (memory instanceof ArrayBuffer && memory.byteLength > SCRATCH_BYTES && this.spare.length < SPARE_BUFFERS) this.spare.push(memory);
  }

  /** Memory for a large message: a spare one when one fits, else a buffer of its own (recyclable). */
  allocate(length: number): Buffer {
    const index = this.spare.findIndex((memory) => memory.byteLength >= length && memory.byteLength <= 2 * length);
    if (index >= 0) {
      const [memory] = this.spare.splice(index, 1);
      if (memory) return Buffer.from(memory, 0, length);
    }
    // A buffer of its own (not a slice of Node's shared pool), so it can be recycled whole.
    return Buffer.from(new ArrayBuffer(length));
  }

  /** The announced length of the frame being received, not yet whole (0 between frames, or before its length arrived). */
  partialFrameBytes(): number {
    if (this.message) return this.message.length;
    return this.end - this.start >= TRANSPORT_HEADER_BYTES ? this.scratch.readUInt32BE(this.start) & 0xffffff : 0;
  }

  /** Where the socket should put the next bytes it reads. */
  nextBuffer(): Buffer {
    if (this.message) return this.message.subarray(this.filled);
    if (this.end === SCRATCH_BYTES) this.compact();
    return this.scratch.subarray(this.end);
  }

  /** Takes the `bytes` just read into the buffer nextBuffer() returned; returns the messages they complete. */
  onRead(bytes: number): Buffer[] {
    if (this.message) {
      this.filled += bytes;
      if (this.filled < this.message.length) return [];
      const done = this.message;
      this.message = undefined;
      return [done];
    }
    this.end += bytes;
    return this.drainScratch();
  }

  /**
   * For tests and callers without `onread`: feeds bytes that arrived in some
   * other buffer, through the same path.
   */
  push(chunk: Buffer): Buffer[] {
    const messages: Buffer[] = [];
    let offset = 0;
    // Each pass consumes at least one byte of the chunk.
    while (offset < chunk.length) {
      const target = this.nextBuffer();
      const n = Math.min(target.length, chunk.length - offset);
      chunk.copy(target, 0, offset, offset + n);
      offset += n;
      messages.push(...this.onRead(n));
    }
    return messages;
  }

  private drainScratch(): Buffer[] {
    const messages: Buffer[] = [];
    for (;;) {
      const available = this.end - this.start;
      if (available < TRANSPORT_HEADER_BYTES) break;
      const length = this.scratch.readUInt32BE(this.start) & 0xffffff;
      if (this.scratch[this.start] !== 0) throw new FrameError(`Bad transport header byte ${this.scratch[this.start]}.`);
      if (length > Math.min(this.maxFrameBytes, MAX_FRAME_BYTES))
        throw new FrameError(
          `The server announced a message of ${length} bytes; nothing Pipefill has asked for can bring back more than ${Math.min(this.maxFrameBytes, MAX_FRAME_BYTES)}.`,
        );
      const bodyStart = this.start + TRANSPORT_HEADER_BYTES;
      const have = this.end - bodyStart;
      if (have >= length) {
        messages.push(Buffer.from(this.scratch.subarray(bodyStart, bodyStart + length)));
        this.start = bodyStart + length;
        continue;
      }
      if (length > SCRATCH_BYTES / 2) {
        // A large message: give it a buffer of its own and read the rest straight into it.
        this.message = this.allocate(length);
        this.scratch.copy(this.message, 0, bodyStart, this.end);
        this.filled = have;
        this.start = this.end = 0;
      }
      break;
    }
    if (this.start === this.end) this.start = this.end = 0;
    return messages;
  }

  /** Moves unconsumed scratch bytes to the front to make room. */
  private compact(): void {
    this.scratch.copy(this.scratch, 0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
  }
}
