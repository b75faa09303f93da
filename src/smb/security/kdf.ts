// The SMB 3.x key derivation: SP800-108 KDF in counter mode with
// HMAC-SHA256 as the PRF, r = 32 (MS-SMB2 3.1.4.2), and the labels and
// contexts of each dialect (MS-SMB2 3.2.5.3.1 and 3.3.5.5.3).

import { createHmac } from 'node:crypto';
import type { CipherName, DialectName } from './algorithms.js';
import { cipherKeyBits } from './algorithms.js';

/**
 * K(i) = PRF(key, [i]_32 || label || 0x00 || context || [L]_32), for
 * i = 1.. until L bits are out. Labels and contexts are passed as MS-SMB2
 * lists them, their terminating zero byte included; SP800-108's own 0x00
 * separator follows the label.
 */
export function sp800108(key: Buffer, label: Buffer, context: Buffer, lengthBits: number): Buffer {
  if (lengthBits % 8 !== 0 || lengthBits <= 0 || lengthBits > 512) throw new Error(`KDF output of ${lengthBits} bits is not supported.`);
  const blocks: Buffer[] = [];
  const length = Buffer.alloc(4);
  length.writeUInt32BE(lengthBits);
  for (let i = 1; blocks.length * 256 < lengthBits; i++) {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(i);
    blocks.push(createHmac('sha256', key).update(counter).update(label).update(Buffer.of(0)).update(context).update(length).digest());
  }
  return Buffer.concat(blocks).subarray(0, lengthBits / 8);
}

/** What each dialect derives its keys from: a label and a context per key. */
interface Derivation {
  readonly label: string;
  readonly context: Buffer;
}

const ascii0 = (text: string): Buffer => Buffer.from(`${text}\0`, 'latin1');

function derivations(dialect: DialectName, preauthHash: Buffer | undefined): { signing: Derivation; encryption: Derivation; decryption: Derivation } {
  if (dialect === '3.1.1') {
    if (!preauthHash || preauthHash.length !== 64) throw new Error("SMB 3.1.1 keys need the session's 64-byte preauth integrity hash.");
    return {
      signing: { label: 'SMBSigningKey', context: preauthHash },
      encryption: { label: 'SMBC2SCipherKey', context: preauthHash },
      decryption: { label: 'SMBS2CCipherKey', context: preauthHash },
    };
  }
  return {
    signing: { label: 'SMB2AESCMAC', context: ascii0('SmbSign') },
    encryption: { label: 'SMB2AESCCM', context: ascii0('ServerIn ') },
    decryption: { label: 'SMB2AESCCM', context: ascii0('ServerOut') },
  };
}

export interface SessionKeys {
  /** Signs what the client sends and checks what it receives (16 bytes). */
  readonly signingKey: Buffer;
  /** Client to server (Session.EncryptionKey). */
  readonly encryptionKey: Buffer;
  /** Server to client (Session.DecryptionKey). */
  readonly decryptionKey: Buffer;
}

/**
 * A session's keys from its session key. SMB 2.0.2 and 2.1 sign with the
 * session key itself and encrypt nothing; 3.x derive all three. With an
 * AES-256 cipher the encryption and decryption keys are 256 bits ('L' =
 * 256, MS-SMB2 3.1.4.2); the signing key stays a 128-bit derivation. Samba
 * 4.17 reads the rule so: a signing key derived with L = 256 and cut to 16
 * bytes fails its final SESSION_SETUP signature (smb.int.test.ts).
 */
export function deriveSessionKeys(dialect: DialectName, sessionKey: Buffer, options: { preauthHash?: Buffer; cipher?: CipherName } = {}): SessionKeys {
  // MS-SMB2 3.2.5.3.1: Session.SessionKey is the first 16 bytes of the
  // authentication's key, zero-padded when it is shorter.
  const key16 = Buffer.alloc(16);
  sessionKey.copy(key16, 0, 0, Math.min(16, sessionKey.length));
  if (dialect === '2.0.2' || dialect === '2.1') return { signingKey: key16, encryptionKey: Buffer.alloc(0), decryptionKey: Buffer.alloc(0) };
  const bits = options.cipher ? cipherKeyBits(options.cipher) : 128;
  // AES-256 keys come from the full session key where the authentication made a longer one.
  const cipherInput = bits === 256 && sessionKey.length > 16 ? sessionKey : key16;
  const d = derivations(dialect, options.preauthHash);
  const derive = (input: Buffer, { label, context }: Derivation, lengthBits: number) => sp800108(input, ascii0(label), context, lengthBits);
  return {
    signingKey: derive(key16, d.signing, 128),
    encryptionKey: derive(cipherInput, d.encryption, bits),
    decryptionKey: derive(cipherInput, d.decryption, bits),
  };
}
