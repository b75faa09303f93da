// AES-CMAC (RFC 4493) over Node's AES. Node exposes no CMAC, so the mode is
// built here from what it does expose: the block cipher (ECB, one block, for
// the subkeys and the last step) and CBC with a zero IV, whose last
// ciphertext block is the CBC-MAC of everything before the final block.
// No cipher of our own: only the mode's XORs and the subkey doubling.

import { createCipheriv } from 'node:crypto';

const BLOCK = 16;
const ZERO_BLOCK = Buffer.alloc(BLOCK);
/** R_b for a 128-bit block (RFC 4493 2.3). */
const RB = 0x87;

function aesBlock(key: Buffer, block: Buffer): Buffer {
  const cipher = createCipheriv(key.length === 32 ? 'aes-256-ecb' : 'aes-128-ecb', key, null);
  cipher.setAutoPadding(false);
  return cipher.update(block);
}

/** Doubling in GF(2^128): shift left one bit, XOR R_b when the top bit fell out. */
function double(block: Buffer): Buffer {
  const out = Buffer.alloc(BLOCK);
  for (let i = 0; i < BLOCK; i++) out[i] = (((block[i] ?? 0) << 1) | ((block[i + 1] ?? 0) >> 7)) & 0xff;
  if (((block[0] ?? 0) & 0x80) !== 0) out[BLOCK - 1] = (out[BLOCK - 1] ?? 0) ^ RB;
  return out;
}

/** The subkeys K1 and K2 (RFC 4493 2.3). */
function subkeys(key: Buffer): { k1: Buffer; k2: Buffer } {
  const k1 = double(aesBlock(key, ZERO_BLOCK));
  return { k1, k2: double(k1) };
}

/**
 * A CMAC key: subkeys computed once, then any number of MACs. The message
 * comes as pieces so a WRITE's header, body and data need not be joined.
 */
export class AesCmac {
  private readonly k1: Buffer;
  private readonly k2: Buffer;
  private readonly cbc: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 16 && key.length !== 32) throw new Error(`An AES key is 16 or 32 bytes, not ${key.length}.`);
    ({ k1: this.k1, k2: this.k2 } = subkeys(key));
    this.cbc = key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc';
  }

  mac(pieces: readonly Buffer[]): Buffer {
    const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
    // The final block (complete, or the partial tail) is held back for the subkey step.
    const lastLength = total === 0 ? 0 : total % BLOCK === 0 ? BLOCK : total % BLOCK;
    const headLength = total - lastLength;
    let chain: Buffer = ZERO_BLOCK;
    if (headLength > 0) {
      const cipher = createCipheriv(this.cbc, this.key, ZERO_BLOCK);
      cipher.setAutoPadding(false);
      let fed = 0;
      let lastOut: Buffer | undefined;
      for (const piece of pieces) {
        if (fed >= headLength) break;
        const take = Math.min(piece.length, headLength - fed);
        const out = cipher.update(take === piece.length ? piece : piece.subarray(0, take));
        if (out.length >= BLOCK) lastOut = out;
        else if (out.length > 0) lastOut = Buffer.concat([lastOut ?? Buffer.alloc(0), out]);
        fed += take;
      }
      if (!lastOut || lastOut.length < BLOCK) throw new Error('CMAC: the CBC chain produced no block.');
      chain = lastOut.subarray(lastOut.length - BLOCK);
    }
    const last = Buffer.alloc(BLOCK);
    let at = 0;
    let skip = headLength;
    for (const piece of pieces) {
      if (skip >= piece.length) {
        skip -= piece.length;
        continue;
      }
      at += piece.copy(last, at, skip);
      skip = 0;
    }
    const complete = lastLength === BLOCK;
    if (!complete) last[lastLength] = 0x80;
    const subkey = complete ? this.k1 : this.k2;
    for (let i = 0; i < BLOCK; i++) last[i] = (last[i] ?? 0) ^ (subkey[i] ?? 0) ^ (chain[i] ?? 0);
    return aesBlock(this.key, last);
  }
}
