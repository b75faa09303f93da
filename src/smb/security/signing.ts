// Message signing (MS-SMB2 3.1.4.1): the signature covers the whole SMB2
// message, its 64-byte header with the Signature field zeroed and the
// SIGNED flag set, and every byte after it up to the next compounded
// message (padding included). The engine hands the message over as pieces
// (header, body, data, padding) so a WRITE's data is never joined to sign it.

import { createCipheriv, createHmac } from 'node:crypto';
import type { SigningAlgorithm } from './algorithms.js';
import { AesCmac } from './cmac.js';

export const SIGNATURE_OFFSET = 48;
export const SIGNATURE_BYTES = 16;
const FLAGS_OFFSET = 16;
const MESSAGE_ID_OFFSET = 24;
const COMMAND_OFFSET = 12;
const FLAG_SERVER_TO_REDIR = 0x1;
const FLAG_SIGNED = 0x8;
const COMMAND_CANCEL = 0x0c;

export interface Signer {
  readonly algorithm: SigningAlgorithm;
  /** The 16-byte signature of a message whose header (pieces[0], 64 bytes) has its Signature zeroed. */
  signature(pieces: readonly Buffer[]): Buffer;
  /**
   * What a sender that signs as it reads the data needs for this message:
   * AES-GMAC's key and the message's nonce (src/smb/frame-writer.ts). Only
   * AES-GMAC has it; the others sign buffers.
   */
  gmacFor?(header: Buffer): { readonly gmacKey: Buffer; readonly nonce: Buffer };
}

class HmacSha256Signer implements Signer {
  readonly algorithm = 'HMAC-SHA256';
  constructor(private readonly key: Buffer) {}
  signature(pieces: readonly Buffer[]): Buffer {
    const hmac = createHmac('sha256', this.key);
    for (const piece of pieces) hmac.update(piece);
    return hmac.digest().subarray(0, SIGNATURE_BYTES);
  }
}

class CmacSigner implements Signer {
  readonly algorithm = 'AES-128-CMAC';
  private readonly cmac: AesCmac;
  constructor(key: Buffer) {
    this.cmac = new AesCmac(key);
  }
  signature(pieces: readonly Buffer[]): Buffer {
    return this.cmac.mac(pieces);
  }
}

/**
 * AES-GMAC (MS-SMB2 3.1.4.1, 3.1.1 only): AES-128-GCM with the message as
 * additional data and nothing to encrypt; the tag is the signature. The
 * 12-byte nonce is the MessageId, then a 32-bit field whose bit 0 says "a
 * response" and bit 1 "a CANCEL request", so a request and its response
 * never share a nonce.
 */
class GmacSigner implements Signer {
  readonly algorithm = 'AES-128-GMAC';
  constructor(private readonly key: Buffer) {}
  signature(pieces: readonly Buffer[]): Buffer {
    const header = pieces[0];
    if (!header || header.length < 64) throw new Error('GMAC signing needs the 64-byte header first.');
    const gcm = createCipheriv('aes-128-gcm', this.key, gmacNonce(header), { authTagLength: SIGNATURE_BYTES });
    for (const piece of pieces) if (piece.length > 0) gcm.setAAD(piece);
    gcm.final();
    return gcm.getAuthTag();
  }

  gmacFor(header: Buffer): { gmacKey: Buffer; nonce: Buffer } {
    return { gmacKey: this.key, nonce: gmacNonce(header) };
  }
}

/** AES-GMAC's nonce for a message (MS-SMB2 3.1.4.1): its MessageId, then bit 0 for a response, bit 1 for a CANCEL request. */
function gmacNonce(header: Buffer): Buffer {
  if (header.length < 64) throw new Error('A GMAC nonce comes from a 64-byte header.');
  const nonce = Buffer.alloc(12);
  header.copy(nonce, 0, MESSAGE_ID_OFFSET, MESSAGE_ID_OFFSET + 8);
  const isResponse = (header.readUInt32LE(FLAGS_OFFSET) & FLAG_SERVER_TO_REDIR) !== 0;
  const isCancel = !isResponse && header.readUInt16LE(COMMAND_OFFSET) === COMMAND_CANCEL;
  nonce.writeUInt32LE((isResponse ? 1 : 0) | (isCancel ? 2 : 0), 8);
  return nonce;
}

export function createSigner(algorithm: SigningAlgorithm, key: Buffer): Signer {
  if (key.length !== 16) throw new Error(`A signing key is 16 bytes, not ${key.length}.`);
  switch (algorithm) {
    case 'HMAC-SHA256':
      return new HmacSha256Signer(key);
    case 'AES-128-CMAC':
      return new CmacSigner(key);
    case 'AES-128-GMAC':
      return new GmacSigner(key);
  }
}

/** Readies a request's header for its signature: sets SIGNED and zeroes the field (MS-SMB2 3.1.4.1). */
export function prepareToSign(header: Buffer): void {
  if (header.length < 64) throw new Error('A message to sign starts with its 64-byte header.');
  header.writeUInt32LE(header.readUInt32LE(FLAGS_OFFSET) | FLAG_SIGNED, FLAGS_OFFSET);
  header.fill(0, SIGNATURE_OFFSET, SIGNATURE_OFFSET + SIGNATURE_BYTES);
}

/** Signs a request in place: sets SIGNED, zeroes the field, writes the signature into the header (pieces[0]). */
export function signMessage(signer: Signer, pieces: readonly Buffer[]): void {
  const header = pieces[0];
  if (!header) throw new Error('A message to sign starts with its 64-byte header.');
  prepareToSign(header);
  signer.signature(pieces).copy(header, SIGNATURE_OFFSET);
}

export const isSigned = (message: Buffer): boolean => message.length >= 64 && (message.readUInt32LE(FLAGS_OFFSET) & FLAG_SIGNED) !== 0;

/**
 * Checks a received message's signature. The message's own Signature field
 * is zeroed for the computation and put back after, so the buffer is left
 * as it came; a constant-time compare is not needed against a peer that
 * already holds the key, but costs nothing.
 */
export function verifyMessage(signer: Signer, message: Buffer): boolean {
  if (message.length < 64) return false;
  const received = Buffer.from(message.subarray(SIGNATURE_OFFSET, SIGNATURE_OFFSET + SIGNATURE_BYTES));
  message.fill(0, SIGNATURE_OFFSET, SIGNATURE_OFFSET + SIGNATURE_BYTES);
  try {
    const expected = signer.signature([message.subarray(0, 64), message.subarray(64)]);
    let difference = 0;
    for (let i = 0; i < SIGNATURE_BYTES; i++) difference |= (expected[i] ?? 0) ^ (received[i] ?? 0);
    return difference === 0;
  } finally {
    received.copy(message, SIGNATURE_OFFSET);
  }
}
