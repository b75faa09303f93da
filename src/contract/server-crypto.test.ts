// A share on this machine: the server's own signing rates, as its protected calibration showed them, reach every
// view that models the server again from the report (the advice and its promises, the what-if, the ticket).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from './report.js';
import { ReportSchema } from './report.js';
import { observationsFromReport } from './recommend.js';

const lab = ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-52mbit-75ms.json', import.meta.url), 'utf8')));
const RATES = { 'AES-128-CMAC': { protect: 1e9, check: 1e9, messageSeconds: 57e-6 }, 'AES-128-GMAC': { protect: 11.6e9, check: 11.6e9 } };
const plain = { secondsPerRequest: 50e-6, secondsPerByte: 0.55e-9 };
const cmac = { secondsPerRequest: 210e-6, secondsPerByte: 2.05e-9 };

const onThisMachine = (signedCalibration: boolean): Report => ({
  ...lab,
  crypto: { rates: RATES, serverOnThisMachine: true },
  pathModel: {
    bandwidthBitsPerSecond: 10e9,
    rttMs: 0.2,
    bandwidthFrom: 'probe',
    hostCosts: {
      read: plain,
      write: plain,
      metadataSeconds: 1e-4,
      noise: 0.2,
      ...(signedCalibration ? { protected: { protection: { kind: 'signing', algorithm: 'AES-128-CMAC' }, read: cmac, write: cmac } } : {}),
    },
  },
});

describe("a server on this machine's own crypto, from its report", () => {
  it("is slower than this machine's rates by what its signed calibration added beyond them, for an algorithm it was not measured with", () => {
    const seen = observationsFromReport(ReportSchema.parse(onThisMachine(true)));
    expect(seen.cryptoOnThisMachine).toEqual(RATES);
    const gmac = seen.serverCryptoOnThisMachine?.['AES-128-GMAC']?.protect ?? NaN;
    // 1 MiB at CMAC: 160 us and 1.5 ns a byte added, where these rates give 114 us and 1 ns: about 1.5 times.
    expect(11.6e9 / gmac).toBeGreaterThan(1.4);
    expect(11.6e9 / gmac).toBeLessThan(1.6);
  });

  it("is this machine's rates where no signed calibration ran", () => {
    expect(observationsFromReport(ReportSchema.parse(onThisMachine(false))).serverCryptoOnThisMachine).toEqual(RATES);
  });
});
