// Branch capacity (issue 16): N people copying at once over one link to one
// server, each with a session and TCP connection of their own. Each person's
// copy is held by the same per-connection layers as a single copy (pipeline,
// credits, TCP windows, loss); the link is shared. Once the bytes they keep
// in flight together exceed the BDP, the line is full and the rest waits in
// the bottleneck's queue: every round trip through the link (an ECHO, a file
// open, another person's click) then waits that much longer. Loss-based
// senders that overflow the queue cycle as congestion.ts describes, with N
// flows. People held by their copy pipeline (a request or a few at a time)
// whose replies together overflow the queue are a different sender: their
// replies leave as bursts that meet in the queue, and what they get comes
// from a packet-level run of their TCP senders (shared-queue-sim.ts), the
// mean over a few seeds. Measured curves of this shape: NetBench on Windows Server 2003,
// throughput rising with clients to a peak (4,124 Mb/s at 52 clients) and
// then flat or falling (Edison Group's NetBench 7.03 report, 2006; reference/README.md).

import type { ClientProfile, Op } from './client-profiles.js';
import { lineUtilisation, meanQueueBytes } from './congestion.js';
import type { BudgetLayer, LayerBudget, Session, TransferShape } from './in-flight.js';
import { SINGLE_UNPROTECTED, SMB_HEADER_BYTES_PER_REQUEST, transferShape } from './in-flight.js';
import type { Link } from './link.js';
import { bdpBytes, bufferBytesOf, maxSegmentBytes, payloadEfficiency } from './link.js';
import { validateLink } from './predict.js';
import type { ServerProfile } from './server-profiles.js';
import type { SharedQueueInput } from './queue-sim/input.js';
import { simulatedTimes, simulateSharedQueue } from './shared-queue-sim.js';
import { MIN_RTO_SECONDS } from './queue-sim/person.js';

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
  /**
   * How the people come: a capacity run's steps (those a step adds start
   * together, the others go on), its warm-up and its counted time. Absent:
   * everyone starts at once, DEFAULT_SCHEDULE's times.
   */
  readonly schedule?: CapacitySchedule;
}

export interface CapacitySchedule {
  readonly steps: readonly number[];
  readonly warmupSeconds: number;
  readonly measureSeconds: number;
}

/** When nobody says how people come: all at once, a warm-up and a count long enough for a mean. */
export const DEFAULT_SCHEDULE = { warmupSeconds: 5, measureSeconds: 10 } as const;
/** The shortest count a packet-level run is trusted with: five of TCP's shortest retransmission timeouts. */
export const MIN_SIMULATED_COUNT_SECONDS = 5 * MIN_RTO_SECONDS;
/** The most people a packet-level run takes; beyond, the cycle model answers. */
export const MAX_SIMULATED_PEOPLE = MAX_CAPACITY_USERS;
/**
 * Seeds a simulated step is averaged over. Who of the people who join finds
 * themselves in step with someone's burst is chance, and it decides their
 * whole step: at 50 Mb/s / 76 ms behind a quarter-BDP queue, four XP readers
 * moved 12.0-22.6 Mb/s across twenty seeds, and 14.9-22.5 across the lab's
 * runs (2026-11-24).
 */
export const SIMULATION_SEEDS = 16;

/** Why one direction's people get what they get. */
export type CapacityLimit =
  /** Each person's own layers (named) leave the line idle: more people add throughput. */
  | { readonly kind: 'per-user'; readonly layer: BudgetLayer }
  /** The line is full. */
  | { readonly kind: 'line' }
  /** Loss-based senders overflow a queue too small for them and leave part of the line idle. */
  | { readonly kind: 'bottleneck-queue' }
  /** People whose replies leave as bursts and meet in a queue too small for them: some lose, and work on with a window under one reply. */
  | { readonly kind: 'bursts' };

export interface DirectionCapacity {
  readonly op: Op;
  readonly users: number;
  /** One person's rate with the link to themselves, and what all of them get together, payload bits per second. */
  readonly aloneBitsPerSecond: number;
  readonly aggregateBitsPerSecond: number;
  /**
   * How far one run's aggregate strays from it (the standard deviation
   * across the simulation's seeds): who of the people who join ends up in
   * step with another's burst is chance, and decides their whole step. 0
   * where the cycle model answers.
   */
  readonly runToRunBitsPerSecond: number;
  /** The bytes one person can keep in flight, and all of them together. */
  readonly userInFlightBytes: number;
  readonly inFlightBytes: number;
  /** Bytes waiting in this direction's bottleneck queue, on average. */
  readonly queueBytes: number;
  /**
   * What a round trip through the queue typically waits behind: the mean of
   * a standing queue, the median of one that swings with people's bursts
   * (as the median of a person's ECHO times reads it).
   */
  readonly waitBytes: number;
  readonly limit: CapacityLimit;
}

