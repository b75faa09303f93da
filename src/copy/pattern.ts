// Test-file contents: incompressible pseudo-random bytes from a seed. The
// bytes at any offset are an AES-128-CTR keystream block, so a writer can
// produce any slice on demand and a reader can check any reply against what
// was written, in whatever order replies arrive, without keeping the file.
// (WAN optimisers and SMB compression would make compressible data look fast.)
//
// Where the crypto addon is built (native/crypto), its OpenSSL makes the
// bytes in the caller's memory and checks a reply against them without a
// copy (native/common/pattern_keystream.h): no fresh memory per piece, so a
// 256 MiB local source leaves no 768 MiB of garbage for the collector to
// free during the timed copy that follows. Elsewhere Node's Cipher does it
// in 1 MiB pieces against one reused zero buffer: AES-CTR runs at about
// 2.3 GB/s on a piece that stays in cache, and at half that when one call
// produces 8 MiB of fresh memory (measured on the project's machines).
// A write through the sender addon names a range instead (`range`), and the
// addon's thread makes the same keystream in place as it sends it.

import type { Cipheriv } from 'node:crypto';
import { createCipheriv, createHash } from 'node:crypto';
import type { PatternRange } from '../smb/frame-writer.js';
import { cryptoAddon } from '../smb/native-crypto.js';

const BLOCK_BYTES = 16;
export const PIECE_BYTES = 1024 * 1024;
const ZEROS = Buffer.alloc(PIECE_BYTES);

export class PatternSource {
  private readonly key: Buffer;

  /** One pattern per (seed, name): every file of a directory set differs. */
  constructor(seed: string, name: string) {
    this.key = createHash('sha256').update(`pipefill:${seed}:${name}`).digest().subarray(0, 16);
  }

  /** A keystream positioned at `offset`, and how many bytes to drop to reach it. */
  private streamAt(offset: number): { cipher: Cipheriv; skip: number } {
    const firstBlock = Math.floor(offset / BLOCK_BYTES);
    const iv = Buffer.alloc(16);
    iv.writeBigUInt64BE(BigInt(firstBlock), 8);
    return { cipher: createCipheriv('aes-128-ctr', this.key, iv), skip: offset - firstBlock * BLOCK_BYTES };
  }

  /** The `length` bytes at `offset`, as pieces of at most 1 MiB (for a vectored write). */
  pieces(offset: number, length: number): Buffer[] {
    const native = cryptoAddon();
    if (native.available) {
      const pieces: Buffer[] = [];
      for (let done = 0; done < length; done += PIECE_BYTES) {
        const piece = Buffer.allocUnsafe(Math.min(PIECE_BYTES, length - done));
        native.addon.patternFill(this.key, offset + done, piece);
        pieces.push(piece);
      }
      return pieces;
    }
    const { cipher, skip } = this.streamAt(offset);
    if (skip > 0) cipher.update(ZEROS.subarray(0, skip));
    const pieces: Buffer[] = [];
    for (let done = 0; done < length; done += PIECE_BYTES) {
      pieces.push(cipher.update(ZEROS.subarray(0, Math.min(PIECE_BYTES, length - done))));
    }
    return pieces;
  }

  /**
   * The `length` bytes at `offset` as a range the sender addon makes itself
   * as it sends it (frame-writer.ts), with the same keystream: no buffer here.
   */
  range(offset: number, length: number): PatternRange {
    return { patternKey: this.key, offset, length };
  }

  /** The `length` bytes at `offset`, in one buffer. */
  bytes(offset: number, length: number): Buffer {
    const native = cryptoAddon();
    if (native.available) {
      const bytes = Buffer.allocUnsafe(length);
      native.addon.patternFill(this.key, offset, bytes);
      return bytes;
    }
    const pieces = this.pieces(offset, length);
    return pieces.length === 1 && pieces[0] ? pieces[0] : Buffer.concat(pieces, length);
  }

  /** Fills `target` with the bytes from `offset`: a reused buffer, no fresh memory where the addon is built. */
  fill(target: Buffer, offset: number): void {
    const native = cryptoAddon();
    if (native.available) {
      native.addon.patternFill(this.key, offset, target);
      return;
    }
    let done = 0;
    for (const piece of this.pieces(offset, target.length)) done += piece.copy(target, done);
  }

  /** True when `data` is exactly what the pattern holds at `offset`. */
  matches(offset: number, data: Buffer): boolean {
    const native = cryptoAddon();
    if (native.available) return native.addon.patternMatches(this.key, offset, data);
    const { cipher, skip } = this.streamAt(offset);
    if (skip > 0) cipher.update(ZEROS.subarray(0, skip));
    for (let done = 0; done < data.length; done += PIECE_BYTES) {
      const end = Math.min(data.length, done + PIECE_BYTES);
      if (!cipher.update(ZEROS.subarray(0, end - done)).equals(data.subarray(done, end))) return false;
    }
    return true;
  }
}
