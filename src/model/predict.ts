// predict(): how long a copy should take, and which layer limits it.
//
// time = metadata round trips x RTT                    (per file, per directory)
//      + sum over files of max(latency + bytes / bandwidth, bytes / tightest budget rate)
//      + the slow-start ramp, once per connection
// (docs/architecture.md, "The model in a paragraph").

import type { ClientProfile, ClientProfileId, Op } from './client-profiles.js';
import { CLIENT_PROFILE_IDS, CLIENT_PROFILES } from './client-profiles.js';
import { PipefillInputError } from './errors.js';
import { explain } from './explain.js';
import type { LayerBudget, LimitLayer, Session, TransferShape } from './in-flight.js';
import { SINGLE_UNPROTECTED, tightestBudget, transferShape } from './in-flight.js';
import type { Negotiated, ProtectionRequest } from './negotiation.js';
import { negotiate } from './negotiation.js';
import type { Link } from './link.js';
import { bdpBytes, bufferBytesOf, isMtuBytes, maxSegmentBytes, MTU_RANGE } from './link.js';
import { keepsRateAcrossIdle, shallowQueueRamp } from './congestion.js';
import { namedBudgetLayer } from './layer-naming.js';
import { roundTripsPerDirectory, roundTripsPerFile } from './metadata.js';
import type { ServerProfile, ServerProfileId } from './server-profiles.js';
import { SERVER_PROFILE_IDS, SERVER_PROFILES } from './server-profiles.js';
import type { Observations } from './server-as-seen.js';
import { serverAsSeen } from './server-as-seen.js';
import { fileDataSeconds, fileWaitSeconds, slowStartPenaltySeconds } from './transfer-time.js';
import { lossRampSeconds } from './loss-ramp.js';
import type { Workload } from './workloads.js';
import { parseWorkload } from './workloads.js';
import { exchangeSeconds } from './host-costs.js';

export interface Scenario {
  readonly client: ClientProfileId;
  readonly server: ServerProfileId;
  readonly op: Op;
  /** A workload spec: `file:100MB`, `tr3869-dirset`, `tr3869-dirset:0.05`. */
  readonly workload: string;
  readonly link: Link;
  /** Signing or encryption: what the pair negotiates by default (`auto`, the default), or a choice. */
  readonly security?: ProtectionRequest;
  /** TCP connections of the session (SMB 3 multichannel); 1 when absent. */
  readonly channels?: number;
  /** What a copy showed of the server (the credits it granted, its window): the server as seen, not as its profile says. */
  readonly observations?: Observations;
}

/** Most connections a session is modelled with (Windows allows up to 32 per interface pair). */
export const MAX_CHANNELS = 32;

export interface Prediction {
  readonly seconds: number;
  /** Payload bytes over total time, in bits per second. */
  readonly throughputBitsPerSecond: number;
  readonly bdpBytes: number;
  /** The layer that sets the pace. */
  readonly limitedBy: LimitLayer;
  /** Each budget layer for the workload's largest file, in the order the model checks them. */
  readonly layers: readonly LayerBudget[];
  /** SMB request size and copy-engine pipeline for the largest file. */
  readonly requestBytes: number;
  readonly pipeline: { readonly depth: number; readonly chunkBytes: number };
  readonly breakdown: {
    readonly dataSeconds: number;
    readonly metadataSeconds: number;
    readonly metadataRoundTrips: number;
    /** What TCP's cold start costs beyond the steady rate; negative where random loss sets that rate and slow start, before its first losses, beats it (lossStart). */
    readonly slowStartSeconds: number;
  };
  readonly files: number;
  readonly totalBytes: number;
  readonly explanation: string;
  /** The session the prediction is for: its protection and connections. */
  readonly session: Session;
}

export interface ScenarioPrediction extends Prediction {
  readonly negotiated: Negotiated;
}

export function clientProfile(id: string): ClientProfile {
  const profile = (CLIENT_PROFILES as Readonly<Record<string, ClientProfile>>)[id];
  if (!profile) throw new PipefillInputError(`Unknown client profile ${JSON.stringify(id)}.`, `Valid client profiles: ${CLIENT_PROFILE_IDS.join(', ')}.`);
  return profile;
}

export function serverProfile(id: string): ServerProfile {
  const profile = (SERVER_PROFILES as Readonly<Record<string, ServerProfile>>)[id];
  if (!profile) throw new PipefillInputError(`Unknown server profile ${JSON.stringify(id)}.`, `Valid server profiles: ${SERVER_PROFILE_IDS.join(', ')}.`);
  return profile;
}

