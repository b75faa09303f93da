// What the measurement of the two machines moves on a fast path (a LAN, a
// share on this machine), beside the copies: the hosts' calibration
// (src/probe/host-rates.ts) and each session's warm-up
// (src/copy/server-warm-up.ts). Their shapes live here so that a run's plan,
// said before its first byte, can bound them too. Pure.

import { KIB, MIB } from './client-profiles.js';

/** The warm-up's one request each way: Pipefill's own largest, or less where the server allows less. */
export const WARM_UP_REQUEST_BYTES = 8 * MIB;

/** The calibration's two transfers each way: small requests, and the generation's own pipeline. */
export const CALIBRATION_SMALL_FILE_BYTES = 32 * MIB;
export const CALIBRATION_LARGE_FILE_BYTES = 64 * MIB;

/**
 * Runs of each shape: three at least, and up to seven while their time allows. On loopback a run takes 20-60 ms and
 * the median of three strayed by a fifth from one assessment to the next (a promise made from it came 0.76-1.30x the
 * copy it promised, 2026-11-28); on a LAN each run is cut off (250 ms) and three fill the time.
 */
export const CALIBRATION_RUNS = { least: 3, most: 7, withinMs: 600 } as const;

/** The server's turnaround: requests of this size one at a time, this many a run, this many runs (each way). */
export const TURNAROUND_REQUEST_BYTES = 64 * KIB;
export const TURNAROUND_REQUESTS = 16;
export const TURNAROUND_RUNS = 3;

/** The calibration's sessions: one plain, one with the person's client's protection. */
const CALIBRATION_SESSIONS = 2;

/**
 * The most the calibration and the warm-ups write, and read, where the hosts
 * are measured: every run of both shapes on both calibration sessions, the
 * turnaround's, and one warm-up request each way on each of those sessions
 * and on each of `copySessions` more. Files are read once each; the write
 * bound is the read bound.
 */
export function fastPathExtraBytes(copySessions: number): number {
  const calibration = CALIBRATION_SESSIONS * CALIBRATION_RUNS.most * (CALIBRATION_SMALL_FILE_BYTES + CALIBRATION_LARGE_FILE_BYTES);
  const turnaround = TURNAROUND_RUNS * TURNAROUND_REQUESTS * TURNAROUND_REQUEST_BYTES;
  return calibration + turnaround + (CALIBRATION_SESSIONS + copySessions) * WARM_UP_REQUEST_BYTES;
}
