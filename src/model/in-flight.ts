// The bytes each layer lets a client keep in flight, and the throughput that
// allows on a given link. The slowest layer sets the pace of a transfer.

import type { ClientProfile, CopyPipeline, Op } from './client-profiles.js';
import { KIB, SECTOR_BYTES } from './client-profiles.js';
import type { CongestionControl } from './congestion.js';
import { lineUtilisation } from './congestion.js';
import type { CryptoSide, Protection } from './crypto-cost.js';
import { NO_PROTECTION, protectionAtPacingEnd, protectionBytesPerSecond, protectionSecondsPerByte, protectionSecondsPerExchange } from './crypto-cost.js';
import { fileFillSeconds, hostBytesPerSecond, hostCostsFor, hostSecondsFor } from './host-costs.js';
import { MATHIS_CONSTANT } from './loss-ramp.js';
import type { Link } from './link.js';
import { bdpBytes, bufferBytesOf, maxSegmentBytes, payloadEfficiency } from './link.js';
import type { ServerProfile } from './server-profiles.js';
import { TRANSFORM_HEADER_BYTES } from './smb-security.js';

export const LIMIT_LAYERS = [
  'bandwidth',
  'copy-pipeline',
  'credits',
  'client-tcp-window',
  'server-tcp-window',
  'packet-loss',
  'bottleneck-queue',
  'signing',
  'encryption',
  'round-trips',
  'slow-start',
  // The two machines themselves: what their CPUs, memory, storage and network stacks take per byte and per request, measured by Pipefill's own copy on the same share.
  'hosts',
] as const;
export type LimitLayer = (typeof LIMIT_LAYERS)[number];

/** The layers that hold bytes in flight or cap the rate; round trips and slow start are time costs, not budgets. */
export type BudgetLayer = Exclude<LimitLayer, 'round-trips' | 'slow-start'>;

export interface LayerBudget {
  readonly layer: BudgetLayer;
  /** Bytes this layer lets the client keep in flight (for `bandwidth`: the BDP). */
  readonly bytesInFlight: number;
  /** Payload rate this layer allows on the link, bytes per second. */
  readonly bytesPerSecond: number;
}

/** Fixed header bytes per SMB2 read/write exchange (NetBIOS 4 + SMB2 64 + read/write body 16). */
export const SMB_HEADER_BYTES_PER_REQUEST = 84;

/** SMB 2.1: one credit pays for up to 64 KB of a read or write. */
export const BYTES_PER_CREDIT = 64 * KIB;

/**
 * One SMB session's shape beyond the profiles: what protects its data, and
 * how many TCP connections carry it (SMB 3 multichannel).
 */
export interface Session {
  readonly protection: Protection;
  readonly channels: number;
  /**
   * The data's sender moved data on this connection before this transfer (an
   * assessment's directory set after the same generation's file copy): with a
   * sender that keeps its rate across the pause (congestion.ts
   * keepsRateAcrossIdle), the transfer pays no slow start.
   */
  readonly warmSender?: boolean;
  /** Files copied at once over the session (robocopy /MT:n: src/model/parallel.ts); one when absent. */
  readonly lanes?: number;
  /**
   * The share of the connection this transfer holds, where several copy at once over it (a lane of robocopy
   * /MT:n holds 1/n): its share of the credits in flight and of both TCP windows. Requests are still sized by
   * the whole grant, as the client sizes them by what the connection holds (src/copy/transfer.ts fitToCredits).
   * One when absent.
   */
  readonly connectionShare?: number;
}

export const SINGLE_UNPROTECTED: Session = { protection: NO_PROTECTION, channels: 1 };

export interface TransferShape {
  /** Size of one SMB read or write request. */
  readonly requestBytes: number;
  /** Copy-engine chunks in flight and their size, for this file. */
  readonly depth: number;
  readonly chunkBytes: number;
  /** Round trips of one request, and that in milliseconds. */
  readonly requestLatencyMs: number;
  readonly budgets: readonly LayerBudget[];
  /** What this file's pipeline fill adds on a share on this machine (host-costs.ts fileFillSeconds); absent elsewhere. */
  readonly hostFillSeconds?: number;
}

