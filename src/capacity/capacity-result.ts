// From what a capacity run counted to what it reports: each step's rates,
// fairness and waits, the model's figures beside them, the knee and the
// peak of both curves, and the verdict against the person's target.

import type { CapacityResult, CapacityStep, CapacityTarget, LatencyFigures } from '../contract/capacity.js';
import type { CapacityExpectation, CapacityLimit, CapacityOp } from '../model/capacity.js';
import { expectedCapacity, jainFairness, kneeAndPeak, percentile } from '../model/capacity.js';
import type { ClientProfile, ClientProfileId } from '../model/client-profiles.js';
import type { Link } from '../model/link.js';
import { bufferBytesOf } from '../model/link.js';
import type { ServerProfile, ServerProfileId } from '../model/server-profiles.js';
import { serverAsSeen } from '../model/server-as-seen.js';
import type { MeasuredCapacity, MeasuredStep } from './run-capacity.js';

export interface CapacityContext {
  readonly share: string;
  readonly profile: ClientProfileId;
  readonly server: ServerProfileId;
  readonly op: CapacityOp;
  readonly fileBytes: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly startedAt: string;
  readonly kneeShare: number;
  /** The run's steps (people at once, rising), for the model to bring people as the run did. */
  readonly steps?: readonly number[];
  readonly target?: CapacityTarget;
  /** The probed path and the profiles the model runs on; null: no expectations. */
  readonly model: { readonly link: Link; readonly method: string; readonly client: ClientProfile; readonly serverProfile: ServerProfile } | null;
}

function latency(samples: readonly number[]): LatencyFigures {
  return samples.length === 0
    ? { p50Ms: null, p95Ms: null, samples: 0 }
    : { p50Ms: percentile(samples, 50), p95Ms: percentile(samples, 95), samples: samples.length };
}

export function limitText(limit: CapacityLimit): string {
  if (limit.kind === 'line') return 'the link is full';
  if (limit.kind === 'bottleneck-queue') return "the bottleneck's queue (loss-based senders leave part of the line idle)";
  if (limit.kind === 'bursts')
    return "the bottleneck's queue: people's replies leave as bursts, meet there and overflow it, and those who lose work on with less than a reply in flight";
  return `each person's ${limit.layer}`;
}

function expectedStep(users: number, context: CapacityContext): CapacityExpectation | undefined {
  const { model } = context;
  if (!model) return undefined;
  // The run's own steps, warm-up and count: how people come decides who meets whose bursts.
  const steps = context.steps ?? [];
  const schedule = steps.includes(users) ? { schedule: { steps, warmupSeconds: context.warmupSeconds, measureSeconds: context.seconds } } : {};
  return expectedCapacity({
    client: model.client,
    server: model.serverProfile,
    op: context.op,
    link: model.link,
    users,
    fileBytes: context.fileBytes,
    ...schedule,
  });
}

function measuredStep(step: MeasuredStep, idleEchoP50: number | null, context: CapacityContext): CapacityStep {
  const seconds = step.seconds > 0 ? step.seconds : Number.NaN;
  const perUser = step.perUser.map((user) => ({
    user: user.user,
    op: user.op,
    mbps: (user.bytes * 8) / seconds / 1e6,
    ...(user.failed === undefined ? {} : { failed: user.failed }),
  }));
  const copying = perUser.filter((user) => user.failed === undefined).map((user) => user.mbps);
  const echo = latency(step.latency.echoMs);
  const expected = expectedStep(step.users, context);
  const limit = expected?.directions.map((direction) => `${direction.op}: ${limitText(direction.limit)}`).join('; ');
  return {
    users: step.users,
    measuredBy: step.measuredBy,
    seconds: step.seconds,
    aggregateMbps: perUser.reduce((sum, user) => sum + user.mbps, 0),
    perUser,
    minMbps: copying.length > 0 ? Math.min(...copying) : null,
    medianMbps: copying.length > 0 ? percentile(copying, 50) : null,
    maxMbps: copying.length > 0 ? Math.max(...copying) : null,
    fairness: copying.length > 0 ? jainFairness(copying) : null,
    echo,
    openClose: latency(step.latency.openCloseMs),
    addedLatencyMs: echo.p50Ms !== null && idleEchoP50 !== null ? Math.max(0, echo.p50Ms - idleEchoP50) : null,
    expected: expected
      ? {
          aggregateMbps: expected.aggregateBitsPerSecond / 1e6,
          runToRunMbps: expected.runToRunBitsPerSecond / 1e6,
          perUserMbps: expected.perUserBitsPerSecond / 1e6,
          addedLatencyMs: expected.addedDelayMs,
          limit: limit ?? '',
        }
      : null,
  };
}

const mbpsText = (mbps: number) => (mbps >= 100 ? mbps.toFixed(0) : mbps >= 10 ? mbps.toFixed(1) : mbps.toFixed(2));

