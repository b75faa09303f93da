// The layer a prediction names holds still where the model cannot rank two
// layers (issue 48: a busy loopback share named hosts or bandwidth, hosts or
// round trips, from one run to the next).

import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES, MIB } from './client-profiles.js';
import type { CryptoRates } from './crypto-cost.js';
import { asDrivenByPipefill, DEFAULT_ENGINE_STACK, serverOnThisMachine } from './diagnosis.js';
import type { HostCosts } from './host-costs.js';
import type { LayerBudget } from './in-flight.js';
import { MODEL_RESOLUTION, namedBudgetLayer, onThisMachine } from './layer-naming.js';
import { predictTransfer } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';
import { parseWorkload } from './workloads.js';

const budget = (layer: LayerBudget['layer'], megabytesPerSecond: number): LayerBudget => ({
  layer,
  bytesInFlight: MIB,
  bytesPerSecond: megabytesPerSecond * 1e6,
});

/** A busy loopback's measured costs (issue 48's runs): the server's file-system work is most of a metadata exchange. */
const LOOPBACK_HOSTS: HostCosts = {
  read: { secondsPerRequest: 40e-6, secondsPerByte: 0.6e-9 },
  write: { secondsPerRequest: 38e-6, secondsPerByte: 0.79e-9 },
  metadataSeconds: 121e-6,
};
const WAN = { bandwidthBitsPerSecond: 100e6, rttMs: 40 };
const LOOPBACK = { bandwidthBitsPerSecond: 14e9, rttMs: 0.08, hosts: LOOPBACK_HOSTS };

describe('the layer a prediction names', () => {
  it('is the tightest budget where no floor is within the model’s resolution of it', () => {
    expect(namedBudgetLayer([budget('bandwidth', 12), budget('credits', 9)], WAN)).toBe('credits');
    expect(namedBudgetLayer([budget('bandwidth', 12), budget('hosts', 20)], WAN)).toBe('bandwidth');
  });

  it('is the path where a setting’s budget is within 15% of it: changing the setting would buy less than the model can promise', () => {
    expect(MODEL_RESOLUTION).toBe(0.15);
    // Credits 8% below the line: a busy WAN's small-files write named credits in 1 run of 5 and bandwidth in the rest.
    expect(namedBudgetLayer([budget('bandwidth', 12), budget('credits', 11.1)], WAN)).toBe('bandwidth');
    expect(namedBudgetLayer([budget('bandwidth', 12), budget('bottleneck-queue', 11.6), budget('copy-pipeline', 11)], WAN)).toBe('bottleneck-queue');
  });

  it('is the hosts where a pipeline’s budget is within 15% of theirs', () => {
    expect(namedBudgetLayer([budget('bandwidth', 1800), budget('copy-pipeline', 1500), budget('hosts', 1506)], LOOPBACK)).toBe('hosts');
  });

  it('is the hosts on a share on this machine, whose "bandwidth" is only the fastest the two ends moved', () => {
    expect(onThisMachine(LOOPBACK)).toBe(true);
    expect(onThisMachine({ ...LOOPBACK, hosts: { ...LOOPBACK_HOSTS, acrossNetwork: true } })).toBe(false);
    expect(onThisMachine({ ...WAN, hosts: LOOPBACK_HOSTS })).toBe(false);
    expect(namedBudgetLayer([budget('bandwidth', 1750), budget('hosts', 1830)], LOOPBACK)).toBe('hosts');
    expect(namedBudgetLayer([budget('bandwidth', 1750), budget('hosts', 1830)], { ...LOOPBACK, hosts: { ...LOOPBACK_HOSTS, acrossNetwork: true } })).toBe(
      'bandwidth',
    );
  });
});

describe("a folder's metadata exchanges", () => {
  const folder = parseWorkload('tr3869-dirset:0.005');
  const client = CLIENT_PROFILES['win11-24h2'];
  const server = SERVER_PROFILES.samba;

  it("count the server's file-system work as the hosts', the round trip as the path's: a loopback write is held by the hosts", () => {
    const prediction = predictTransfer(client, server, 'write', folder, LOOPBACK);
    expect(prediction.breakdown.metadataSeconds).toBeGreaterThan(prediction.breakdown.dataSeconds);
    expect(prediction.limitedBy).toBe('hosts');
    expect(prediction.explanation).toMatch(/file-system work takes 121 µs on each of \d+ metadata exchanges/);
  });

  it('are round trips on a long path, where the round trip is most of each exchange', () => {
    expect(predictTransfer(client, server, 'write', folder, { bandwidthBitsPerSecond: 20e6, rttMs: 80 }).limitedBy).toBe('round-trips');
  });
});

describe('a signed copy on a share on this machine', () => {
  // This machine's rates as an assessment measured them (2026-11-27): AES-GMAC about 24 GB/s a core, AES-CMAC about 1.1.
  const rates: CryptoRates = { 'AES-128-GMAC': { protect: 24e9, check: 24e9 }, 'AES-128-CMAC': { protect: 1.1e9, check: 1.1e9 } };
  const client = asDrivenByPipefill(CLIENT_PROFILES['win11-24h2'], { ...DEFAULT_ENGINE_STACK, crypto: rates });
  const server = serverOnThisMachine(SERVER_PROFILES.samba, rates);
  // A busy machine's protected calibration, a third slower than its plain one: noise, not the signature.
  const hosts: HostCosts = {
    ...LOOPBACK_HOSTS,
    protected: {
      protection: { kind: 'signing', algorithm: 'AES-128-GMAC' },
      read: { secondsPerRequest: 71e-6, secondsPerByte: 1.5e-9 },
      write: { secondsPerRequest: 47e-6, secondsPerByte: 1.6e-9 },
    },
  };
  const file = parseWorkload('file:256MiB');

  it("is held by the hosts where the signature is a small part of each byte's work, however the protected calibration strayed (issue 48)", () => {
    const signed = predictTransfer(
      client,
      server,
      'read',
      file,
      { ...LOOPBACK, hosts },
      { protection: { kind: 'signing', algorithm: 'AES-128-GMAC' }, channels: 1 },
    );
    expect(signed.limitedBy).toBe('hosts');
  });

  it('is held by the signing where the algorithm costs more than the rest of the work', () => {
    const signed = predictTransfer(client, server, 'read', file, LOOPBACK, { protection: { kind: 'signing', algorithm: 'AES-128-CMAC' }, channels: 1 });
    expect(signed.limitedBy).toBe('signing');
  });
});
