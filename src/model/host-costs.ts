// The two machines as a layer of the model: what they take per request and
// per byte each way, and per metadata exchange, measured on the share
// (src/probe/host-rates.ts) rather than assumed. On a long path these costs
// vanish beside the round trips; on a LAN or a loopback share they are what
// paces a copy, and a model without them calls every fast copy unexplained.

import type { Op } from './client-profiles.js';
import type { CryptoSide, Protection } from './crypto-cost.js';
import { protectionSecondsPerExchange } from './crypto-cost.js';

/** The hosts' work for one data request: a fixed part and a part per byte, both ends together. */
export interface RequestCosts {
  readonly secondsPerRequest: number;
  readonly secondsPerByte: number;
  /** A pipeline's fill at this request size, where it was measured (PipelineFill). Absent in reports made before. */
  readonly fill?: PipelineFill | undefined;
}

/**
 * What a deep pipeline's first reply takes beyond its share of the steady
 * rate, on a share on this machine: until the first request is through one
 * end, the other has nothing to do, so the two ends' work on it adds where
 * afterwards it runs side by side. A file pays it once. Loopback, 2026-11-28:
 * 1.2-5.3 ms a transfer (2 MiB writes, 4 MiB reads, 1 MiB signed both ways),
 * and the 15 files of a 5% folder of small files took 27-40 ms longer than
 * their bytes at the steady rate: a copy "outside the model" in 4 of 4 runs.
 */
export interface PipelineFill {
  readonly seconds: number;
  /** The request size it was measured at: a smaller first request fills in proportion. */
  readonly requestBytes: number;
}

export interface HostCosts {
  /** Unprotected reads and writes. */
  readonly read: RequestCosts;
  readonly write: RequestCosts;
  /**
   * The same measured with the protection a generation negotiated (its
   * signing or sealing included), where one was; with its metadata exchange
   * too (absent in older reports).
   */
  readonly protected?:
    | {
        readonly protection: Exclude<Protection, { readonly kind: 'none' }>;
        readonly read: RequestCosts;
        readonly write: RequestCosts;
        readonly metadataSeconds?: number | undefined;
      }
    | undefined;
  /** What a metadata exchange (create, close, query, list) takes beyond the round trip: the server's file-system work. */
  readonly metadataSeconds: number;
  /**
   * What a 64 KiB data request takes beyond its round trip and its time on
   * the line when it goes alone (a synchronous client's): the server's
   * turnaround and both stacks' per-request work. Absent in reports made
   * before it was measured.
   */
  readonly turnaroundSeconds?: { readonly read: number; readonly write: number } | undefined;
  /**
   * What the server's storage added per byte written on a long write beyond
   * the calibration's short ones (a page cache that must find new pages, a
   * disk that falls behind): measured on Pipefill's own whole-file write.
   */
  readonly storageWriteSecondsPerByte?: number | undefined;
  /**
   * The calibration's own noise: across the repeated runs of each of its
   * transfers, how far their times per byte stray from their median (runSpread;
   * the largest of them). A machine busy with other work shows it here; a copy
   * is outside the model only beyond it (src/model/diagnosis.ts). Absent in
   * reports made before it was measured.
   */
  readonly noise?: number | undefined;
  /**
   * Other programs' use of this machine while the calibration began, in
   * cores, beside the cores Pipefill may run on (src/platform/cpu-load.ts).
   * Absent where it could not be read (not Linux) and in older reports.
   */
  readonly load?: { readonly otherCores: number; readonly cores: number } | undefined;
  /**
   * Measured across a network (a LAN): each cost is the hosts' own time for
   * a request in a deep pipeline, which runs beside the line's rather than
   * after it, so it caps the rate and adds nothing to a request's latency
   * (the turnaround is that). On a share on this machine (absent) the hosts'
   * work is all there is, and a request waits on it.
   */
  readonly acrossNetwork?: boolean | undefined;
}

