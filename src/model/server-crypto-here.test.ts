import { describe, expect, it } from 'vitest';
import type { CryptoRates } from './crypto-cost.js';
import type { HostCosts } from './host-costs.js';
import { serverRatesHere, serverStackFactor } from './server-crypto-here.js';

const MIB = 1024 * 1024;
// This machine's rates as an assessment measured them on loopback (2026-11-28): CMAC 1 GB/s, GMAC 11.6 GB/s.
const RATES: CryptoRates = {
  'AES-128-CMAC': { protect: 1e9, check: 1e9, messageSeconds: 57e-6 },
  'AES-128-GMAC': { protect: 11.6e9, check: 11.6e9, messageSeconds: 30e-6 },
};
const plain = { secondsPerRequest: 50e-6, secondsPerByte: 0.55e-9 };

/** A loopback calibration whose CMAC-signed copies took `perByte` and `perRequest` more than the plain ones. */
const hostsSigningCmac = (perByte: number, perRequest: number, noise = 0.2): HostCosts => {
  const guarded = { secondsPerRequest: plain.secondsPerRequest + perRequest, secondsPerByte: plain.secondsPerByte + perByte };
  return {
    read: plain,
    write: plain,
    protected: { protection: { kind: 'signing', algorithm: 'AES-128-CMAC' }, read: guarded, write: guarded },
    metadataSeconds: 100e-6,
    noise,
  };
};

describe("the server's own crypto on this machine", () => {
  it('is as slow beside these rates as its protected calibration showed it, for every algorithm', () => {
    // What the lab's Samba showed: CMAC added 1.5 ns a byte and 160 us a request where these rates give 1.0 and 114.
    const hosts = hostsSigningCmac(1.5e-9, 160e-6);
    const expected = (160e-6 + MIB * 1.5e-9) / (2 * 57e-6 + MIB * 1e-9);
    expect(serverStackFactor(RATES, hosts)).toBeCloseTo(expected, 6);
    const server = serverRatesHere(RATES, hosts);
    expect(server['AES-128-GMAC']?.protect).toBeCloseTo(11.6e9 / expected, -3);
    expect(server['AES-128-GMAC']?.check).toBeCloseTo(11.6e9 / expected, -3);
    expect(server['AES-128-GMAC']?.messageSeconds).toBeCloseTo(30e-6 * expected, 12);
    expect(server['AES-128-CMAC']?.protect).toBeCloseTo(1e9 / expected, -3);
  });

  it("keeps these rates where the calibration could not tell: no protected run, an addition within its noise, or one below Pipefill's own", () => {
    expect(serverRatesHere(RATES, undefined)).toBe(RATES);
    expect(serverRatesHere(RATES, { read: plain, write: plain, metadataSeconds: 1e-4 })).toBe(RATES);
    // 0.05 ns a byte on 0.55: a tenth of the plain request, within a noise of 0.2.
    expect(serverStackFactor(RATES, hostsSigningCmac(0.05e-9, 5e-6))).toBe(1);
    // Clearly measured, but less than CMAC costs at these rates: the server is no slower than this machine's crypto.
    expect(serverStackFactor(RATES, hostsSigningCmac(0.8e-9, 80e-6, 0.1))).toBe(1);
    // A calibration signed with AES-128-GMAC, which costs a seventh of the plain work at these rates: however much more
    // it took (a busy machine's run), that says nothing of the server's stack.
    const gmac = hostsSigningCmac(0.5e-9, 100e-6);
    const signedWithGmac: HostCosts = {
      ...gmac,
      protected: gmac.protected && { ...gmac.protected, protection: { kind: 'signing', algorithm: 'AES-128-GMAC' } },
    };
    expect(serverStackFactor(RATES, signedWithGmac)).toBe(1);
  });
});