export function creditCharge(requestBytes: number): number {
  return Math.max(1, Math.ceil(requestBytes / BYTES_PER_CREDIT));
}

/** The largest request the pair will use for this direction. */
export function requestBytes(client: ClientProfile, server: ServerProfile, op: Op): number {
  const clientMax = client.maxRequestBytes[op];
  if (client.protocol === 'smb1') return clientMax;
  const serverMax = op === 'read' ? server.smb2.maxReadBytes : server.smb2.maxWriteBytes;
  const dialectMax = client.largeMtu ? serverMax : Math.min(serverMax, BYTES_PER_CREDIT);
  return requestWithinGrant(Math.min(clientMax, dialectMax), server.smb2.creditsMax);
}

/**
 * A request that costs more credits than the server grants is split: half
 * the grant each, so that two are in flight while one is answered. The model
 * and Pipefill's engine (src/copy/transfer.ts fitToCredits) both size with it.
 */
export function requestWithinGrant(request: number, credits: number): number {
  if (creditCharge(request) <= credits) return request;
  return Math.min(request, Math.max(BYTES_PER_CREDIT, Math.floor(credits / 2) * BYTES_PER_CREDIT));
}

/** In-flight bytes the server's credits (SMB2) or multiplex count (SMB1) allow at this request size. */
export function creditBytes(client: ClientProfile, server: ServerProfile, request: number): number {
  if (client.protocol === 'smb1') return server.smb1MaxMpx * request;
  const requests = Math.floor(server.smb2.creditsMax / creditCharge(request));
  return Math.min(requests * request, server.smb2.clientThrottleBytes ?? Infinity);
}

function roundUpToSector(bytes: number): number {
  return Math.max(SECTOR_BYTES, Math.ceil(bytes / SECTOR_BYTES) * SECTOR_BYTES);
}

/**
 * Depth and chunk size the copy engine asks for, for a file of this size.
 * Pipefill's own pipeline asks for what the path needs; when the server's
 * credits grant less, the credits layer is the one that binds, and says so.
 */
export function copyPipeline(pipeline: CopyPipeline, fileBytes: number, request: number, link?: Link): { depth: number; chunkBytes: number } {
  if (pipeline.kind === 'fill-bdp') {
    if (!link) throw new Error('A pipeline sized to the path needs the path: pass the link.');
    const wanted = Math.ceil((pipeline.bdpMultiple * bdpBytes(link)) / request);
    return { depth: Math.min(pipeline.maxDepth, Math.max(pipeline.minDepth, wanted)), chunkBytes: request };
  }
  const row = pipeline.rows.find((candidate) => fileBytes <= candidate.upToFileBytes) ?? pipeline.rows[pipeline.rows.length - 1];
  if (!row) throw new Error('A copy pipeline table has no rows.');
  const chunkBytes = row.chunkBytes === 'file-size' ? roundUpToSector(fileBytes) : row.chunkBytes;
  return { depth: row.depth, chunkBytes };
}

export interface FilePipeline {
  readonly depth: number;
  readonly chunkBytes: number;
  readonly requestBytes: number;
}

/**
 * The pipeline a client runs for one file: its copy engine's depth and chunk,
 * trimmed to the file (a file smaller than a chunk moves in one piece), and
 * the SMB request size the redirector splits chunks into. The SMB engine
 * drives exactly this, so the model and the test copies agree.
 */
export function filePipeline(pipeline: CopyPipeline, fileBytes: number, maxRequestBytes: number, link?: Link): FilePipeline {
  const planned = copyPipeline(pipeline, fileBytes, maxRequestBytes, link);
  const chunkBytes = Math.min(planned.chunkBytes, roundUpToSector(fileBytes));
  const depth = Math.max(1, Math.min(planned.depth, Math.ceil(fileBytes / chunkBytes)));
  return { depth, chunkBytes, requestBytes: Math.min(maxRequestBytes, chunkBytes) };
}

/**
 * Every layer's budget for moving one file of `fileBytes`. Request-granular
 * layers (copy pipeline, credits) complete a unit per request latency plus its
 * own serialisation; byte-granular TCP windows move a window per RTT.
 */