/** Paths with a round trip below this are fast: the hosts may well be slower than the network (a LAN, loopback), and are measured. */
export const FAST_PATH_RTT_MS = 2;

/** One timed calibration transfer: `requests` requests of `requestBytes`, `bytes` in all, in `seconds` (deep enough that the hosts, not the window, pace it). */
export interface CalibrationSample {
  readonly requestBytes: number;
  readonly requests: number;
  readonly bytes: number;
  readonly seconds: number;
  /** Timed from its first reply to its last: what the first reply took beyond its bytes at that rate (PipelineFill). */
  readonly fillSeconds?: number | undefined;
}

/** The pipeline's fill from repeated runs of one transfer: the median run's (a stalled start in one of three does not move it). */
export function fillFromRuns(runs: readonly CalibrationSample[]): PipelineFill | undefined {
  const fills = runs.flatMap((run) => (run.fillSeconds !== undefined && Number.isFinite(run.fillSeconds) && run.fillSeconds >= 0 ? [run] : []));
  const first = fills[0];
  if (!first) return undefined;
  return { seconds: median(fills.map((run) => run.fillSeconds ?? 0)), requestBytes: first.requestBytes };
}

/**
 * A file's fill on a share on this machine (PipelineFill): once per file, in
 * proportion to its first request where that is smaller than the one measured.
 * None across a network, where the path's round trip is the fill and the
 * model counts it apart, and none for a client with one request at a time,
 * whose every request already waits on both ends (the turnaround).
 */
export function fileFillSeconds(hosts: Pick<HostCosts, 'acrossNetwork'>, costs: RequestCosts, requestBytes: number, depth: number, fileBytes: number): number {
  const fill = costs.fill;
  if (!fill || hosts.acrossNetwork === true || depth <= 1 || !(fill.requestBytes > 0)) return 0;
  return fill.seconds * Math.min(1, Math.min(fileBytes, requestBytes) / fill.requestBytes);
}

/** Above this noise the machine was too busy to measure its hosts well, and the verdict says so: runs straying half their median (idle loopback: 0.14-0.22; beside two busy cores 0.26-0.30). */
export const BUSY_CALIBRATION_NOISE = 0.5;

/** Other programs' use below this (cores) leaves the machine as good as idle, whatever its size. */
const IDLE_OTHER_CORES = 0.5;

/**
 * Whether other programs left fewer free cores than the ends on this machine
 * need (both, for a share on it; the client, across a network). There a
 * copy runs on whatever share of a CPU the scheduler gives it against them,
 * which no calibration a few seconds earlier pins down: beside two busy loops
 * on two cores, copies whose calibration strayed 13-26% ran 1.0-2.0x their
 * model (2026-11-27), and neither the calibration's spread nor the engine's
 * own wait for a CPU (0.12 and 0.25 in the two slowest, against 0.46 and
 * 0.38 while calibrating) foretold which.
 */
export function crowdedByOthers(hosts: Pick<HostCosts, 'load' | 'acrossNetwork'> | undefined): boolean {
  const load = hosts?.load;
  if (!load) return false;
  const endsHere = hosts.acrossNetwork ? 1 : 2;
  return load.otherCores >= IDLE_OTHER_CORES && load.cores - load.otherCores < endsHere;
}

/**
 * The repeated runs' spread: their median absolute deviation from the median
 * time per byte, relative to that median (0 for fewer than two). One stalled
 * run of three does not move it; runs that disagree throughout do. The range
 * (slowest over fastest) read 0.9-1.2 on an idle loopback, where the runs of
 * a few milliseconds each jitter by a stall apiece.
 */
export function runSpread(runs: readonly CalibrationSample[]): number {
  const perByte = runs.filter((run) => run.seconds > 0 && run.bytes > 0).map((run) => run.seconds / run.bytes);
  if (perByte.length < 2) return 0;
  const middle = median(perByte);
  return middle > 0 ? median(perByte.map((value) => Math.abs(value - middle))) / middle : 0;
}