export interface CapacityExpectation {
  readonly users: number;
  readonly aggregateBitsPerSecond: number;
  /** How far one run's aggregate strays from it (see DirectionCapacity); the directions' added as independent. */
  readonly runToRunBitsPerSecond: number;
  readonly perUserBitsPerSecond: number;
  /** What load adds to every round trip: the queues it crosses, ms. */
  readonly addedDelayMs: number;
  readonly directions: readonly DirectionCapacity[];
}

/** The layers that belong to one connection; the link's own layers (bandwidth, queue) are shared. */
const PER_CONNECTION: ReadonlySet<BudgetLayer> = new Set([
  'copy-pipeline',
  'credits',
  'client-tcp-window',
  'server-tcp-window',
  'packet-loss',
  'signing',
  'encryption',
]);
/** The layers that bound what one connection keeps in flight (not rates). */
const IN_FLIGHT_CAPS: ReadonlySet<BudgetLayer> = new Set(['copy-pipeline', 'credits', 'client-tcp-window', 'server-tcp-window']);

/** How many of `users` read and how many write. */
export function splitUsers(op: CapacityOp, users: number): { readonly read: number; readonly write: number } {
  if (op === 'read') return { read: users, write: 0 };
  if (op === 'write') return { read: 0, write: users };
  return { read: Math.ceil(users / 2), write: Math.floor(users / 2) };
}

function tightest(budgets: readonly LayerBudget[]): LayerBudget | undefined {
  return budgets.reduce<LayerBudget | undefined>(
    (best, budget) => (best === undefined || budget.bytesPerSecond < best.bytesPerSecond ? budget : best),
    undefined,
  );
}

/** One direction of the link with `users` people sending over it. */
export function directionCapacity(input: Omit<CapacityInput, 'op' | 'users'> & { readonly op: Op; readonly users: number }): DirectionCapacity {
  const { client, server, op, link, users } = input;
  const shape = transferShape(client, server, op, input.fileBytes, link, input.session ?? SINGLE_UNPROTECTED);
  const simulated = users > 0 ? simulatedDirection(input, shape) : undefined;
  if (simulated) return simulated;
  const cycle = cycleDirection(input, shape);
  // A queue that stands (or cycles slowly, loss-based senders filling it) is waited behind as it averages.
  return { ...cycle, waitBytes: cycle.queueBytes, runToRunBitsPerSecond: 0 };
}

