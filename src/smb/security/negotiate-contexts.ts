// SMB 3.1.1 negotiate contexts (MS-SMB2 2.2.3.1, 2.2.4.1): what a client
// offers for preauth integrity, encryption and signing, and what the server
// chose. Every count and length read from the server is checked against the
// buffer: a reply that lies about them is a protocol error, not a crash.

import type { CipherName, SigningAlgorithm } from './algorithms.js';
import { cipherId, cipherName, signingAlgorithmId, signingAlgorithmName } from './algorithms.js';

export const ContextType = { preauthIntegrity: 0x0001, encryption: 0x0002, signing: 0x0008 } as const;
const SHA512 = 0x0001;
export const PREAUTH_SALT_BYTES = 32;

export class NegotiateContextError extends Error {
  override readonly name = 'NegotiateContextError';
}

function context(type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(data.length, 2);
  return Buffer.concat([head, data]);
}

function idList(ids: readonly number[], prefix: Buffer = Buffer.alloc(0)): Buffer {
  const data = Buffer.alloc(prefix.length + 2 + 2 * ids.length);
  prefix.copy(data, 0);
  data.writeUInt16LE(ids.length, prefix.length);
  ids.forEach((id, index) => data.writeUInt16LE(id, prefix.length + 2 + 2 * index));
  return data;
}

/** The contexts of a 3.1.1 NEGOTIATE request, each padded to 8 bytes but the last. */
export function offerContexts(salt: Buffer, ciphers: readonly CipherName[], signing: readonly SigningAlgorithm[]): { bytes: Buffer; count: number } {
  const preauth = Buffer.alloc(6 + salt.length);
  preauth.writeUInt16LE(1, 0); // HashAlgorithmCount
  preauth.writeUInt16LE(salt.length, 2);
  preauth.writeUInt16LE(SHA512, 4);
  salt.copy(preauth, 6);
  const contexts = [context(ContextType.preauthIntegrity, preauth)];
  if (ciphers.length > 0) contexts.push(context(ContextType.encryption, idList(ciphers.map(cipherId))));
  if (signing.length > 0) contexts.push(context(ContextType.signing, idList(signing.map(signingAlgorithmId))));
  const padded = contexts.map((bytes, index) => (index === contexts.length - 1 ? bytes : Buffer.concat([bytes, Buffer.alloc((8 - (bytes.length % 8)) % 8)])));
  return { bytes: Buffer.concat(padded), count: contexts.length };
}

export interface ServerContexts {
  /** The cipher the server chose; undefined when it sent no encryption context or chose none (0). */
  readonly cipher?: CipherName;
  /** The signing algorithm the server chose; undefined without a signing context (then AES-CMAC). */
  readonly signing?: SigningAlgorithm;
  /** The server sent a preauth context naming SHA-512 (MS-SMB2 3.2.5.2 requires one). */
  readonly preauthSha512: boolean;
}

/**
 * Parses `count` contexts at `offset` of `message` (the whole SMB2 message,
 * header included, as the offset counts from its start).
 */
export function parseServerContexts(message: Buffer, offset: number, count: number): ServerContexts {
  let at = offset;
  let cipher: CipherName | undefined;
  let signing: SigningAlgorithm | undefined;
  let preauthSha512 = false;
  if (count > 16) throw new NegotiateContextError(`the server sent ${count} negotiate contexts`);
  for (let index = 0; index < count; index++) {
    // Aligned by arithmetic, not `(at + 7) & ~7`: the offset is the server's 32-bit word, and bitwise operators work on
    // signed 32 bits, so 2^31 or more came out negative and failed untyped (a RangeError from readUInt16LE).
    at = Math.ceil(at / 8) * 8;
    if (at + 8 > message.length) throw new NegotiateContextError(`negotiate context ${index + 1} of ${count} starts past the end of the reply`);
    const type = message.readUInt16LE(at);
    const length = message.readUInt16LE(at + 2);
    if (at + 8 + length > message.length)
      throw new NegotiateContextError(`negotiate context ${index + 1} (type ${type}, ${length} bytes) runs past the end of the reply`);
    const data = message.subarray(at + 8, at + 8 + length);
    const firstId = (what: string): number => {
      if (data.length < 4 || data.readUInt16LE(0) !== 1) throw new NegotiateContextError(`the server's ${what} context must name exactly one choice`);
      return data.readUInt16LE(2);
    };
    if (type === ContextType.preauthIntegrity) {
      if (data.length < 6 || data.readUInt16LE(0) !== 1) throw new NegotiateContextError("the server's preauth integrity context must name exactly one hash");
      if (data.readUInt16LE(2) > data.length - 6) throw new NegotiateContextError("the server's preauth salt runs past its context");
      preauthSha512 = data.readUInt16LE(4) === SHA512;
    } else if (type === ContextType.encryption) {
      const id = firstId('encryption');
      // 0 means "no cipher in common" (MS-SMB2 3.3.5.2.5.2).
      if (id !== 0) {
        cipher = cipherName(id);
        if (!cipher) throw new NegotiateContextError(`the server chose cipher 0x${id.toString(16)}, which was not offered`);
      }
    } else if (type === ContextType.signing) {
      const id = firstId('signing');
      signing = signingAlgorithmName(id);
      if (!signing) throw new NegotiateContextError(`the server chose signing algorithm 0x${id.toString(16)}, which was not offered`);
    }
    at += 8 + length;
  }
  return { ...(cipher ? { cipher } : {}), ...(signing ? { signing } : {}), preauthSha512 };
}
