// AES-CMAC against RFC 4493's own test vectors (section 4).

import { describe, expect, it } from 'vitest';
import { AesCmac } from './cmac.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const KEY = hex('2b7e1516 28aed2a6 abf71588 09cf4f3c');
const M64 = hex(`6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51
  30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710`);

describe('AES-CMAC (RFC 4493 4)', () => {
  const cmac = new AesCmac(KEY);
  it.each([
    [0, 'bb1d6929 e9593728 7fa37d12 9b756746'],
    [16, '070a16b4 6b4d4144 f79bdd9d d04a287c'],
    [40, 'dfa66747 de9ae630 30ca3261 1497c827'],
    [64, '51f0bebf 7e3b9d92 fc497417 79363cfe'],
  ])('example of %i bytes', (length, expected) => {
    expect(cmac.mac([M64.subarray(0, length)]).toString('hex')).toBe(hex(expected).toString('hex'));
  });

  it('gives the same MAC however the message is cut into pieces', () => {
    const whole = cmac.mac([M64]).toString('hex');
    for (const cuts of [[1], [15, 16, 17], [3, 33, 40], [63], [0, 0, 64]]) {
      const pieces: Buffer[] = [];
      let from = 0;
      for (const cut of cuts) {
        pieces.push(M64.subarray(from, cut));
        from = cut;
      }
      pieces.push(M64.subarray(from));
      expect(cmac.mac(pieces).toString('hex')).toBe(whole);
    }
  });

  it('refuses a key that is not an AES key', () => {
    expect(() => new AesCmac(Buffer.alloc(15))).toThrow(/16 or 32 bytes/);
  });
});