/** The fluid and congestion-cycle model of one direction (see the top of this file). */
function cycleDirection(
  input: Omit<CapacityInput, 'op' | 'users'> & { readonly op: Op; readonly users: number },
  shape: TransferShape,
): Omit<DirectionCapacity, 'waitBytes' | 'runToRunBitsPerSecond'> {
  const { client, server, op, link, users } = input;
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
  const queueInput = {
    congestion: sender.congestion,
    bdpBytes: bdp,
    bufferBytes: buffer,
    segmentBytes: maxSegmentBytes(client.tcp.timestamps, link.mtuBytes),
    rttMs: link.rttMs,
    flows: users,
  };
  if (inFlight <= bdp + buffer || sender.congestion === 'bbr') {
    if (demand < line.bytesPerSecond) return { ...base, aggregateBitsPerSecond: demand * 8, queueBytes: 0, limit: { kind: 'per-user', layer: own.layer } };
    const standing = inFlight - bdp;
    return {
      ...base,
      aggregateBitsPerSecond: line.bytesPerSecond * 8,
      queueBytes: sender.congestion === 'bbr' ? Math.min(standing, meanQueueBytes(queueInput)) : standing,
      limit: { kind: 'line' },
    };
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

/** Compound's loss-based part backs off by half, as Reno does (Tan et al., INFOCOM 2006). */
function simulatedCongestion(congestion: ServerProfile['tcp']['congestion']): SharedQueueInput['congestion'] | undefined {
  if (congestion === 'bbr') return undefined;
  return congestion === 'cubic' ? 'cubic' : 'reno';
}

/**
 * People held by a request-granular layer (their copy pipeline or the
 * server's credits), whose replies together are more than the queue holds,
 * on a loss-based sender: a packet-level run of their senders (see the top
 * of this file); undefined where the cycle model answers.
 */
function simulatedDirection(
  input: Omit<CapacityInput, 'op' | 'users'> & { readonly op: Op; readonly users: number },
  shape: TransferShape,
): DirectionCapacity | undefined {
  const { client, server, op, link, users } = input;
  const sender = op === 'read' ? server.tcp : client.tcp;
  const congestion = simulatedCongestion(sender.congestion);
  const own = tightest(shape.budgets.filter((budget) => PER_CONNECTION.has(budget.layer)));
  const line = shape.budgets.find((budget) => budget.layer === 'bandwidth');
  if (!congestion || !own || !line || users > MAX_SIMULATED_PEOPLE) return undefined;
  if (own.layer !== 'copy-pipeline' && own.layer !== 'credits') return undefined;
  const userInFlightBytes = Math.min(...shape.budgets.filter((budget) => IN_FLIGHT_CAPS.has(budget.layer)).map((budget) => budget.bytesInFlight));
  if (own.bytesInFlight > userInFlightBytes) return undefined;
  const buffer = bufferBytesOf(link);
  if (users * userInFlightBytes <= buffer) return undefined;
  // A queue that cannot hold one reply (loopback's one-BDP default: 7.9 Gb/s x 0.03 ms is 30 KB, an XP read's
  // reply 61 KB) is no regime the run of senders models: every reply overflowed it there, and one person alone was
  // expected to move nothing (the fresh-clone suite's loopback capacity step expected 0 Mb/s, now and then).
  if (buffer < shape.requestBytes + SMB_HEADER_BYTES_PER_REQUEST) return undefined;

  const unitsInFlight = Math.max(1, Math.round(own.bytesInFlight / shape.requestBytes));
  const segmentBytes = maxSegmentBytes(client.tcp.timestamps, link.mtuBytes);
  const schedule = directionSchedule(input, users);
  const simulation: Omit<SharedQueueInput, 'seed'> = {
    steps: schedule.steps,
    congestion,
    lineBitsPerSecond: link.bandwidthBitsPerSecond,
    rttMs: link.rttMs,
    bufferBytes: buffer,
    segmentBytes,
    packetOverheadBytes: segmentBytes / payloadEfficiency(client.tcp.timestamps, link.mtuBytes) - segmentBytes,
    unitBytes: shape.requestBytes + SMB_HEADER_BYTES_PER_REQUEST,
    payloadBytesPerUnit: shape.requestBytes,
    unitsInFlight,
    extraSecondsPerUnit: Math.max(0, (shape.requestLatencyMs - link.rttMs) / 1000),
    initialWindowSegments: sender.initialWindowSegments,
    warmupSeconds: schedule.warmupSeconds,
    measureSeconds: schedule.measureSeconds,
  };
  // A line so fast that the run it can afford counts for less than a few retransmission timeouts: one timeout
  // (200 ms at least, whatever the line) then decides the step. Two loopback people behind a queue that held one
  // reply were expected to move nothing in a count shortened to 35 ms (the fresh-clone suite's capacity step,
  // now and then); the cycle model answers there.
  if (simulatedTimes(simulation).measureSeconds < MIN_SIMULATED_COUNT_SECONDS) return undefined;
  const step = meanSimulatedStep(simulation, users);
  const demand = users * own.bytesPerSecond;
  const aggregate = step.aggregateBitsPerSecond / 8;
  const limit: CapacityLimit =
    aggregate >= 0.95 * Math.min(demand, line.bytesPerSecond)
      ? demand < line.bytesPerSecond
        ? { kind: 'per-user', layer: own.layer }
        : { kind: 'line' }
      : { kind: 'bursts' };
  return {
    op,
    users,
    aloneBitsPerSecond: Math.min(own.bytesPerSecond, line.bytesPerSecond) * 8,
    aggregateBitsPerSecond: step.aggregateBitsPerSecond,
    runToRunBitsPerSecond: step.runToRunBitsPerSecond,
    userInFlightBytes,
    inFlightBytes: users * userInFlightBytes,
    queueBytes: step.meanQueueBytes,
    waitBytes: step.medianQueueBytes,
    limit,
  };
}

/**
 * The steps that bring this direction's people: the run's when `users` is one of them (all of its steps, so
 * that every step of a run shares one simulation), else all at once.
 */
function directionSchedule(input: Pick<CapacityInput, 'schedule'>, users: number): CapacitySchedule {
  const schedule = input.schedule ?? { steps: [users], ...DEFAULT_SCHEDULE };
  const usable = schedule.steps.includes(users) && schedule.steps.every((step) => step <= MAX_SIMULATED_PEOPLE);
  return usable ? schedule : { ...schedule, steps: [users] };
}

/** A run's steps as one direction sees them: the people of each step who read (or write). */
function scheduleOfDirection(schedule: CapacitySchedule | undefined, op: CapacityOp, direction: Op): CapacitySchedule | undefined {
  if (!schedule) return undefined;
  const steps: number[] = [];
  for (const step of schedule.steps) {
    const here = splitUsers(op, step)[direction];
    if (here > (steps.at(-1) ?? 0)) steps.push(here);
  }
  return { ...schedule, steps };
}

/** What a run is asked twice (every step of a capacity run asks for the same schedule) is run once. */
interface SimulatedStep {
  readonly aggregateBitsPerSecond: number;
  readonly runToRunBitsPerSecond: number;
  readonly meanQueueBytes: number;
  readonly medianQueueBytes: number;
}
const simulated = new Map<string, SimulatedStep[]>();
const MAX_REMEMBERED = 64;

/** The step with `users` people, averaged over SIMULATION_SEEDS runs of the whole schedule. */
function meanSimulatedStep(simulation: Omit<SharedQueueInput, 'seed'>, users: number): SimulatedStep {
  const key = JSON.stringify(simulation);
  let steps = simulated.get(key);
  if (!steps) {
    const runs = Array.from({ length: SIMULATION_SEEDS }, (_, seed) => simulateSharedQueue({ ...simulation, seed: seed + 1 }).steps);
    steps = simulation.steps.map((_, index) => ({
      aggregateBitsPerSecond: mean(runs.map((run) => run[index]?.aggregateBitsPerSecond ?? 0)),
      runToRunBitsPerSecond: standardDeviation(runs.map((run) => run[index]?.aggregateBitsPerSecond ?? 0)),
      meanQueueBytes: mean(runs.map((run) => run[index]?.meanQueueBytes ?? 0)),
      medianQueueBytes: mean(runs.map((run) => run[index]?.medianQueueBytes ?? 0)),
    }));
    if (simulated.size >= MAX_REMEMBERED) simulated.delete(simulated.keys().next().value as string);
    simulated.set(key, steps);
  }
  const index = simulation.steps.indexOf(users);
  const step = steps[index];
  if (!step) throw new Error(`No simulated step with ${users} people.`);
  return step;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

/** The sample standard deviation (n - 1): the seeds are a sample of the runs a person could make. */
function standardDeviation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const centre = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - centre) ** 2, 0) / (values.length - 1));
}

