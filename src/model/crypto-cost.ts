// What SMB signing and encryption cost: per byte, on each side, by
// algorithm. Each side's CPU must sign (or seal) what it sends and verify
// (or open) what it receives; the slower side sets the pace. A connection's
// crypto runs on one core (Windows spreads connections over cores by RSS;
// smbd serves all of a session's channels in one process), so the rate
// scales with multichannel connections only where the side's stack does.

import type { CipherName, SigningAlgorithm } from './smb-security.js';

export type CryptoAlgorithm = SigningAlgorithm | CipherName;

/** Bytes per second one core protects (signs, seals) and checks (verifies, opens). */
export interface CryptoRate {
  readonly protect: number;
  readonly check: number;
  /**
   * What protecting or checking one message costs whatever its size (its
   * signer's or sealer's set-up: a small message's whole cost), seconds. A
   * metadata exchange is four small messages' worth at each end's rate: on
   * loopback a signed create, close or echo took 43-49 us longer with
   * AES-128-GMAC than unsigned and 70-76 us with AES-128-CMAC (2026-11-28).
   * Measured on this machine; absent from published rates, which are per
   * byte only.
   */
  readonly messageSeconds?: number | undefined;
}

export type CryptoRates = Readonly<Partial<Record<CryptoAlgorithm, CryptoRate>>>;

/** What one transfer is protected with: signing or encryption (an encrypted message is not also signed, MS-SMB2 3.1.4.1). */
export type Protection =
  | { readonly kind: 'none' }
  | { readonly kind: 'signing'; readonly algorithm: SigningAlgorithm }
  | { readonly kind: 'encryption'; readonly algorithm: CipherName };

export const NO_PROTECTION: Protection = { kind: 'none' };

const GHZ = 1e9;
/** The clock the published cycles-per-byte figures are turned into rates at: a current server or desktop core. */
const NOMINAL_CLOCK_HZ = 3 * GHZ;
const fromCyclesPerByte = (cycles: number): CryptoRate => ({ protect: NOMINAL_CLOCK_HZ / cycles, check: NOMINAL_CLOCK_HZ / cycles });

/**
 * Published per-core costs on an x86 core with AES-NI and PCLMULQDQ, as
 * cycles per byte at 3 GHz. Sources:
 *  - AES-GCM: 0.8-1.0 cycles/byte for AES-128 on Haswell and later (Gueron
 *    and Krasnov, "AES-GCM software performance on the current high end
 *    CPUs", DIAC 2013); AES-256 runs 14 rounds to 10 in its counter part.
 *  - GMAC: the GHASH half of GCM alone, about 0.4 cycles/byte (same source).
 *  - CMAC and CCM: CBC-MAC is serial, one AES block after another: 10 AESENC
 *    at 4 cycles' latency per 16 bytes = 2.5 cycles/byte (Intel 64 and IA-32
 *    Optimization Reference Manual, Skylake AESENC latency); CCM adds a
 *    counter-mode pass (0.65).
 *  - HMAC-SHA256 with the SHA extensions: about 2 cycles/byte (OpenSSL
 *    `speed sha256` on Ice Lake and Zen, 16 KiB blocks).
 * Windows' kernel (CNG) and Samba (GnuTLS) both use these instructions; the
 * figures are a bound on the cipher, not on the whole stack.
 */
export const PUBLISHED_X86_RATES: CryptoRates = {
  'AES-128-GMAC': fromCyclesPerByte(0.4),
  'AES-128-CMAC': fromCyclesPerByte(2.5),
  'HMAC-SHA256': fromCyclesPerByte(2),
  'AES-128-GCM': fromCyclesPerByte(1),
  'AES-256-GCM': fromCyclesPerByte(1.3),
  'AES-128-CCM': fromCyclesPerByte(2.5 + 0.65),
  'AES-256-CCM': fromCyclesPerByte(3.5 + 0.9),
};

export interface CryptoSide {
  readonly rates: CryptoRates;
  /** Whether this side runs each connection's crypto on a core of its own (multichannel then multiplies it). */
  readonly scalesWithChannels: boolean;
}

/**
 * Payload bytes per second the protection allows for data sent by
 * `sender` and received by `receiver`, over `channels` connections.
 * Infinity when unprotected or when a side's rate is unknown.
 */
export function protectionBytesPerSecond(protection: Protection, sender: CryptoSide, receiver: CryptoSide, channels: number): number {
  if (protection.kind === 'none') return Infinity;
  const lanes = (side: CryptoSide) => (side.scalesWithChannels ? Math.max(1, channels) : 1);
  const send = (sender.rates[protection.algorithm]?.protect ?? Infinity) * lanes(sender);
  const receive = (receiver.rates[protection.algorithm]?.check ?? Infinity) * lanes(receiver);
  return Math.min(send, receive);
}

/** CPU seconds one byte costs across both sides, for a request that waits on both (a synchronous client). */
export function protectionSecondsPerByte(protection: Protection, sender: CryptoSide, receiver: CryptoSide): number {
  if (protection.kind === 'none') return 0;
  const cost = (rate: number | undefined) => (rate && Number.isFinite(rate) ? 1 / rate : 0);
  return cost(sender.rates[protection.algorithm]?.protect) + cost(receiver.rates[protection.algorithm]?.check);
}

/**
 * What protection adds to the end that paces a deep pipeline, per byte and
 * per request: each end works on its own CPU beside the other (a server
 * across a network; on a share on this machine, smbd beside the client on
 * another core), so the slower end's work grows by its own part only, the
 * larger of the sender's and the receiver's, not by both. On loopback a
 * copy signed with AES-128-GMAC read 0.41-0.46 ns a byte where the unsigned
 * calibration read 0.33-0.44 and both ends' signing together would add 0.15
 * (2026-11-28).
 */
export function protectionAtPacingEnd(
  protection: Protection,
  sender: CryptoSide,
  receiver: CryptoSide,
): { readonly secondsPerByte: number; readonly secondsPerRequest: number } {
  if (protection.kind === 'none') return { secondsPerByte: 0, secondsPerRequest: 0 };
  const perByte = (rate: number | undefined) => (rate && Number.isFinite(rate) ? 1 / rate : 0);
  const rateOf = (side: CryptoSide) => side.rates[protection.algorithm];
  return {
    secondsPerByte: Math.max(perByte(rateOf(sender)?.protect), perByte(rateOf(receiver)?.check)),
    // Each end protects one message of the exchange and checks the other.
    secondsPerRequest: 2 * Math.max(messageSecondsOf(protection, sender), messageSecondsOf(protection, receiver)),
  };
}

/**
 * CPU seconds a request and its reply cost in protection beyond their bytes:
 * the client protects the request and checks the reply, the server checks
 * the one and protects the other. A synchronous exchange waits on all four.
 */
export function protectionSecondsPerExchange(protection: Protection, client: CryptoSide, server: CryptoSide): number {
  if (protection.kind === 'none') return 0;
  return 2 * messageSecondsOf(protection, client) + 2 * messageSecondsOf(protection, server);
}

/** One message's set-up at a side's rate for this protection (0 where none was measured). */
function messageSecondsOf(protection: Exclude<Protection, { readonly kind: 'none' }>, side: CryptoSide): number {
  const seconds = side.rates[protection.algorithm]?.messageSeconds;
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

export function describeProtection(protection: Protection): string {
  if (protection.kind === 'none') return 'no signing or encryption';
  return protection.kind === 'signing' ? `signing with ${protection.algorithm}` : `encryption with ${protection.algorithm}`;
}