export function transferShape(
  client: ClientProfile,
  server: ServerProfile,
  op: Op,
  fileBytes: number,
  link: Link,
  session: Session = SINGLE_UNPROTECTED,
): TransferShape {
  const rttSeconds = link.rttMs / 1000;
  const channels = Math.max(1, Math.floor(session.channels));
  const { depth, chunkBytes, requestBytes: request } = filePipeline(client.pipeline[op], fileBytes, requestBytes(client, server, op), link);

  // An encrypted message travels inside a 52-byte TRANSFORM_HEADER (MS-SMB2 2.2.41).
  const headerBytes = SMB_HEADER_BYTES_PER_REQUEST + (session.protection.kind === 'encryption' ? TRANSFORM_HEADER_BYTES : 0);
  const efficiency = payloadEfficiency(client.tcp.timestamps, link.mtuBytes) * (request / (request + headerBytes));
  const payloadBytesPerSecond = (link.bandwidthBitsPerSecond / 8) * efficiency;
  // A synchronous client leaves the sender idle before every request; a sender
  // whose stack restarts a burst from idle slowly (BBR paces it out over about
  // half a round trip) sends the request in that time or in its time on the
  // line, whichever is longer: not both. Lab, a 64 KiB exchange under BBR at
  // 32 ms: 48.5 ms (32 + max(its few ms on the line, 16)); on a LAN (1 Gb/s,
  // 0.87 ms measured) 1.48 ms a request against 0.87 + max(0.51, 0.43) + the
  // server's 0.06 turnaround, where adding the two expected 1.9 (2026-11-25).
  const sender = op === 'read' ? server.tcp : client.tcp;
  const initialWindowBytes = sender.initialWindowSegments * maxSegmentBytes(client.tcp.timestamps, link.mtuBytes);
  const restartRtts = depth === 1 && request > initialWindowBytes ? (sender.idleRestartRtts ?? 0) : 0;
  const restartMs = Math.max(0, restartRtts * link.rttMs - (request / payloadBytesPerSecond) * 1000);
  const requestLatencyMs = client.roundTripsPerRequest[op] * link.rttMs + restartMs;
  const latencySeconds = requestLatencyMs / 1000;
  // The data's sender protects it and the receiver checks it; a request
  // waits on both before the next in its slot can go.
  const [dataSender, dataReceiver]: [CryptoSide, CryptoSide] = op === 'read' ? [server.crypto, client.crypto] : [client.crypto, server.crypto];
  // Measured host costs that were taken with this protection already hold its crypto.
  const measured = link.hosts ? hostCostsFor(link.hosts, op, session.protection) : undefined;
  const cryptoSecondsPerByte = measured?.includesProtection ? 0 : protectionSecondsPerByte(session.protection, dataSender, dataReceiver);
  // A request and its reply are messages too: their protection's set-up, at each end, adds to every request's work
  // (already in costs measured with this protection).
  const cryptoSecondsPerRequest = measured?.includesProtection ? 0 : protectionSecondsPerExchange(session.protection, client.crypto, server.crypto);
  const host = measured && { ...measured, costs: { ...measured.costs, secondsPerRequest: measured.costs.secondsPerRequest + cryptoSecondsPerRequest } };
  // A unit waits on the hosts' work for it as well as on the path (measured costs; none where the hosts were not measured).
  const turnaround = link.hosts?.turnaroundSeconds?.[op] ?? 0;
  const hostSeconds = (unitBytes: number): number =>
    host ? hostSecondsFor(host.costs, request, unitBytes, turnaround, link.hosts?.acrossNetwork === true) : 0;
  // Without measured hosts, the set-up is still the ends' work for each request.
  const unmeasuredRequestSeconds = (unitBytes: number): number => (host ? 0 : Math.ceil(unitBytes / request) * cryptoSecondsPerRequest);
  const perUnit = (unitBytes: number, units: number): number =>
    (units * unitBytes) /
    (latencySeconds + unitBytes / payloadBytesPerSecond + unitBytes * cryptoSecondsPerByte + hostSeconds(unitBytes) + unmeasuredRequestSeconds(unitBytes));

  // Credits and TCP windows belong to each connection: multichannel multiplies them, and transfers that share a
  // connection (robocopy's lanes) share them: on average a lane holds its share of the requests the grant allows.
  const given = session.connectionShare;
  const share = given !== undefined && given > 0 && given < 1 ? given : 1;
  const creditRequests = Math.max(1, Math.floor(creditBytes(client, server, request) / request)) * channels * share;
  const clientWindow = (op === 'read' ? client.tcp.receiveWindowBytes : client.tcp.sendWindowBytes) * channels * share;
  const serverWindow = (op === 'read' ? server.tcp.sendWindowBytes : server.tcp.receiveWindowBytes) * channels * share;
  const pipelineBytes = depth * chunkBytes;

  const budgets: LayerBudget[] = [
    { layer: 'bandwidth', bytesInFlight: bdpBytes(link), bytesPerSecond: payloadBytesPerSecond },
    { layer: 'copy-pipeline', bytesInFlight: pipelineBytes, bytesPerSecond: perUnit(chunkBytes, depth) },
    { layer: 'credits', bytesInFlight: creditRequests * request, bytesPerSecond: perUnit(request, creditRequests) },
    { layer: 'client-tcp-window', bytesInFlight: clientWindow, bytesPerSecond: clientWindow / rttSeconds },
    { layer: 'server-tcp-window', bytesInFlight: serverWindow, bytesPerSecond: serverWindow / rttSeconds },
  ];
  const mss = maxSegmentBytes(client.tcp.timestamps, link.mtuBytes);
  // Mathis et al. (1997): a loss-based stream with loss rate p averages at most MSS / RTT x sqrt(3/2) / sqrt(p). BBR
  // does not answer random loss (it paces at the delivery rate it measures): the lab's BBR writes through 1% loss ran
  // five times that bound (2026-11-28).
  const loss = link.lossRate ?? 0;
  if (loss > 0 && sender.congestion !== 'bbr') {
    // Per connection, like the windows: robocopy's lanes on one connection share what the loss lets it carry.
    const bytesPerSecond = channels * share * (mss / rttSeconds) * (MATHIS_CONSTANT / Math.sqrt(loss));
    budgets.push({ layer: 'packet-loss', bytesInFlight: bytesPerSecond * rttSeconds, bytesPerSecond });
  }
  const queue = queueBudget(
    link,
    sender.congestion,
    mss,
    channels,
    Math.min(pipelineBytes, creditRequests * request, clientWindow, serverWindow),
    payloadBytesPerSecond,
  );
  if (queue) budgets.push(queue);
  budgets.push(
    ...hostBudgets({ link, op, session, request, rttSeconds, channels, measured, dataSender, dataReceiver, cryptoSecondsPerByte, cryptoSecondsPerRequest }),
  );
  const hostFillSeconds = measured && link.hosts ? fileFillSeconds(link.hosts, measured.costs, request, depth, fileBytes) : 0;
  return { requestBytes: request, depth, chunkBytes, requestLatencyMs, budgets, ...(hostFillSeconds > 0 ? { hostFillSeconds } : {}) };
}

