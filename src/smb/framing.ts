// Direct-TCP framing (MS-SMB2 2.1): each SMB2 message is preceded by a 4-byte
// length. node-smb2 joins every arriving TCP chunk onto the unparsed rest, which
// copies an 8 MiB read reply over and over (quadratic in its size); this keeps
// the chunks in a list and copies each byte at most once, and not at all when
// a message sits inside one chunk.

import { TRANSPORT_HEADER_BYTES } from './protocol.js';

/** Largest frame accepted: 8 MiB of data plus headers, with room for a 16 MiB server maximum. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024 + 65_536;

export class MessageFramer {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Adds received bytes; returns every message they complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Buffer[] = [];
    for (;;) {
      if (this.buffered < TRANSPORT_HEADER_BYTES) return messages;
      const length = this.peekLength();
      if (length > MAX_FRAME_BYTES) throw new Error(`The server sent a frame of ${length} bytes, larger than any SMB2 message Pipefill asks for.`);
      if (this.buffered < TRANSPORT_HEADER_BYTES + length) return messages;
      this.take(TRANSPORT_HEADER_BYTES);
      messages.push(this.take(length));
    }
  }

  private peekLength(): number {
    const first = this.chunks[0];
    if (first && first.length >= TRANSPORT_HEADER_BYTES) return first.readUInt32BE(0) & 0xffffff;
    return this.peek(TRANSPORT_HEADER_BYTES).readUInt32BE(0) & 0xffffff;
  }

  private peek(bytes: number): Buffer {
    const out = Buffer.allocUnsafe(bytes);
    let filled = 0;
    for (const chunk of this.chunks) {
      if (filled === bytes) break;
      const n = Math.min(chunk.length, bytes - filled);
      chunk.copy(out, filled, 0, n);
      filled += n;
    }
    return out;
  }

  /** Removes and returns the first `bytes` bytes; a slice, not a copy, when they sit in one chunk. */
  private take(bytes: number): Buffer {
    this.buffered -= bytes;
    const first = this.chunks[0];
    if (first && first.length >= bytes) {
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
      return first.subarray(0, bytes);
    }
    const out = Buffer.allocUnsafe(bytes);
    let filled = 0;
    while (filled < bytes) {
      const chunk = this.chunks[0];
      if (!chunk) throw new Error('Framer ran out of buffered bytes.');
      const n = Math.min(chunk.length, bytes - filled);
      chunk.copy(out, filled, 0, n);
      filled += n;
      if (n === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(n);
    }
    return out;
  }
}