/** One file of the metadata calibration: its create's and its close's exchanges, each timed whole (milliseconds). */
export interface MetadataExchangeTimes {
  readonly createMs: number;
  readonly closeMs: number;
}

/**
 * The server's own work per metadata exchange (HostCosts.metadataSeconds):
 * the median over files of the mean of each file's two exchanges, less the
 * round trip. By file, not pooled: a create costs a server about twice a
 * close (smbd on loopback: 180-270 us against 90-120), so the median of the
 * pooled exchanges falls on the edge between the two and jumps between them
 * from run to run.
 */
export function metadataSecondsFrom(files: readonly MetadataExchangeTimes[], rttMs: number): number {
  if (files.length === 0) return 0;
  return Math.max(0, median(files.map((file) => (file.createMs + file.closeMs) / 2)) - rttMs) / 1000;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[half] ?? 0) : ((sorted[half - 1] ?? 0) + (sorted[half] ?? 0)) / 2;
}

/**
 * The per-request and per-byte costs from two transfers of different
 * request sizes: seconds = requests x perRequest + bytes x perByte, solved
 * for both. Noise can make the line's intercept negative (small requests
 * faster per byte than large ones); the costs are then all per byte, the
 * slower of the two samples' rates, so the model never expects more than
 * either transfer showed.
 */
export function fitRequestCosts(small: CalibrationSample, large: CalibrationSample): RequestCosts {
  for (const sample of [small, large]) {
    if (!(sample.seconds > 0 && sample.bytes > 0 && sample.requests > 0))
      throw new RangeError('A calibration sample needs requests, bytes and a duration above zero.');
  }
  const determinant = small.requests * large.bytes - large.requests * small.bytes;
  if (determinant !== 0) {
    const secondsPerRequest = (small.seconds * large.bytes - large.seconds * small.bytes) / determinant;
    const secondsPerByte = (small.requests * large.seconds - large.requests * small.seconds) / determinant;
    if (secondsPerRequest >= 0 && secondsPerByte >= 0) return { secondsPerRequest, secondsPerByte };
  }
  return { secondsPerRequest: 0, secondsPerByte: Math.max(small.seconds / small.bytes, large.seconds / large.bytes) };
}

/**
 * The costs from the two calibration transfers the hosts paced (undefined:
 * the line paced that one, so it says nothing of them). Both: solved for
 * both costs. Only the small requests': the cost is per request (per byte it
 * would have held the large ones back too), all of their time. Only the
 * large: per byte, all of theirs. Neither: the hosts are faster than the
 * path, and no cost of theirs binds.
 */
export function costsFromSamples(small: CalibrationSample | undefined, large: CalibrationSample | undefined): RequestCosts {
  if (small && large) return fitRequestCosts(small, large);
  if (small) return { secondsPerRequest: small.seconds / small.requests, secondsPerByte: 0 };
  if (large) return { secondsPerRequest: 0, secondsPerByte: large.seconds / large.bytes };
  return { secondsPerRequest: 0, secondsPerByte: 0 };
}

const sameProtection = (a: Protection, b: Protection): boolean =>
  a.kind === b.kind && (a.kind === 'none' || (b.kind !== 'none' && a.algorithm === b.algorithm));

/**
 * The costs that apply to a transfer, and whether they already hold its
 * protection's crypto (measured with it) or the crypto layer must add it.
 */
export function hostCostsFor(hosts: HostCosts, op: Op, protection: Protection): { readonly costs: RequestCosts; readonly includesProtection: boolean } {
  const measured = protection.kind !== 'none' && hosts.protected && sameProtection(hosts.protected.protection, protection);
  const costs = measured && hosts.protected ? hosts.protected[op] : hosts[op];
  const storage = op === 'write' ? (hosts.storageWriteSecondsPerByte ?? 0) : 0;
  if (!(storage > 0)) return { costs, includesProtection: measured || protection.kind === 'none' };
  // The server's storage works while the client signs or seals the next bytes: with the protection measured, the
  // slower of the two per byte, not their sum (loopback, 256 MiB: a signed write whole in 0.45-0.48 s beside an
  // unsigned one's 0.45-0.61 s, where the sum expected 0.6-0.8 s).
  const secondsPerByte = measured ? Math.max(costs.secondsPerByte, hosts[op].secondsPerByte + storage) : costs.secondsPerByte + storage;
  return { costs: { ...costs, secondsPerByte }, includesProtection: measured || protection.kind === 'none' };
}

