// Branch capacity (issue 16): N people copying at once over one link to one
// server, each with a session and TCP connection of their own. Each person's
// copy is held by the same per-connection layers as a single copy (pipeline,
// credits, TCP windows, loss); the link is shared. Once the bytes they keep
// in flight together exceed the BDP, the line is full and the rest waits in
// the bottleneck's queue: every round trip through the link (an ECHO, a file
// open, another person's click) then waits that much longer. Loss-based
// senders that overflow the queue cycle as congestion.ts describes, with N
// flows. Measured curves of this shape: NetBench on Windows Server 2003,
// throughput rising with clients to a peak (4,124 Mb/s at 52 clients) and
// then flat or falling (../shared/reference/server-scaling.md).

import type { ClientProfile, Op } from './client-profiles.js';
import { lineUtilisation, meanQueueBytes } from './congestion.js';
import type { BudgetLayer, LayerBudget, Session } from './in-flight.js';
import { SINGLE_UNPROTECTED, transferShape } from './in-flight.js';
import type { Link } from './link.js';
import { bdpBytes, bufferBytesOf, maxSegmentBytes } from './link.js';
import { validateLink } from './predict.js';
import type { ServerProfile } from './server-profiles.js';

export const CAPACITY_OPS = ['read', 'write', 'mixed'] as const;
export type CapacityOp = (typeof CAPACITY_OPS)[number];

/** The most simulated people one run drives (each is a session, a connection and a file on the share). */
export const MAX_CAPACITY_USERS = 64;
/** The most people the model answers for (a readiness target may name more than a run can drive). */
export const MAX_MODELLED_USERS = 10_000;

export interface CapacityInput {
  readonly client: ClientProfile;
  readonly server: ServerProfile;
  /** `mixed`: half the people read (rounded up), the rest write. */
  readonly op: CapacityOp;
  readonly link: Link;
  readonly users: number;
  /** The file each person copies over and over. */
  readonly fileBytes: number;
  readonly session?: Session;
}

/** Why one direction's people get what they get. */
export type CapacityLimit =
  /** Each person's own layers (named) leave the line idle: more people add throughput. */
  | { readonly kind: 'per-user'; readonly layer: BudgetLayer }
  /** The line is full. */
  | { readonly kind: 'line' }
  /** Loss-based senders overflow a queue too small for them and leave part of the line idle. */
  | { readonly kind: 'bottleneck-queue' };

export interface DirectionCapacity {
  readonly op: Op;
  readonly users: number;
  /** One person's rate with the link to themselves, and what all of them get together, payload bits per second. */
  readonly aloneBitsPerSecond: number;
  readonly aggregateBitsPerSecond: number;
  /** The bytes one person can keep in flight, and all of them together. */
  readonly userInFlightBytes: number;
  readonly inFlightBytes: number;
  /** Bytes waiting in this direction's bottleneck queue, on average. */
  readonly queueBytes: number;
  readonly limit: CapacityLimit;
}

export interface CapacityExpectation {
  readonly users: number;
  readonly aggregateBitsPerSecond: number;
  readonly perUserBitsPerSecond: number;
  /** What load adds to every round trip: the queues it crosses, ms. */
  readonly addedDelayMs: number;
  readonly directions: readonly DirectionCapacity[];
}

/** The layers that belong to one connection; the link's own layers (bandwidth, queue) are shared. */
const PER_CONNECTION: ReadonlySet<BudgetLayer> = new Set(['copy-pipeline', 'credits', 'client-tcp-window', 'server-tcp-window', 'packet-loss', 'signing', 'encryption']);
/** The layers that bound what one connection keeps in flight (not rates). */
const IN_FLIGHT_CAPS: ReadonlySet<BudgetLayer> = new Set(['copy-pipeline', 'credits', 'client-tcp-window', 'server-tcp-window']);

/** How many of `users` read and how many write. */
export function splitUsers(op: CapacityOp, users: number): { readonly read: number; readonly write: number } {
  if (op === 'read') return { read: users, write: 0 };
  if (op === 'write') return { read: 0, write: users };
  return { read: Math.ceil(users / 2), write: Math.floor(users / 2) };
}

