// The names and wire ids of what SMB 2.x and 3.x negotiate: dialects,
// ciphers (MS-SMB2 2.2.3.1.2) and signing algorithms (2.2.3.1.7). The engine,
// the profiles' offers and the reports speak of them by name; only this file
// knows the numbers.

export const DIALECTS = ['2.0.2', '2.1', '3.0', '3.0.2', '3.1.1'] as const;
export type DialectName = (typeof DIALECTS)[number];

const DIALECT_IDS: Readonly<Record<DialectName, number>> = { '2.0.2': 0x0202, '2.1': 0x0210, '3.0': 0x0300, '3.0.2': 0x0302, '3.1.1': 0x0311 };

export const dialectId = (name: DialectName): number => DIALECT_IDS[name];

/** The dialect a NEGOTIATE response names, or undefined for one Pipefill does not speak (0x02FF, SMB1, garbage). */
export function dialectName(id: number): DialectName | undefined {
  return DIALECTS.find((name) => DIALECT_IDS[name] === id);
}

export const isSmb3 = (dialect: DialectName): boolean => dialect.startsWith('3');

export const CIPHERS = ['AES-128-CCM', 'AES-128-GCM', 'AES-256-CCM', 'AES-256-GCM'] as const;
export type CipherName = (typeof CIPHERS)[number];

const CIPHER_IDS: Readonly<Record<CipherName, number>> = { 'AES-128-CCM': 0x0001, 'AES-128-GCM': 0x0002, 'AES-256-CCM': 0x0003, 'AES-256-GCM': 0x0004 };

export const cipherId = (name: CipherName): number => CIPHER_IDS[name];
export const cipherName = (id: number): CipherName | undefined => CIPHERS.find((name) => CIPHER_IDS[name] === id);

/** Key bits of a cipher: the L of the key derivation (MS-SMB2 3.1.4.2) and the AES key size. */
export const cipherKeyBits = (cipher: CipherName): 128 | 256 => (cipher.startsWith('AES-256') ? 256 : 128);

export const SIGNING_ALGORITHMS = ['HMAC-SHA256', 'AES-128-CMAC', 'AES-128-GMAC'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

const SIGNING_IDS: Readonly<Record<SigningAlgorithm, number>> = { 'HMAC-SHA256': 0x0000, 'AES-128-CMAC': 0x0001, 'AES-128-GMAC': 0x0002 };

export const signingAlgorithmId = (name: SigningAlgorithm): number => SIGNING_IDS[name];
export const signingAlgorithmName = (id: number): SigningAlgorithm | undefined => SIGNING_ALGORITHMS.find((name) => SIGNING_IDS[name] === id);

/**
 * What a client offers in its NEGOTIATE, in its order of preference, and
 * whether it insists on signing. Comes from the client profile.
 */
export interface SecurityOffer {
  readonly dialects: readonly DialectName[];
  readonly ciphers: readonly CipherName[];
  readonly signing: readonly SigningAlgorithm[];
  /** The client requires signing (SecurityMode SIGNING_REQUIRED), as Windows 11 24H2 does by default. */
  readonly signingRequired: boolean;
}