/**
 * "N people copying at once get X Mb/s each and wait Y ms more per round
 * trip": measured when a step had the target's people, else the model's
 * figure for them (the model runs for any count; a run has a few steps).
 */
export function readiness(target: CapacityTarget, steps: readonly CapacityStep[], context: CapacityContext): CapacityResult['readiness'] {
  const step = steps.find((candidate) => candidate.users === target.users);
  let basis: 'measured' | 'modelled';
  let perUserMbps: number;
  let addedMs: number;
  if (step && step.medianMbps !== null && step.addedLatencyMs !== null) {
    basis = 'measured';
    perUserMbps = step.medianMbps;
    addedMs = step.addedLatencyMs;
  } else {
    const expected = expectedStep(target.users, context);
    if (!expected) return null;
    basis = 'modelled';
    perUserMbps = expected.perUserBitsPerSecond / 1e6;
    addedMs = expected.addedDelayMs;
  }
  const met = perUserMbps >= target.perUserMbps && addedMs <= target.addedLatencyMs;
  const how = basis === 'measured' ? 'measured' : 'the model, for a count the run did not step through';
  const text =
    `${target.users} people copying at once get ${mbpsText(perUserMbps)} Mb/s each and wait ${addedMs.toFixed(0)} ms more per round trip (${how}); ` +
    `the target is ${mbpsText(target.perUserMbps)} Mb/s each and under ${target.addedLatencyMs} ms more: ${met ? 'met' : 'not met'}.`;
  return { target, met, basis, text };
}

/**
 * The context with its model's server taken as this run saw it: the credits
 * each person was granted, and the signing or encryption the server insisted
 * on. The profile alone is a default server: a Samba with `smb2 max credits
 * = 16` gave one person 60 Mb/s of a 100 Mb/s, 40 ms line while the
 * default Samba's model said 92 (lab, 2026-11-27).
 */
function asSeenBy(measured: MeasuredCapacity, context: CapacityContext): CapacityContext {
  if (!context.model) return context;
  const { serverRequired } = measured.negotiated;
  const op = context.op === 'read' ? 'read' : 'write';
  const server = serverAsSeen(context.model.serverProfile, op, {
    ...(measured.creditsGranted === undefined ? {} : { creditsGranted: measured.creditsGranted }),
    signingRequired: serverRequired.signing,
    encryptionRequired: serverRequired.encryption,
  });
  return { ...context, model: { ...context.model, serverProfile: server } };
}

export function assembleCapacity(measured: MeasuredCapacity, assumed: CapacityContext): CapacityResult {
  const context = asSeenBy(measured, assumed);
  const idleEcho = latency(measured.idle.echoMs);
  const steps = measured.steps.map((step) => measuredStep(step, idleEcho.p50Ms, context));
  const knee = kneeAndPeak(
    steps.map((step) => ({ users: step.users, aggregateBitsPerSecond: step.aggregateMbps * 1e6 })),
    context.kneeShare,
  );
  const expectedPoints = steps.flatMap((step) => (step.expected ? [{ users: step.users, aggregateBitsPerSecond: step.expected.aggregateMbps * 1e6 }] : []));
  const expectedKnee = expectedPoints.length > 0 ? kneeAndPeak(expectedPoints, context.kneeShare) : undefined;
  // Each failure once, at the step in which it was first seen.
  const failures: CapacityResult['failures'] = [];
  for (const step of steps) {
    for (const user of step.perUser) {
      if (user.failed !== undefined && !failures.some((failure) => failure.user === user.user))
        failures.push({ user: user.user, step: step.users, message: user.failed });
    }
  }
  const { model } = context;
  return {
    share: context.share,
    profile: context.profile,
    server: context.server,
    op: context.op,
    fileBytes: context.fileBytes,
    seconds: context.seconds,
    warmupSeconds: context.warmupSeconds,
    startedAt: context.startedAt,
    negotiated: {
      dialect: measured.negotiated.dialect,
      signing: measured.negotiated.signing,
      encryption: measured.negotiated.encryption,
      ...(measured.creditsGranted === undefined ? {} : { creditsGranted: measured.creditsGranted }),
    },
    link: model
      ? { mbps: model.link.bandwidthBitsPerSecond / 1e6, rttMs: model.link.rttMs, bufferBytes: Math.round(bufferBytesOf(model.link)), method: model.method }
      : null,
    idle: { echo: idleEcho, openClose: latency(measured.idle.openCloseMs) },
    steps,
    knee: { users: knee.kneeUsers ?? null, peakUsers: knee.peakUsers, peakMbps: knee.peakBitsPerSecond / 1e6, share: context.kneeShare },
    expectedKnee: expectedKnee
      ? { users: expectedKnee.kneeUsers ?? null, peakUsers: expectedKnee.peakUsers, peakMbps: expectedKnee.peakBitsPerSecond / 1e6 }
      : null,
    readiness: context.target ? readiness(context.target, steps, context) : null,
    failures,
  };
}
