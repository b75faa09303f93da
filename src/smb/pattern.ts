// Test-file contents: incompressible pseudo-random bytes from a seed. The
// bytes at any offset are an AES-128-CTR keystream block, so a writer can
// produce any slice on demand and a reader can check any reply against what
// was written, in whatever order replies arrive, without keeping the file.
// (WAN optimisers and SMB compression would make compressible data look fast.)

import { createCipheriv, createHash } from 'node:crypto';

const BLOCK_BYTES = 16;

export class PatternSource {
  private readonly key: Buffer;

  /** One pattern per (seed, name): every file of a directory set differs. */
  constructor(seed: string, name: string) {
    this.key = createHash('sha256').update(`pipefill:${seed}:${name}`).digest().subarray(0, 16);
  }

  /** The `length` bytes at `offset`. */
  bytes(offset: number, length: number): Buffer {
    const firstBlock = Math.floor(offset / BLOCK_BYTES);
    const skip = offset - firstBlock * BLOCK_BYTES;
    const iv = Buffer.alloc(16);
    iv.writeBigUInt64BE(BigInt(firstBlock), 8);
    const cipher = createCipheriv('aes-128-ctr', this.key, iv);
    const stream = cipher.update(Buffer.alloc(skip + length));
    return skip === 0 ? stream : stream.subarray(skip);
  }

  /** True when `data` is exactly what the pattern holds at `offset`. */
  matches(offset: number, data: Buffer): boolean {
    return this.bytes(offset, data.length).equals(data);
  }
}