interface HostBudgetInput {
  readonly link: Link;
  readonly op: Op;
  readonly session: Session;
  readonly request: number;
  readonly rttSeconds: number;
  readonly channels: number;
  /** The hosts' measured costs for this op and protection (hostCostsFor), if the hosts were measured. */
  readonly measured: ReturnType<typeof hostCostsFor> | undefined;
  readonly dataSender: CryptoSide;
  readonly dataReceiver: CryptoSide;
  /** Both ends' protection not in the measured costs, per byte and per request (a synchronous request waits on all of it). */
  readonly cryptoSecondsPerByte: number;
  readonly cryptoSecondsPerRequest: number;
}

/**
 * The hosts' budget where they were measured, named for the protection where
 * that is most of their work, and the protection's own budget where it is
 * not in the hosts' costs and not most of them.
 */
function hostBudgets(input: HostBudgetInput): LayerBudget[] {
  const { link, op, session, request, rttSeconds, channels, measured, dataSender, dataReceiver, cryptoSecondsPerByte, cryptoSecondsPerRequest } = input;
  const budgets: LayerBudget[] = [];
  // The hosts' pace in a deep pipeline is the slower end's: protection not in the measured costs adds its own part
  // there (protectionAtPacingEnd), both parts where the two ends share one core.
  const sharedCore = link.hosts?.acrossNetwork !== true && link.hosts?.load !== undefined && link.hosts.load.cores < 2;
  const paceCrypto = sharedCore
    ? { secondsPerByte: cryptoSecondsPerByte, secondsPerRequest: cryptoSecondsPerRequest }
    : measured?.includesProtection
      ? { secondsPerByte: 0, secondsPerRequest: 0 }
      : protectionAtPacingEnd(session.protection, dataSender, dataReceiver);
  const hostRate = measured
    ? hostBytesPerSecond(
        { ...measured.costs, secondsPerRequest: measured.costs.secondsPerRequest + paceCrypto.secondsPerRequest },
        request,
        paceCrypto.secondsPerByte,
      )
    : Infinity;
  // The hosts' work and any crypto not in it share the pacing end's CPU: per byte, they add there (measured on one
  // connection, so channels do not multiply it). Where the protection is most of that work, the protection is what
  // limits, and the budget carries its name: a signed copy paced by the CPU is paced by its signing.
  // The protection's share of that work comes from the crypto rates (measured here by a microbenchmark that holds still, or
  // published), not from the protected calibration's difference from the plain one: on a busy machine that difference
  // strays by a third, and a Windows 11 copy signed with AES-GMAC (0.04 ns a byte) read "signing" or "hosts" from one run to
  // the next (issue 48).
  const unprotectedRate = link.hosts ? hostBytesPerSecond(link.hosts[op], request) : Infinity;
  const cryptoPerByte = protectionSecondsPerByte(session.protection, dataSender, dataReceiver);
  const protectionShare =
    session.protection.kind !== 'none' && Number.isFinite(hostRate) && Number.isFinite(unprotectedRate) && cryptoPerByte > 0
      ? cryptoPerByte / (1 / unprotectedRate + cryptoPerByte)
      : 0;
  const hostLayer: BudgetLayer = session.protection.kind !== 'none' && protectionShare > 1 / 2 ? session.protection.kind : 'hosts';
  const cryptoBytesPerSecond =
    measured?.includesProtection || hostLayer !== 'hosts' ? Infinity : protectionBytesPerSecond(session.protection, dataSender, dataReceiver, channels);
  if (session.protection.kind !== 'none' && Number.isFinite(cryptoBytesPerSecond)) {
    budgets.push({ layer: session.protection.kind, bytesInFlight: cryptoBytesPerSecond * rttSeconds, bytesPerSecond: cryptoBytesPerSecond });
  }
  if (Number.isFinite(hostRate)) budgets.push({ layer: hostLayer, bytesInFlight: hostRate * rttSeconds, bytesPerSecond: hostRate });
  return budgets;
}

