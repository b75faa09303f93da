// Encryption (MS-SMB2 2.2.41, 3.1.4.3): a message, or a whole compound, is
// sent as a 52-byte TRANSFORM_HEADER followed by its ciphertext. The AEAD's
// additional data is the header from its Nonce field to its end (32 bytes);
// its tag is the header's Signature.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { cryptoAddon } from '../native-crypto.js';
import type { CipherName } from './algorithms.js';

export const TRANSFORM_HEADER_BYTES = 52;
const TRANSFORM_PROTOCOL_ID = 0x424d53fd; // 0xFD 'S' 'M' 'B'
const SIGNATURE_OFFSET = 4;
const NONCE_OFFSET = 20;
const ORIGINAL_SIZE_OFFSET = 36;
const FLAGS_OFFSET = 42;
const SESSION_ID_OFFSET = 44;
const TAG_BYTES = 16;
/** Slices a large GCM reply is opened in: small enough for the allocator to reuse their memory. */
const OPEN_SLICE_BYTES = 64 * 1024;
/** Pieces the addon seals in one call at most (native/crypto/src/addon.c SEAL_MAX_PIECES). */
const SEAL_MAX_PIECES = 1024;
/** Flags (3.1.1) / EncryptionAlgorithm (3.0.x): both say "encrypted" with 0x0001. */
const ENCRYPTED = 0x0001;

export const isTransformed = (frame: Buffer): boolean => frame.length >= 4 && frame.readUInt32LE(0) === TRANSFORM_PROTOCOL_ID;

export class TransformError extends Error {
  override readonly name = 'TransformError';
}

interface CipherMode {
  readonly node: 'aes-128-ccm' | 'aes-128-gcm' | 'aes-256-ccm' | 'aes-256-gcm';
  readonly nonceBytes: 11 | 12;
  readonly ccm: boolean;
}

const MODES: Readonly<Record<CipherName, CipherMode>> = {
  'AES-128-CCM': { node: 'aes-128-ccm', nonceBytes: 11, ccm: true },
  'AES-128-GCM': { node: 'aes-128-gcm', nonceBytes: 12, ccm: false },
  'AES-256-CCM': { node: 'aes-256-ccm', nonceBytes: 11, ccm: true },
  'AES-256-GCM': { node: 'aes-256-gcm', nonceBytes: 12, ccm: false },
};

/**
 * One session's sealing in both directions. Nonces never repeat under a key:
 * each is a 64-bit counter followed by random bytes fixed for the session
 * (CCM has room for 3 of them, GCM for 4).
 */
export class Sealer {
  private readonly mode: CipherMode;
  private counter = 0n;
  private readonly salt: Buffer;

  constructor(
    readonly cipher: CipherName,
    private readonly encryptionKey: Buffer,
    private readonly decryptionKey: Buffer,
    private readonly sessionId: bigint,
  ) {
    this.mode = MODES[cipher];
    const keyBytes = cipher.startsWith('AES-256') ? 32 : 16;
    if (encryptionKey.length !== keyBytes || decryptionKey.length !== keyBytes) throw new Error(`${cipher} needs ${keyBytes}-byte keys.`);
    this.salt = randomBytes(this.mode.nonceBytes - 8);
  }

  private nextNonce(): Buffer {
    const nonce = Buffer.alloc(16);
    nonce.writeBigUInt64LE(this.counter++, 0);
    this.salt.copy(nonce, 8);
    return nonce;
  }

  /**
   * Seals a message (or compound) given as pieces: returns the transform
   * header and the ciphertext pieces, in wire order. The pieces in `spend`
   * are the caller's to lose: with the crypto addon (GCM) they are
   * encrypted in place and sent as they are, and every other piece is
   * first copied into one new buffer; so no piece the caller keeps changes,
   * and a sealed write takes no fresh memory for its data.
   */
  seal(pieces: readonly Buffer[], nonceField?: Buffer, spend?: ReadonlySet<Buffer>): Buffer[] {
    const size = pieces.reduce((sum, piece) => sum + piece.length, 0);
    const header = Buffer.alloc(TRANSFORM_HEADER_BYTES);
    header.writeUInt32LE(TRANSFORM_PROTOCOL_ID, 0);
    (nonceField ?? this.nextNonce()).copy(header, NONCE_OFFSET, 0, 16);
    header.writeUInt32LE(size, ORIGINAL_SIZE_OFFSET);
    header.writeUInt16LE(ENCRYPTED, FLAGS_OFFSET);
    header.writeBigUInt64LE(this.sessionId, SESSION_ID_OFFSET);
    const nonce = header.subarray(NONCE_OFFSET, NONCE_OFFSET + this.mode.nonceBytes);
    const aad = header.subarray(NONCE_OFFSET);
    const inPlace = spend && spend.size > 0 && !this.mode.ccm ? this.sealInPlace(header, pieces, spend) : undefined;
    if (inPlace) return inPlace;
    const out: Buffer[] = [header];
    if (this.mode.ccm) {
      // Node's CCM takes the plaintext in one call, its length announced with the AAD.
      const cipher = createCipheriv(this.mode.node as 'aes-128-ccm', this.encryptionKey, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad, { plaintextLength: size });
      out.push(cipher.update(pieces.length === 1 && pieces[0] ? pieces[0] : Buffer.concat(pieces as Buffer[], size)));
      cipher.final();
      cipher.getAuthTag().copy(header, SIGNATURE_OFFSET);
    } else {
      const cipher = createCipheriv(this.mode.node as 'aes-128-gcm', this.encryptionKey, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      for (const piece of pieces) if (piece.length > 0) out.push(cipher.update(piece));
      cipher.final();
      cipher.getAuthTag().copy(header, SIGNATURE_OFFSET);
    }
    return out;
  }

  /** GCM in place through the addon (see seal); undefined where the addon cannot, and nothing was changed then. */
  private sealInPlace(header: Buffer, pieces: readonly Buffer[], spend: ReadonlySet<Buffer>): Buffer[] | undefined {
    const native = cryptoAddon();
    if (!native.available || !native.addon.seal) return undefined;
    const addon = native.addon;
    const owned: Buffer[] = [];
    let kept: Buffer[] = [];
    const copyKept = () => {
      if (kept.length > 0) owned.push(Buffer.concat(kept));
      kept = [];
    };
    const seen = new Set<Buffer>();
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      if (spend.has(piece)) {
        // A spent piece given twice would be encrypted twice over: Node's way, which copies, instead.
        if (seen.has(piece)) return undefined;
        seen.add(piece);
        copyKept();
        owned.push(piece);
      } else kept.push(piece);
    }
    copyKept();
    if (owned.length > SEAL_MAX_PIECES) return undefined;
    const nonce = header.subarray(NONCE_OFFSET, NONCE_OFFSET + this.mode.nonceBytes);
    const aad = header.subarray(NONCE_OFFSET);
    const tag = header.subarray(SIGNATURE_OFFSET, SIGNATURE_OFFSET + TAG_BYTES);
    // OpenSSL refusing a key it took before would be a broken build; the spent pieces are garbage then, so it throws.
    if (!addon.seal?.(this.encryptionKey, nonce, aad, owned, tag)) throw new Error(`The crypto addon could not seal a message with ${this.cipher}.`);
    return [header, ...owned];
  }

