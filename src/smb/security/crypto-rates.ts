// What signing and encryption cost this machine: one core's rate for each
// algorithm, through the very code the engine signs, seals and opens with
// (src/smb/security). An assessment measures it at its start (a few hundred
// milliseconds) and keeps it in the report, so the model's crypto layer for
// Pipefill's side is this machine's, not a published figure.

import type { CryptoRate, CryptoRates } from '../../model/crypto-cost.js';
import { CIPHERS, SIGNING_ALGORITHMS } from '../../model/smb-security.js';
import { createSigner } from './signing.js';
import { Sealer } from './transform.js';

/** The size of one measured message: a 1 MiB READ or WRITE, as Windows 10/11 send them. */
const MESSAGE_BYTES = 1024 * 1024;
/** Rounds per measurement: at least MIN, then until the time is spent, never more than MAX. */
const MIN_ROUNDS = 3;
const MAX_ROUNDS = 64;
const WARM_UP_ROUNDS = 2;
/** A small message: an SMB2 header and a CLOSE's body, as a metadata exchange sends them (MS-SMB2 2.2.1, 2.2.15). */
const SMALL_MESSAGE_BYTES = 64 + 24;
const SMALL_MIN_ROUNDS = 50;
const SMALL_MAX_ROUNDS = 20_000;

export interface CryptoRatesOptions {
  /** CPU time each measurement may take, milliseconds (default 20: about 0.4 s for all of them). */
  readonly millisecondsEach?: number;
}

/** CPU seconds one core spends on each round of `work` (a busy machine's other work is not counted). */
function secondsPerRound(work: () => void, millisecondsEach: number, rounds: { readonly min: number; readonly max: number }): number {
  for (let round = 0; round < WARM_UP_ROUNDS; round++) work();
  const before = process.cpuUsage();
  const started = performance.now();
  let done = 0;
  while (done < rounds.max && (done < rounds.min || performance.now() - started < millisecondsEach)) {
    work();
    done++;
  }
  const used = process.cpuUsage(before);
  return Math.max(1e-6, (used.user + used.system) / 1e6) / done;
}

/** Bytes per second one core spends on `work` over a 1 MiB message. */
function ratePerCore(work: () => void, millisecondsEach: number): number {
  return MESSAGE_BYTES / secondsPerRound(work, millisecondsEach, { min: MIN_ROUNDS, max: MAX_ROUNDS });
}

/** Seconds one core spends on `work` over a small message: its set-up, which a metadata exchange pays four times. */
function messageSeconds(work: () => void, millisecondsEach: number): number {
  return secondsPerRound(work, millisecondsEach / 4, { min: SMALL_MIN_ROUNDS, max: SMALL_MAX_ROUNDS });
}

/** One core's protect (sign, seal) and check (verify, open) rate for every algorithm Pipefill speaks. */
export function measureCryptoRates(options: CryptoRatesOptions = {}): CryptoRates {
  const millisecondsEach = options.millisecondsEach ?? 20;
  const message = Buffer.alloc(MESSAGE_BYTES, 0x5a);
  const header = message.subarray(0, 64);
  const body = message.subarray(64);
  const rates: Record<string, CryptoRate> = {};
  const small = message.subarray(0, SMALL_MESSAGE_BYTES);
  for (const algorithm of SIGNING_ALGORITHMS) {
    const signer = createSigner(algorithm, Buffer.alloc(16, 1));
    // Verifying is computing the same signature again and comparing 16 bytes.
    const rate = ratePerCore(() => signer.signature([header, body]), millisecondsEach);
    const perMessage = messageSeconds(() => signer.signature([header, small.subarray(64)]), millisecondsEach);
    rates[algorithm] = { protect: rate, check: rate, messageSeconds: perMessage };
  }
  for (const cipher of CIPHERS) {
    const key = Buffer.alloc(cipher.startsWith('AES-256') ? 32 : 16, 2);
    const sealer = new Sealer(cipher, key, key, 1n);
    const sealed = Buffer.concat(sealer.seal([message]));
    // A large frame is opened in place: each round opens a fresh copy (its memcpy is counted, as the engine pays it too).
    const scratch = Buffer.alloc(sealed.length);
    // A write's data is sealed in place (Sealer.seal's `spend`), as the engine seals it; its header is copied.
    const spend = new Set([body]);
    const protect = ratePerCore(() => sealer.seal([header, body], undefined, spend), millisecondsEach);
    const check = ratePerCore(() => {
      sealed.copy(scratch);
      sealer.open(scratch, (length) => Buffer.alloc(length));
    }, millisecondsEach);
    // A small message sealed, and one opened: their mean is what each end pays per message.
    const smallSealed = Buffer.concat(sealer.seal([small]));
    const smallScratch = Buffer.alloc(smallSealed.length);
    const sealOne = messageSeconds(() => sealer.seal([small]), millisecondsEach);
    const openOne = messageSeconds(() => {
      smallSealed.copy(smallScratch);
      sealer.open(smallScratch, (length) => Buffer.alloc(length));
    }, millisecondsEach);
    rates[cipher] = { protect, check, messageSeconds: (sealOne + openOne) / 2 };
  }
  return rates;
}