/**
 * A shallow bottleneck queue holds a loss-based sender below the line, but
 * only when nothing else stops its window first: if every other layer caps
 * the bytes in flight below BDP + buffer, the queue never overflows.
 */
function queueBudget(
  link: Link,
  congestion: CongestionControl,
  mss: number,
  flows: number,
  otherCapBytes: number,
  payloadBytesPerSecond: number,
): LayerBudget | undefined {
  const bdp = bdpBytes(link);
  const buffer = bufferBytesOf(link);
  if (otherCapBytes <= bdp + buffer) return undefined;
  const share = lineUtilisation({ congestion, bdpBytes: bdp, bufferBytes: buffer, segmentBytes: mss, rttMs: link.rttMs, flows });
  if (share >= 1) return undefined;
  return { layer: 'bottleneck-queue', bytesInFlight: bdp + buffer, bytesPerSecond: share * payloadBytesPerSecond };
}

/** The budget with the lowest throughput; ties go to the earlier (more fundamental) layer. */
export function tightestBudget(budgets: readonly LayerBudget[]): LayerBudget {
  const [first, ...rest] = budgets;
  if (!first) throw new Error('No layer budgets to compare.');
  return rest.reduce((tightest, budget) => (budget.bytesPerSecond < tightest.bytesPerSecond ? budget : tightest), first);
}