export function validateLink(link: Link): Link {
  if (!(link.bandwidthBitsPerSecond > 0 && Number.isFinite(link.bandwidthBitsPerSecond))) {
    throw new PipefillInputError('The bandwidth must be a positive rate.', 'For example 155mbit or OC3.');
  }
  if (!(link.rttMs > 0 && Number.isFinite(link.rttMs))) {
    throw new PipefillInputError('The round-trip time must be above zero.', 'For example 32ms; even a LAN has 0.1ms.');
  }
  if (link.mtuBytes !== undefined && !isMtuBytes(link.mtuBytes)) {
    throw new PipefillInputError(
      `The path MTU is a whole number of bytes from ${MTU_RANGE.least} to ${MTU_RANGE.most}.`,
      'For example 1420 (WireGuard) or 1492 (PPPoE).',
    );
  }
  const loss = link.lossRate ?? 0;
  if (!(loss >= 0 && loss < 1)) throw new PipefillInputError('Packet loss must be at least 0% and below 100%.', 'For example 0.1%.');
  if (link.bufferBytes !== undefined && !(link.bufferBytes >= 0 && Number.isFinite(link.bufferBytes))) {
    throw new PipefillInputError('The bottleneck buffer must be zero or more bytes.', 'For example 64KB, 0.25bdp or 20ms.');
  }
  return link;
}

/** The rate the sender may use in its first round: its initial window, or fewer credits if those run out first. */
function initialWindowBytes(client: ClientProfile, server: ServerProfile, op: Op, shape: TransferShape, link: Link): number {
  const segments = op === 'read' ? server.tcp.initialWindowSegments : client.tcp.initialWindowSegments;
  const cwnd = segments * maxSegmentBytes(client.tcp.timestamps, link.mtuBytes);
  const initialCredits = client.protocol === 'smb2' ? server.smb2.creditsInitial * shape.requestBytes : Infinity;
  return Math.min(cwnd, initialCredits);
}

/**
 * What slow start and the first climb cost where a shallow queue holds the
 * sender (src/model/congestion.ts, shallowQueueRamp): seconds beyond moving
 * the same bytes at the steady rate. Undefined where no queue budget binds
 * or slow start reaches the steady window first: the plain ramp applies.
 */
function shallowQueueRampSeconds(
  client: ClientProfile,
  server: ServerProfile,
  op: Op,
  shape: TransferShape,
  link: Link,
  session: Session,
  totalBytes: number,
  steadyBytesPerSecond: number,
): number | undefined {
  if (!shape.budgets.some((budget) => budget.layer === 'bottleneck-queue')) return undefined;
  const line = shape.budgets.find((budget) => budget.layer === 'bandwidth');
  if (!line || !(steadyBytesPerSecond > 0)) return undefined;
  const segmentBytes = maxSegmentBytes(client.tcp.timestamps, link.mtuBytes);
  const flows = Math.max(1, Math.floor(session.channels));
  const ramp = shallowQueueRamp({
    congestion: (op === 'read' ? server.tcp : client.tcp).congestion,
    bdpBytes: bdpBytes(link),
    bufferBytes: bufferBytesOf(link),
    segmentBytes,
    rttMs: link.rttMs,
    flows,
    initialWindowSegments: (flows * initialWindowBytes(client, server, op, shape, link)) / segmentBytes,
    totalSegments: totalBytes / segmentBytes,
  });
  if (!ramp) return undefined;
  // What the ramp delivered would have taken lineSeconds at the line's rate, and that times line / steady at the steady rate.
  return Math.max(0, ramp.seconds - (ramp.lineSeconds * line.bytesPerSecond) / steadyBytesPerSecond);
}

/**
 * Where random loss holds the connection (the packet-loss layer is the
 * tightest): what its cold start takes beyond moving the bytes it paces
 * (`pacedBytes`) at the loss's steady rate, per connection
 * (src/model/loss-ramp.ts). Negative where slow
 * start, before its first losses, moves them faster than that rate: a short
 * copy through a lossy hop is not held to the rate a long one settles at.
 */