/** The model's point for `users` people at once. */
export function expectedCapacity(input: CapacityInput): CapacityExpectation {
  validateLink(input.link);
  if (!(Number.isInteger(input.users) && input.users >= 1 && input.users <= MAX_MODELLED_USERS)) {
    throw new RangeError(`users must be a whole number from 1 to ${MAX_MODELLED_USERS}, not ${input.users}`);
  }
  if (!(Number.isFinite(input.fileBytes) && input.fileBytes > 0)) throw new RangeError(`fileBytes must be a positive number, not ${input.fileBytes}`);
  const split = splitUsers(input.op, input.users);
  const directions = (['read', 'write'] as const)
    .filter((op) => split[op] > 0)
    .map((op) => {
      const schedule = scheduleOfDirection(input.schedule, input.op, op);
      return directionCapacity({ ...input, op, users: split[op], ...(schedule ? { schedule } : {}) });
    });
  const aggregate = directions.reduce((sum, direction) => sum + direction.aggregateBitsPerSecond, 0);
  const lineBytesPerSecond = input.link.bandwidthBitsPerSecond / 8;
  // A round trip crosses the queue of each direction that carries load.
  const addedDelayMs = directions.reduce((sum, direction) => sum + (direction.waitBytes / lineBytesPerSecond) * 1000, 0);
  const runToRun = Math.sqrt(directions.reduce((sum, direction) => sum + direction.runToRunBitsPerSecond ** 2, 0));
  return {
    users: input.users,
    aggregateBitsPerSecond: aggregate,
    runToRunBitsPerSecond: runToRun,
    perUserBitsPerSecond: aggregate / input.users,
    addedDelayMs,
    directions,
  };
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
