// Signing's cost per message, beside its cost per byte: every metadata
// exchange and every data request is a message each way, and both ends set
// up their signer for each (on loopback a signed create, close or echo took
// 43-49 us longer with AES-128-GMAC than unsigned, 2026-11-28).

import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES, MIB } from './client-profiles.js';
import type { CryptoRates, CryptoSide } from './crypto-cost.js';
import { protectionSecondsPerExchange, PUBLISHED_X86_RATES } from './crypto-cost.js';
import type { HostCosts } from './host-costs.js';
import type { Session } from './in-flight.js';
import { transferShape } from './in-flight.js';
import { predictTransfer } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';
import { parseWorkload } from './workloads.js';

const GMAC = { kind: 'signing', algorithm: 'AES-128-GMAC' } as const;
const SIGNED: Session = { protection: GMAC, channels: 1 };
/** This machine's rates as an assessment measures them: GMAC at 0.05 ns a byte, 12 us a message. */
const MEASURED: CryptoRates = { 'AES-128-GMAC': { protect: 20e9, check: 20e9, messageSeconds: 12e-6 } };
const side = (rates: CryptoRates): CryptoSide => ({ rates, scalesWithChannels: false });
const withoutMessages: CryptoRates = { 'AES-128-GMAC': { protect: 20e9, check: 20e9 } };

const client = { ...CLIENT_PROFILES['win11-24h2'], crypto: side(MEASURED) };
const server = { ...SERVER_PROFILES.samba, crypto: side(MEASURED) };
const LOOPBACK_HOSTS: HostCosts = {
  read: { secondsPerRequest: 30e-6, secondsPerByte: 0.4e-9 },
  write: { secondsPerRequest: 30e-6, secondsPerByte: 0.45e-9 },
  metadataSeconds: 60e-6,
};
const loopback = { bandwidthBitsPerSecond: 20e9, rttMs: 0.1, hosts: LOOPBACK_HOSTS };

describe('the protection of each message', () => {
  it('costs an exchange four set-ups: the client protects the request and checks the reply, the server the other way round', () => {
    expect(protectionSecondsPerExchange(GMAC, side(MEASURED), side(MEASURED))).toBeCloseTo(48e-6, 12);
    expect(protectionSecondsPerExchange(GMAC, side(MEASURED), side(withoutMessages))).toBeCloseTo(24e-6, 12);
    expect(protectionSecondsPerExchange({ kind: 'none' }, side(MEASURED), side(MEASURED))).toBe(0);
    // Published rates are per byte only: a remote server's set-up is not known, and adds nothing.
    expect(protectionSecondsPerExchange(GMAC, side(PUBLISHED_X86_RATES), side(PUBLISHED_X86_RATES))).toBe(0);
  });

  it("adds to every metadata exchange of a signed folder copy, and to none of an unsigned one's", () => {
    const folder = parseWorkload('tr3869-dirset:0.05');
    const signed = predictTransfer(client, server, 'write', folder, loopback, SIGNED);
    const perByteOnly = predictTransfer(
      { ...client, crypto: side(withoutMessages) },
      { ...server, crypto: side(withoutMessages) },
      'write',
      folder,
      loopback,
      SIGNED,
    );
    expect(signed.breakdown.metadataSeconds - perByteOnly.breakdown.metadataSeconds).toBeCloseTo(signed.breakdown.metadataRoundTrips * 48e-6, 9);
    const plain = predictTransfer(client, server, 'write', folder, loopback);
    expect(plain.breakdown.metadataSeconds).toBeCloseTo(plain.breakdown.metadataRoundTrips * (0.1e-3 + 60e-6), 9);
  });

  it("adds the pacing end's part to every data request where the hosts were measured without that protection, and nothing where with it", () => {
    const file = 256 * MIB;
    const perByteOnly = transferShape(
      { ...client, crypto: side(withoutMessages) },
      { ...server, crypto: side(withoutMessages) },
      'write',
      file,
      loopback,
      SIGNED,
    );
    const hostsOf = (shape: typeof perByteOnly) => shape.budgets.find((budget) => budget.layer === 'hosts');
    const withMessages = transferShape(client, server, 'write', file, loopback, SIGNED);
    const request = withMessages.requestBytes;
    // The hosts' rate with the pacing end's own part of the protection in each request's work (each end runs on a core
    // of its own beside the other): request / (their work + two set-ups + one end's crypto per byte).
    const expected = request / (30e-6 + 24e-6 + request * (0.45e-9 + 1 / 20e9));
    expect(hostsOf(withMessages)?.bytesPerSecond).toBeCloseTo(expected, -3);
    expect(hostsOf(withMessages)?.bytesPerSecond ?? 0).toBeLessThan(hostsOf(perByteOnly)?.bytesPerSecond ?? 0);
    // Measured with this very protection, the costs hold its set-up already.
    const measuredSigned: HostCosts = { ...LOOPBACK_HOSTS, protected: { protection: GMAC, read: LOOPBACK_HOSTS.read, write: LOOPBACK_HOSTS.write } };
    const inCosts = transferShape(client, server, 'write', file, { ...loopback, hosts: measuredSigned }, SIGNED);
    expect(hostsOf(inCosts)?.bytesPerSecond).toBeCloseTo(request / (30e-6 + request * 0.45e-9), -3);
    // Where the two ends share one core, both ends' parts add.
    const oneCore = { ...loopback, hosts: { ...LOOPBACK_HOSTS, load: { otherCores: 0, cores: 1 } } };
    const shared = transferShape(client, server, 'write', file, oneCore, SIGNED);
    expect(hostsOf(shared)?.bytesPerSecond).toBeCloseTo(request / (30e-6 + 48e-6 + request * (0.45e-9 + 2 / 20e9)), -3);
  });
});