function lossStart(client: ClientProfile, server: ServerProfile, op: Op, shape: TransferShape, link: Link, session: Session, pacedBytes: number): number {
  const lossBudget = shape.budgets.find((budget) => budget.layer === 'packet-loss');
  const congestion = (op === 'read' ? server.tcp : client.tcp).congestion;
  if (!lossBudget || link.lossRate === undefined || congestion === 'bbr' || !(pacedBytes > 0)) return 0;
  const segmentBytes = maxSegmentBytes(client.tcp.timestamps, link.mtuBytes);
  // One connection's part: of multichannel's several, and where robocopy's lanes share one, the whole connection's
  // run (a lane moving its share of it), so lanes are not each given the connection's head start.
  const given = session.connectionShare;
  const share = given !== undefined && given > 0 && given < 1 ? given : 1;
  const perConnection = Math.max(1, Math.floor(session.channels)) * share;
  // Every other layer's bytes in flight, the line's BDP among them: the most a round can carry.
  const capBytes = Math.min(...shape.budgets.filter((budget) => budget !== lossBudget).map((budget) => budget.bytesInFlight));
  return lossRampSeconds(
    {
      lossRate: link.lossRate,
      rttMs: link.rttMs,
      segmentBytes,
      initialWindowSegments: initialWindowBytes(client, server, op, shape, link) / segmentBytes,
      capSegments: capBytes / perConnection / segmentBytes,
      congestion,
      totalBytes: pacedBytes / perConnection,
    },
    lossBudget.bytesPerSecond / perConnection,
  );
}