function tightest(budgets: readonly LayerBudget[]): LayerBudget | undefined {
  return budgets.reduce<LayerBudget | undefined>((best, budget) => (best === undefined || budget.bytesPerSecond < best.bytesPerSecond ? budget : best), undefined);
}

/** One direction of the link with `users` people sending over it. */
export function directionCapacity(input: Omit<CapacityInput, 'op' | 'users'> & { readonly op: Op; readonly users: number }): DirectionCapacity {
  const { client, server, op, link, users } = input;
  const shape = transferShape(client, server, op, input.fileBytes, link, input.session ?? SINGLE_UNPROTECTED);
  const line = shape.budgets.find((budget) => budget.layer === 'bandwidth');
  const own = tightest(shape.budgets.filter((budget) => PER_CONNECTION.has(budget.layer)));
  if (!line || !own) throw new Error('transferShape gave no bandwidth or per-connection budget.');
  const userInFlightBytes = Math.min(...shape.budgets.filter((budget) => IN_FLIGHT_CAPS.has(budget.layer)).map((budget) => budget.bytesInFlight));
  const alone = Math.min(own.bytesPerSecond, line.bytesPerSecond);
  const base = { op, users, aloneBitsPerSecond: alone * 8, userInFlightBytes, inFlightBytes: users * userInFlightBytes };
  if (users === 0) return { ...base, aggregateBitsPerSecond: 0, queueBytes: 0, limit: { kind: 'per-user', layer: own.layer } };

  const bdp = bdpBytes(link);
  const buffer = bufferBytesOf(link);
  const inFlight = users * userInFlightBytes;
  const demand = users * own.bytesPerSecond;
  // Everyone's bytes fit in the pipe: nobody queues, each gets what their own layers allow, up to the line.
  if (inFlight <= bdp) {
    return demand < line.bytesPerSecond
      ? { ...base, aggregateBitsPerSecond: demand * 8, queueBytes: 0, limit: { kind: 'per-user', layer: own.layer } }
      : { ...base, aggregateBitsPerSecond: line.bytesPerSecond * 8, queueBytes: 0, limit: { kind: 'line' } };
  }
  // More than the pipe holds but less than pipe and queue: the windows stop before the queue overflows,
  // and what does not fit in the pipe stands in the queue. BBR holds its own queue to at most a BDP.
  const sender = op === 'read' ? server.tcp : client.tcp;
  const queueInput = { congestion: sender.congestion, bdpBytes: bdp, bufferBytes: buffer, segmentBytes: maxSegmentBytes(client.tcp.timestamps), rttMs: link.rttMs, flows: users };
  if (inFlight <= bdp + buffer || sender.congestion === 'bbr') {
    if (demand < line.bytesPerSecond) return { ...base, aggregateBitsPerSecond: demand * 8, queueBytes: 0, limit: { kind: 'per-user', layer: own.layer } };
    const standing = inFlight - bdp;
    return { ...base, aggregateBitsPerSecond: line.bytesPerSecond * 8, queueBytes: sender.congestion === 'bbr' ? Math.min(standing, meanQueueBytes(queueInput)) : standing, limit: { kind: 'line' } };
  }
  const share = lineUtilisation(queueInput);
  const aggregate = Math.min(demand, share * line.bytesPerSecond);
  return {
    ...base,
    aggregateBitsPerSecond: aggregate * 8,
    queueBytes: meanQueueBytes(queueInput),
    limit: aggregate < demand ? (share < 1 ? { kind: 'bottleneck-queue' } : { kind: 'line' }) : { kind: 'per-user', layer: own.layer },
  };
}

