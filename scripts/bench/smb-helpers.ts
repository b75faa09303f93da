// What the SMB bench (smb.ts) measures with, apart from the run itself: the
// median it quotes, the test pattern's file, this machine's crypto rates per
// core, and the allocator warmed before every measurement.

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PatternSource } from '../../src/copy/pattern.js';
import { measureCryptoRates } from '../../src/smb/security/crypto-rates.js';

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
};

/** A local file of `bytes` of the test pattern, written 16 MiB at a time. */
export function patternFile(path: string, bytes: number): void {
  const source = new PatternSource('bench', 'bench.bin');
  const chunk = 16 * 2 ** 20;
  writeFileSync(path, Buffer.alloc(0));
  for (let offset = 0; offset < bytes; offset += chunk) writeFileSync(path, source.bytes(offset, Math.min(chunk, bytes - offset)), { flag: 'a' });
}

/** Bytes per second one core signs or seals with Pipefill's code: the assessment's own measurement, given longer. */
export function cryptoPerCore(): string[] {
  const rates = measureCryptoRates({ millisecondsEach: 250 });
  return Object.entries(rates).flatMap(([algorithm, rate]) =>
    rate === undefined
      ? []
      : algorithm.includes('-CCM') || algorithm.includes('-GCM')
        ? [
            `  ${`seal ${algorithm}`.padEnd(22)} ${(rate.protect / 1e9).toFixed(2).padStart(6)} GB/s per core`,
            `  ${`open ${algorithm}`.padEnd(22)} ${(rate.check / 1e9).toFixed(2).padStart(6)} GB/s per core`,
          ]
        : [`  ${`sign ${algorithm}`.padEnd(22)} ${(rate.protect / 1e9).toFixed(2).padStart(6)} GB/s per core`],
  );
}

/**
 * Every measurement starts with 1 GiB of memory just touched and freed. This machine is a Firecracker
 * guest that hands free memory back to its host (page_reporting): a page the guest has not touched lately
 * costs a host fault on first use. A 256 MiB dd into tmpfs ran at 2.3 GB/s into recently freed pages and at
 * 360-530 MB/s into the rest (2026-11-24). smbd's file on the share takes new pages for every write, and the
 * CLI's copy-test, which first lays its 256 MiB source down locally as a copy tool's file would be, took the
 * warm ones for that source, so smbd's file got the cold ones: its write ran at 270-1500 MB/s from round
 * to round, smbd's copy into tmpfs taking 20 times the CPU in the slow rounds (perf), while smbclient put
 * and the engine's own writer (an existing local file) did not. With the allocator warmed before each
 * measurement, every contender's server file and source get warm pages, as a real server's disk would not
 * care which client wrote first.
 */
export function warmAllocator(benchDir: string): void {
  const path = join(benchDir, 'warm.bin');
  const chunk = Buffer.alloc(16 * 2 ** 20);
  writeFileSync(path, Buffer.alloc(0));
  for (let written = 0; written < 2 ** 30; written += chunk.length) writeFileSync(path, chunk, { flag: 'a' });
  rmSync(path, { force: true });
}