  /**
   * Opens a received transform frame: checks its header against the
   * session and its length, authenticates and decrypts. Throws
   * TransformError for anything that does not open; nothing of a frame that
   * fails is ever returned. A large frame is opened in place where the
   * crypto addon is built (the result is then a view of `frame`), else
   * into memory from `output`.
   */
  open(frame: Buffer, output?: (length: number) => Buffer): Buffer {
    if (!isTransformed(frame) || frame.length < TRANSFORM_HEADER_BYTES) throw new TransformError('not a TRANSFORM_HEADER frame');
    const size = frame.readUInt32LE(ORIGINAL_SIZE_OFFSET);
    if (size !== frame.length - TRANSFORM_HEADER_BYTES)
      throw new TransformError(`the transform header announces ${size} bytes but ${frame.length - TRANSFORM_HEADER_BYTES} follow`);
    if (size < 64) throw new TransformError(`an encrypted message of ${size} bytes is shorter than an SMB2 header`);
    const sessionId = frame.readBigUInt64LE(SESSION_ID_OFFSET);
    if (sessionId !== this.sessionId)
      throw new TransformError(`an encrypted message for session 0x${sessionId.toString(16)}, not this session's 0x${this.sessionId.toString(16)}`);
    if (frame.readUInt16LE(FLAGS_OFFSET) !== ENCRYPTED) throw new TransformError(`unknown transform flags 0x${frame.readUInt16LE(FLAGS_OFFSET).toString(16)}`);
    const nonce = frame.subarray(NONCE_OFFSET, NONCE_OFFSET + this.mode.nonceBytes);
    const aad = frame.subarray(NONCE_OFFSET, TRANSFORM_HEADER_BYTES);
    const tag = frame.subarray(SIGNATURE_OFFSET, SIGNATURE_OFFSET + TAG_BYTES);
    const ciphertext = frame.subarray(TRANSFORM_HEADER_BYTES);
    const native = size >= OPEN_SLICE_BYTES ? cryptoAddon() : undefined;
    if (native?.available) {
      // In place: the plaintext is the frame's own memory from byte 52 on.
      if (!native.addon.open(this.mode.ccm ? 1 : 0, this.decryptionKey, Buffer.from(nonce), Buffer.from(aad), Buffer.from(tag), ciphertext)) {
        throw new TransformError("the message does not authenticate under the session's key");
      }
      return ciphertext;
    }
    try {
      const decipher = createDecipheriv(this.mode.node as 'aes-128-gcm', this.decryptionKey, nonce, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      if (this.mode.ccm) {
        // Node's CCM takes the ciphertext in one call.
        (decipher as unknown as { setAAD(aad: Buffer, options: { plaintextLength: number }): void }).setAAD(aad, { plaintextLength: size });
        const plain = decipher.update(ciphertext);
        decipher.final(); // throws when the tag does not verify
        return plain;
      }
      decipher.setAAD(aad);
      if (!output || size < OPEN_SLICE_BYTES) {
        const plain = decipher.update(ciphertext);
        decipher.final();
        return plain;
      }
      // A large reply is opened a slice at a time into memory the caller
      // recycles: a fresh 4 MiB buffer per reply costs a page fault per
      // 4 KiB and grows the heap until the collector runs.
      const plain = output(size);
      for (let at = 0; at < size; at += OPEN_SLICE_BYTES) decipher.update(ciphertext.subarray(at, Math.min(size, at + OPEN_SLICE_BYTES))).copy(plain, at);
      decipher.final(); // throws when the tag does not verify; then nothing of `plain` is used
      return plain;
    } catch (error) {
      throw new TransformError(`the message does not authenticate under the session's key (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}
