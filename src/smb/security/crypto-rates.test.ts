// This machine's signing and encryption rates, through the engine's own code:
// per byte for every algorithm, and what one small message costs whatever
// its size (src/model/crypto-cost.ts CryptoRate.messageSeconds).

import { describe, expect, it } from 'vitest';
import { CIPHERS, SIGNING_ALGORITHMS } from '../../model/smb-security.js';
import { measureCryptoRates } from './crypto-rates.js';

describe("this machine's crypto rates", () => {
  it('has, for every algorithm, a rate a byte each way and a set-up a message', () => {
    const rates = measureCryptoRates({ millisecondsEach: 4 });
    for (const algorithm of [...SIGNING_ALGORITHMS, ...CIPHERS]) {
      const rate = rates[algorithm];
      expect(rate?.protect, algorithm).toBeGreaterThan(0);
      expect(rate?.check, algorithm).toBeGreaterThan(0);
      // A small message costs microseconds: more than nothing, far less than a 1 MiB one at the same rate.
      expect(rate?.messageSeconds, algorithm).toBeGreaterThan(0);
      expect(rate?.messageSeconds ?? Infinity, algorithm).toBeLessThan((1024 * 1024) / Math.min(rate?.protect ?? 0, rate?.check ?? 0));
    }
  });
});