/**
 * The hosts with the storage's sustained cost found by a long write: where
 * that write took longer than the model with the calibration's costs
 * expected, the difference per byte is the storage's (only ever added: a
 * faster long write says nothing the calibration did not).
 */
export function withSustainedWrite(
  hosts: HostCosts,
  write: { readonly bytes: number; readonly measuredSeconds: number; readonly modelSeconds: number },
): HostCosts {
  if (!(write.bytes > 0 && write.measuredSeconds > write.modelSeconds)) return hosts;
  return { ...hosts, storageWriteSecondsPerByte: (hosts.storageWriteSecondsPerByte ?? 0) + (write.measuredSeconds - write.modelSeconds) / write.bytes };
}

/**
 * What one metadata exchange takes beyond its round trip with `protection`:
 * the server's file-system work, and both ends' protection of its two small
 * messages. Where the calibration timed exchanges with a protection (the
 * client's own signing session), that measure, less the model's protection
 * for it and with the model's for this one: a server's work on a signed
 * message is its own (smbd on loopback, AES-128-GMAC: a create or a close
 * 0.32-0.35 ms signed against 0.17 plain, where this machine's rates give
 * its signing some 20 us), and a promise to sign with another algorithm
 * keeps it. Elsewhere the unprotected exchange and the model's protection.
 */
export function exchangeSeconds(hosts: HostCosts | undefined, protection: Protection, client: CryptoSide, server: CryptoSide): number {
  const modelled = (which: Protection) => protectionSecondsPerExchange(which, client, server);
  const plain = hosts?.metadataSeconds ?? 0;
  const measured = hosts?.protected?.metadataSeconds;
  if (protection.kind === 'none' || !hosts?.protected || measured === undefined) return plain + modelled(protection);
  return Math.max(plain, measured - modelled(hosts.protected.protection)) + modelled(protection);
}

/** The request size the turnaround is measured at. */
export const TURNAROUND_REQUEST_BYTES = 64 * 1024;

/**
 * The hosts' seconds for a unit of `unitBytes` moved in requests of
 * `requestBytes`: their work per request and per byte, and at least the
 * measured turnaround of a lone request (with the work per byte of what the
 * unit has beyond it), where that was measured. On a LAN the first is zero
 * (the line paced the calibration) and the second is what a synchronous
 * client waits; on loopback they are two measures of the same work, and the
 * larger holds. Across a network (`acrossNetwork`) only the turnaround.
 */
export function hostSecondsFor(costs: RequestCosts, requestBytes: number, unitBytes: number, turnaroundSeconds = 0, acrossNetwork = false): number {
  const requests = Math.ceil(unitBytes / requestBytes);
  const work = requests * costs.secondsPerRequest + unitBytes * costs.secondsPerByte;
  const lone = requests * turnaroundSeconds + Math.max(0, unitBytes - requests * TURNAROUND_REQUEST_BYTES) * costs.secondsPerByte;
  // Across a network the work overlaps the line's time (it caps the rate instead: hostBytesPerSecond); a request waits on the turnaround.
  return acrossNetwork ? requests * turnaroundSeconds : Math.max(work, lone);
}

/** The payload rate the hosts allow at this request size, bytes per second (with any crypto not in the costs added per byte). */
export function hostBytesPerSecond(costs: RequestCosts, requestBytes: number, extraSecondsPerByte = 0): number {
  const seconds = costs.secondsPerRequest + requestBytes * (costs.secondsPerByte + extraSecondsPerByte);
  return seconds > 0 ? requestBytes / seconds : Infinity;
}
