// Key derivation and the 3.1.1 preauth chain against Microsoft's published
// examples ("SMB 2 and SMB 3 security in Windows 10: the anatomy of signing
// and cryptographic keys", Open Specifications blog, appendix; and "Encryption
// in SMB 3.0: a protocol perspective").

import { describe, expect, it } from 'vitest';
import { deriveSessionKeys } from './kdf.js';
import { PreauthHash } from './preauth.js';
import { createSigner, verifyMessage } from './signing.js';
import { SMB311_EXCHANGE, hex } from '../../test-support/smb-vectors.js';

describe('SMB 3.x key derivation (MS-SMB2 3.1.4.2)', () => {
  it('3.0: signing, encryption and decryption keys of the multichannel example', () => {
    const keys = deriveSessionKeys('3.0', hex('7CD451825D0450D235424E44BA6E78CC'));
    expect(keys.signingKey.toString('hex')).toBe('0b7e9c5cac36c0f6ea9ab275298cedce');
    expect(keys.encryptionKey.toString('hex')).toBe('fad27796665b313ebb578f388632b4f7');
    expect(keys.decryptionKey.toString('hex')).toBe('b0f0427f7ceb416d1d9dcc0cd4f99447');
  });

  it("3.0.2 derives as 3.0 does (the encryption blog's session)", () => {
    const keys = deriveSessionKeys('3.0.2', hex('B4546771B515F766A86735532DD6C4F0'));
    expect(keys.encryptionKey.toString('hex')).toBe('261b72350558f2e9dcf613070383edbf');
    expect(keys.decryptionKey.toString('hex')).toBe('8fe2b57ec34d2db5b1a9727f526bbdb5');
  });

  it('3.1.1: the preauth chain over NEGOTIATE and SESSION_SETUP, then the keys from its value', () => {
    const chain = new PreauthHash();
    for (const step of SMB311_EXCHANGE.steps) {
      chain.update(hex(step.message));
      expect(chain.hash.toString('hex')).toBe(step.hashAfter.toLowerCase());
    }
    const keys = deriveSessionKeys('3.1.1', hex(SMB311_EXCHANGE.sessionKey), { preauthHash: chain.hash, cipher: 'AES-128-GCM' });
    expect(keys.signingKey.toString('hex')).toBe('73fe7a9a77bef0bde49c650d8ccb5f76');
    expect(keys.encryptionKey.toString('hex')).toBe('629bcbc54422a0f572b97f45989b6073');
    expect(keys.decryptionKey.toString('hex')).toBe('e2af0dcefac68da71a0dfbd0d1350d74');
  });

  it("3.1.1: the server's final SESSION_SETUP response verifies under the derived signing key (AES-CMAC), and not once altered", () => {
    const chain = new PreauthHash();
    for (const step of SMB311_EXCHANGE.steps) chain.update(hex(step.message));
    const { signingKey } = deriveSessionKeys('3.1.1', hex(SMB311_EXCHANGE.sessionKey), { preauthHash: chain.hash });
    const signer = createSigner('AES-128-CMAC', signingKey);
    const final = hex(SMB311_EXCHANGE.finalResponse);
    expect(verifyMessage(signer, final)).toBe(true);
    expect(final.toString('hex')).toBe(SMB311_EXCHANGE.finalResponse.toLowerCase()); // left as it came
    const altered = Buffer.from(final);
    altered[final.length - 1] = (altered[final.length - 1] ?? 0) ^ 1;
    expect(verifyMessage(signer, altered)).toBe(false);
  });

  it('2.x signs with the session key itself', () => {
    const key = hex('270E1BA896585EEB7AF3472D3B4C75A7');
    expect(deriveSessionKeys('2.1', key).signingKey.equals(key)).toBe(true);
  });

  it('AES-256 ciphers derive 32-byte encryption keys', () => {
    const keys = deriveSessionKeys('3.1.1', Buffer.alloc(16, 1), { preauthHash: Buffer.alloc(64, 2), cipher: 'AES-256-GCM' });
    expect(keys.encryptionKey.length).toBe(32);
    expect(keys.decryptionKey.length).toBe(32);
    expect(keys.signingKey.length).toBe(16);
  });
});
