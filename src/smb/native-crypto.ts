// Pipefill's crypto addon (native/crypto, over the OpenSSL Node carries):
// SMB 3 encryption and decryption in place, and the test pattern made and checked in place.
// Loaded once; where it is not built, callers use Node's own crypto.

import type { AddonLoad } from '../platform/native-addon.js';
import { addonPath, loadAddon } from '../platform/native-addon.js';

export interface CryptoAddon {
  /** Decrypts `data` in place and checks the tag; false when it does not verify (see native/crypto/src/addon.c). */
  open(mode: 0 | 1, key: Buffer, nonce: Buffer, aad: Buffer, tag: Buffer, data: Buffer): boolean;
  /**
   * AES-GCM over `pieces` as one message, each piece replaced by its ciphertext, the tag written into `tag`;
   * false when OpenSSL refused. Absent from an addon built before it (a checkout's stale build).
   */
  seal?(key: Buffer, nonce: Buffer, aad: Buffer, pieces: readonly Buffer[], tag: Buffer): boolean;
  /** Fills `target` with the test pattern of `key` from byte `offset` (native/common/pattern_keystream.h). */
  patternFill(key: Buffer, offset: number, target: Buffer): void;
  /** Whether `data` holds exactly the test pattern of `key` from byte `offset`. */
  patternMatches(key: Buffer, offset: number, data: Buffer): boolean;
}

let loaded: AddonLoad<CryptoAddon> | undefined;

/** The crypto addon, or why it is not here. PIPEFILL_NATIVE_CRYPTO=0 turns it off (A/B runs). */
export function cryptoAddon(): AddonLoad<CryptoAddon> {
  if (process.env['PIPEFILL_NATIVE_CRYPTO'] === '0') return { available: false, reason: 'PIPEFILL_NATIVE_CRYPTO=0' };
  loaded ??= loadAddon<CryptoAddon>(addonPath('crypto', 'pipefill_crypto'), "Pipefill's crypto addon", 'where Node ships its OpenSSL headers');
  return loaded;
}
