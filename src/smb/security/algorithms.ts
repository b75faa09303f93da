// The wire ids of what SMB 2.x and 3.x negotiate: dialects (MS-SMB2
// 2.2.3), ciphers (2.2.3.1.2) and signing algorithms (2.2.3.1.7). The engine,
// the profiles' offers and the reports speak of them by name
// (src/model/smb-security.ts); only this file knows the numbers.

import type { CipherName, DialectName, SigningAlgorithm } from '../../model/smb-security.js';
import { CIPHERS, DIALECTS, SIGNING_ALGORITHMS } from '../../model/smb-security.js';

export type { CipherName, DialectName, SecurityOffer, SigningAlgorithm } from '../../model/smb-security.js';

const DIALECT_IDS: Readonly<Record<DialectName, number>> = { '2.0.2': 0x0202, '2.1': 0x0210, '3.0': 0x0300, '3.0.2': 0x0302, '3.1.1': 0x0311 };

export const dialectId = (name: DialectName): number => DIALECT_IDS[name];

/** The dialect a NEGOTIATE response names, or undefined for one Pipefill does not speak (0x02FF, SMB1, garbage). */
export function dialectName(id: number): DialectName | undefined {
  return DIALECTS.find((name) => DIALECT_IDS[name] === id);
}

export const isSmb3 = (dialect: DialectName): boolean => dialect.startsWith('3');

const CIPHER_IDS: Readonly<Record<CipherName, number>> = { 'AES-128-CCM': 0x0001, 'AES-128-GCM': 0x0002, 'AES-256-CCM': 0x0003, 'AES-256-GCM': 0x0004 };

export const cipherId = (name: CipherName): number => CIPHER_IDS[name];
export const cipherName = (id: number): CipherName | undefined => CIPHERS.find((name) => CIPHER_IDS[name] === id);

/** Key bits of a cipher: the L of the key derivation (MS-SMB2 3.1.4.2) and the AES key size. */
export const cipherKeyBits = (cipher: CipherName): 128 | 256 => (cipher.startsWith('AES-256') ? 256 : 128);

const SIGNING_IDS: Readonly<Record<SigningAlgorithm, number>> = { 'HMAC-SHA256': 0x0000, 'AES-128-CMAC': 0x0001, 'AES-128-GMAC': 0x0002 };

export const signingAlgorithmId = (name: SigningAlgorithm): number => SIGNING_IDS[name];
export const signingAlgorithmName = (id: number): SigningAlgorithm | undefined => SIGNING_ALGORITHMS.find((name) => SIGNING_IDS[name] === id);