/** Core of the model, on explicit profiles (what-ifs and recommendations pass modified ones). */
export function predictTransfer(
  client: ClientProfile,
  server: ServerProfile,
  op: Op,
  workload: Workload,
  link: Link,
  session: Session = SINGLE_UNPROTECTED,
): Prediction {
  validateLink(link);
  if (!(Number.isInteger(session.channels) && session.channels >= 1 && session.channels <= MAX_CHANNELS)) {
    throw new PipefillInputError(
      `A session has 1 to ${MAX_CHANNELS} connections, not ${session.channels}.`,
      'Windows opens 4 per RSS network interface by default.',
    );
  }
  const rttSeconds = link.rttMs / 1000;
  let dataSeconds = 0;
  let waitSeconds = 0;
  let lossPacedBytes = 0;
  const bytesByLayer = new Map<LimitLayer, number>();
  let largest: { bytes: number; shape: TransferShape } | undefined;
  // The largest file each layer paces: the one a sentence about that layer should describe.
  const largestByLayer = new Map<LimitLayer, { bytes: number; shape: TransferShape }>();
  // Files of the same size share a shape; directory sets repeat few sizes exactly, so cache per size.
  const shapes = new Map<number, TransferShape>();
  for (const file of workload.files) {
    let shape = shapes.get(file.bytes);
    if (!shape) {
      shape = transferShape(client, server, op, file.bytes, link, session);
      shapes.set(file.bytes, shape);
    }
    dataSeconds += fileDataSeconds(file.bytes, shape);
    const wait = fileWaitSeconds(file.bytes, shape);
    waitSeconds += wait;
    // A file whose bytes random loss paces (not its one request's round trip): what the loss's cold start speeds up.
    if (wait === 0 && tightestBudget(shape.budgets).layer === 'packet-loss') lossPacedBytes += file.bytes;
    const layer = namedBudgetLayer(shape.budgets, link);
    bytesByLayer.set(layer, (bytesByLayer.get(layer) ?? 0) + file.bytes);
    if ((largestByLayer.get(layer)?.bytes ?? -1) < file.bytes) largestByLayer.set(layer, { bytes: file.bytes, shape });
    if (!largest || file.bytes > largest.bytes) largest = { bytes: file.bytes, shape };
  }
  if (!largest) throw new PipefillInputError('The workload has no files.', 'Use file:<size> or tr3869-dirset.');

  // Reads list the source's root as well as its subdirectories; writes go
  // into a folder that exists and create only the workload's subdirectories.
  const directories = workload.directories.length + (op === 'read' ? 1 : 0);
  const metadataRoundTrips = workload.files.length * roundTripsPerFile(client.metadata, op) + directories * roundTripsPerDirectory(client.metadata, op);
  // Each metadata exchange also waits on the server's file-system work, where the hosts were measured, and on both
  // ends' protection of its small messages, as the calibration timed them where it did (exchangeSeconds).
  const exchange = exchangeSeconds(link.hosts, session.protection, client.crypto, server.crypto);
  const metadataSeconds = metadataRoundTrips * (rttSeconds + exchange);

  const steady = tightestBudget(largest.shape.budgets);
  const warm = session.warmSender === true && keepsRateAcrossIdle((op === 'read' ? server.tcp : client.tcp).congestion);
  const coldStart = () =>
    shallowQueueRampSeconds(client, server, op, largest.shape, link, session, workload.totalBytes, steady.bytesPerSecond) ??
    slowStartPenaltySeconds({
      initialWindowBytes: initialWindowBytes(client, server, op, largest.shape, link),
      steadyBytesPerSecond: steady.bytesPerSecond,
      rttMs: link.rttMs,
      totalBytes: workload.totalBytes,
    });
  const slowStartSeconds = warm
    ? 0
    : steady.layer === 'packet-loss'
      ? lossStart(client, server, op, largest.shape, link, session, lossPacedBytes)
      : coldStart();

  const seconds = dataSeconds + metadataSeconds + slowStartSeconds;
  // The largest of the costs names the limit; when it is the data, the layer
  // that paced most of the bytes does. Round trips are the path's: the
  // metadata exchanges' and the data requests' own waits (fileWaitSeconds), so
  // the Planner, predict and the assessment's sample name one layer for one
  // folder. The server's file-system work on each exchange is the hosts' (on a
  // loopback share it was most of a "round trip", and a small-files write
  // named round trips or hosts from one run to the next).
  const byteWeightedLimit = [...bytesByLayer.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
  const fileSystemSeconds = metadataRoundTrips * exchange;
  const roundTripSeconds = metadataSeconds - fileSystemSeconds + waitSeconds;
  const movingSeconds = dataSeconds - waitSeconds;
  const hostsSeconds = fileSystemSeconds + (byteWeightedLimit === 'hosts' ? movingSeconds : 0);
  const limitedBy: LimitLayer =
    roundTripSeconds > Math.max(movingSeconds, hostsSeconds, slowStartSeconds)
      ? 'round-trips'
      : slowStartSeconds > dataSeconds
        ? 'slow-start'
        : hostsSeconds > movingSeconds
          ? 'hosts'
          : byteWeightedLimit;

  const prediction = {
    seconds,
    throughputBitsPerSecond: (workload.totalBytes * 8) / seconds,
    bdpBytes: bdpBytes(link),
    limitedBy,
    layers: largest.shape.budgets,
    requestBytes: largest.shape.requestBytes,
    pipeline: { depth: largest.shape.depth, chunkBytes: largest.shape.chunkBytes },
    breakdown: { dataSeconds, metadataSeconds, metadataRoundTrips, slowStartSeconds },
    files: workload.files.length,
    totalBytes: workload.totalBytes,
    session,
  };
  // A directory set's limit is the layer that paced most bytes; describe it with a file it paced.
  const described = largestByLayer.get(limitedBy)?.shape;
  const explainInput = described
    ? { ...prediction, layers: described.budgets, requestBytes: described.requestBytes, pipeline: { depth: described.depth, chunkBytes: described.chunkBytes } }
    : prediction;
  return { ...prediction, explanation: explain(explainInput, client, server, op, link) };
}

export function predict(scenario: Scenario): ScenarioPrediction {
  const client = clientProfile(scenario.client);
  const profile = serverProfile(scenario.server);
  const server = scenario.observations ? serverAsSeen(profile, scenario.op, scenario.observations) : profile;
  const negotiated = negotiate(client, server, scenario.security ?? 'auto');
  const channels = scenario.channels ?? 1;
  if (channels > 1 && !server.security.multichannel) {
    throw new PipefillInputError(`${server.label} does not accept SMB multichannel: a session has one connection.`, 'Leave --channels at 1 for this server.');
  }
  if (channels > 1 && !negotiated.dialect.startsWith('3'))
    throw new PipefillInputError(
      `Multichannel needs SMB 3; ${client.label} and ${server.label} speak SMB ${negotiated.dialect}.`,
      'Leave --channels at 1 for this pair.',
    );
  if (channels > 1 && client.protocol === 'smb1')
    throw new PipefillInputError(`${client.label} has no multichannel (an SMB 3 feature).`, 'Leave --channels at 1 for this client.');
  const prediction = predictTransfer(client, server, scenario.op, parseWorkload(scenario.workload), scenario.link, {
    protection: negotiated.protection,
    channels,
  });
  return { ...prediction, negotiated };
}
