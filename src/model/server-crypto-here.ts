// What the server's own signing and sealing cost, where the share is on this
// machine. Pipefill measures its own crypto here (src/smb/security/
// crypto-rates.ts), and the server runs on the same cores, but not the same
// code: smbd signs through GnuTLS, beside copies and iovecs of its own. The
// hosts' calibration times the copies once more with the protection the
// person's generation negotiated (host-costs.ts HostCosts.protected); what
// that protection added there, beyond what Pipefill's own rates give it, is
// the server's stack. Every other algorithm the server is weighed at (a
// promise to sign with AES-128-GMAC, made on a server that signs with
// AES-128-CMAC only) costs it that much more too. Pure.
//
// Loopback, 2026-11-28 (Samba 4, Node's OpenSSL): AES-128-CMAC added 1.5 ns a
// byte to a 1 MiB read where Pipefill's own rate gives 1.0, and 160 us a
// request against 115; AES-128-GMAC added 0.11-0.17 ns a byte against 0.086.
// A promise weighed at Pipefill's rates alone had the GMAC read take 0.72-
// 0.90 s for a gigabyte, and the run made with it measured 0.92-1.06 s.

import type { CryptoRate, CryptoRates } from './crypto-cost.js';
import { protectionAtPacingEnd } from './crypto-cost.js';
import type { HostCosts, RequestCosts } from './host-costs.js';

/** The request the stack's cost is weighed at: a 1 MiB READ or WRITE, as Windows 10/11 send them and the calibration's large ones. */
const REFERENCE_REQUEST_BYTES = 1024 * 1024;

/**
 * The least share of the hosts' plain work per request that the protection
 * must cost at these rates for its calibration's difference to say anything
 * of the server's stack. A cheap one's (AES-128-GMAC: 0.086 ns a byte beside
 * 0.55) is within what a busy machine's calibrations stray by (a third:
 * in-flight.ts hostBudgets), and, taken as the server's, had a Windows 11
 * write on loopback beside two busy cores named "signing" in one run of five
 * and "hosts" in the others (2026-11-28).
 */
const MEASURABLE_SHARE = 0.5;

const requestSeconds = (costs: RequestCosts): number => costs.secondsPerRequest + REFERENCE_REQUEST_BYTES * costs.secondsPerByte;

/**
 * How many times Pipefill's own cost of the calibration's protection the
 * server's stack paid: what the protected calibration took for a 1 MiB
 * request beyond the plain one, over what this machine's rates give the
 * slower end (protectionAtPacingEnd, both ends at these rates), the read's
 * and the write's together. 1 where there is no protected calibration, where
 * its protection costs too little at these rates to be read from it
 * (MEASURABLE_SHARE), where what it added is within the calibration's own
 * noise, or where it added less than Pipefill's rates do (the server is then
 * no slower than this machine's crypto, which the rates already hold).
 */
export function serverStackFactor(rates: CryptoRates, hosts: HostCosts | undefined): number {
  const guarded = hosts?.protected;
  if (!hosts || !guarded) return 1;
  const here = { rates, scalesWithChannels: false };
  const modelled = protectionAtPacingEnd(guarded.protection, here, here);
  const modelledSeconds = modelled.secondsPerRequest + REFERENCE_REQUEST_BYTES * modelled.secondsPerByte;
  const plain = requestSeconds(hosts.read) + requestSeconds(hosts.write);
  const added = requestSeconds(guarded.read) + requestSeconds(guarded.write) - plain;
  const noise = hosts.noise ?? 0;
  // Only where the protection is a large part of the work: a cheap one's difference is the machine's noise.
  if (!(modelledSeconds >= MEASURABLE_SHARE * (plain / 2)) || !Number.isFinite(added) || !(added > noise * plain)) return 1;
  return Math.max(1, added / (2 * modelledSeconds));
}

/**
 * The server's rates on this machine: this machine's, each slowed by the
 * server's stack factor (per byte and per message alike: the stack's copies
 * and set-up go with each message and its bytes).
 */
export function serverRatesHere(rates: CryptoRates, hosts: HostCosts | undefined): CryptoRates {
  const factor = serverStackFactor(rates, hosts);
  if (factor === 1) return rates;
  const slowed = (rate: CryptoRate): CryptoRate => ({
    protect: rate.protect / factor,
    check: rate.check / factor,
    ...(rate.messageSeconds === undefined ? {} : { messageSeconds: rate.messageSeconds * factor }),
  });
  return Object.fromEntries(Object.entries(rates).map(([algorithm, rate]) => [algorithm, rate ? slowed(rate) : rate])) as CryptoRates;
}