/** The model's point for `users` people at once. */
export function expectedCapacity(input: CapacityInput): CapacityExpectation {
  validateLink(input.link);
  if (!(Number.isInteger(input.users) && input.users >= 1 && input.users <= MAX_MODELLED_USERS)) {
    throw new RangeError(`users must be a whole number from 1 to ${MAX_MODELLED_USERS}, not ${input.users}`);
  }
  if (!(Number.isFinite(input.fileBytes) && input.fileBytes > 0)) throw new RangeError(`fileBytes must be a positive number, not ${input.fileBytes}`);
  const split = splitUsers(input.op, input.users);
  const directions = (['read', 'write'] as const).filter((op) => split[op] > 0).map((op) => directionCapacity({ ...input, op, users: split[op] }));
  const aggregate = directions.reduce((sum, direction) => sum + direction.aggregateBitsPerSecond, 0);
  const lineBytesPerSecond = input.link.bandwidthBitsPerSecond / 8;
  // A round trip crosses the queue of each direction that carries load.
  const addedDelayMs = directions.reduce((sum, direction) => sum + (direction.queueBytes / lineBytesPerSecond) * 1000, 0);
  return { users: input.users, aggregateBitsPerSecond: aggregate, perUserBitsPerSecond: aggregate / input.users, addedDelayMs, directions };
}

/**
 * Jain's fairness index of the people's rates: (sum x)^2 / (n x sum x^2),
 * 1 when all get the same, 1/n when one gets everything (Jain, Chiu and
 * Hawe, DEC-TR-301, 1984). Nobody moving anything is equal shares too.
 */
export function jainFairness(rates: readonly number[]): number {
  if (rates.length === 0) throw new RangeError('Fairness needs at least one rate.');
  if (rates.some((rate) => !(Number.isFinite(rate) && rate >= 0))) throw new RangeError('Rates must be finite and not negative.');
  const sum = rates.reduce((total, rate) => total + rate, 0);
  const squares = rates.reduce((total, rate) => total + rate * rate, 0);
  return squares === 0 ? 1 : (sum * sum) / (rates.length * squares);
}

export interface CurvePoint {
  readonly users: number;
  readonly aggregateBitsPerSecond: number;
}

export interface KneeAndPeak {
  /** The last step before one more person adds less than `share` of what the first step's person got; undefined: not reached. */
  readonly kneeUsers: number | undefined;
  readonly peakUsers: number;
  readonly peakBitsPerSecond: number;
}

/** The default knee rule: one more person adds less than half of what one person alone moved. */
export const DEFAULT_KNEE_SHARE = 0.5;

/** The knee and the peak of a throughput curve (steps in any order; users unique). */
export function kneeAndPeak(points: readonly CurvePoint[], share = DEFAULT_KNEE_SHARE): KneeAndPeak {
  if (points.length === 0) throw new RangeError('A curve needs at least one step.');
  if (!(share > 0 && share <= 1)) throw new RangeError(`The knee share must be in (0, 1], not ${share}`);
  const sorted = [...points].sort((a, b) => a.users - b.users);
  for (let index = 1; index < sorted.length; index++) {
    if (sorted[index]?.users === sorted[index - 1]?.users) throw new RangeError(`Two steps with ${sorted[index]?.users} users.`);
  }
  const first = sorted[0];
  if (!first) throw new RangeError('A curve needs at least one step.');
  const perUserAtFirst = first.aggregateBitsPerSecond / first.users;
  let kneeUsers: number | undefined;
  for (let index = 1; index < sorted.length && kneeUsers === undefined; index++) {
    const before = sorted[index - 1];
    const at = sorted[index];
    if (!before || !at) continue;
    const addedPerUser = (at.aggregateBitsPerSecond - before.aggregateBitsPerSecond) / (at.users - before.users);
    if (addedPerUser < share * perUserAtFirst) kneeUsers = before.users;
  }
  const peak = sorted.reduce((best, point) => (point.aggregateBitsPerSecond > best.aggregateBitsPerSecond ? point : best), first);
  return { kneeUsers, peakUsers: peak.users, peakBitsPerSecond: peak.aggregateBitsPerSecond };
}

/** The nearest-rank percentile (0 < p <= 100) of some samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError('No samples.');
  if (!(p > 0 && p <= 100)) throw new RangeError(`A percentile is in (0, 100], not ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
