// Naming the layer that limited a measured copy. The model is run again with
// what the copy itself revealed about the server (the credits it granted, the
// TCP window it advertised while sends waited on it) and with the TCP stack
// that really carried the copy (Pipefill's host, not the generation's own).
// If that run matches the measurement, its limiting layer is the diagnosis;
// if the copy was far slower than even that, the cause is outside the model,
// and the diagnosis says so instead of inventing one.

import type { ClientProfile, Op } from './client-profiles.js';
import { MIB } from './client-profiles.js';
import { closedPipelineSecondsPerRequest } from './closed-pipeline.js';
import { asCongestionControl, idleRestartRtts } from './congestion.js';
import type { CryptoRates, Protection } from './crypto-cost.js';
import { describeProtection, protectionSecondsPerByte } from './crypto-cost.js';
import type { LayerBudget, LimitLayer, Session } from './in-flight.js';
import { SINGLE_UNPROTECTED, transferShape } from './in-flight.js';
import type { Link } from './link.js';
import type { HostCosts } from './host-costs.js';
import { crowdedByOthers } from './host-costs.js';
import { isFloor, withinResolution } from './layer-naming.js';
import { CREDIT_WAITING_LIMITED } from './credits-seen.js';
import type { Prediction } from './predict.js';
import { predictCopy } from './parallel.js';
import type { ServerProfile } from './server-profiles.js';
import type { Observations } from './server-as-seen.js';
import { serverAsSeen } from './server-as-seen.js';
import { formatBinaryBytes, formatByteRate, formatDuration, formatLossRate, formatRate } from './units.js';
import type { Workload } from './workloads.js';

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The TCP stack that carried the test copies (Pipefill's own host). */
export interface EngineStack {
  /** Largest receive and send windows the stack allows (about half of tcp_rmem / tcp_wmem's maximum on Linux). */
  readonly receiveWindowBytes: number;
  readonly sendWindowBytes: number;
  readonly initialWindowSegments: number;
  /** `bbr`, `cubic`, `reno`: BBR restarts a burst from idle half a round trip late. */
  readonly congestion: string;
  /** This machine's per-core signing and encryption rates, measured (src/smb/security/crypto-rates.ts). */
  readonly crypto?: CryptoRates;
}

/** Linux defaults: tcp_rmem max 6 MiB and tcp_wmem max 4 MiB, about half of each usable. */
export const DEFAULT_ENGINE_STACK: EngineStack = { receiveWindowBytes: 3 * MIB, sendWindowBytes: 2 * MIB, initialWindowSegments: 10, congestion: 'cubic' };

/**
 * A generation as Pipefill's engine drives it: the generation's I/O pattern
 * (requests, pipeline, metadata round trips) on the engine's TCP stack, where
 * a request costs the protocol's one round trip (XP's 1.56 / 1.1 were its own
 * stack's).
 */
export function asDrivenByPipefill(client: ClientProfile, stack: EngineStack): ClientProfile {
  return {
    ...client,
    roundTripsPerRequest: { read: 1, write: 1 },
    tcp: {
      receiveWindowBytes: stack.receiveWindowBytes,
      sendWindowBytes: stack.sendWindowBytes,
      initialWindowSegments: stack.initialWindowSegments,
      timestamps: true,
      congestion: asCongestionControl(stack.congestion),
      idleRestartRtts: idleRestartRtts(stack.congestion),
    },
    // Pipefill signs and seals on the thread that runs the copy: one core, however many connections.
    crypto: stack.crypto ? { rates: stack.crypto, scalesWithChannels: false } : client.crypto,
  };
}

/** A server on this very machine (a loopback share): its crypto runs on the same cores, at the rates measured here. */
export function serverOnThisMachine(server: ServerProfile, rates: CryptoRates): ServerProfile {
  return { ...server, crypto: { ...server.crypto, rates } };
}

/** Retransmitted bytes above this share: loss is part of the story. */
const LOSSY = 0.001;

export type DiagnosedLayer = LimitLayer | 'unexplained';

export interface Diagnosis {
  readonly limitedBy: DiagnosedLayer;
  /** The model's time for this copy with the observed facts. */
  readonly explainedSeconds: number;
  /** Payload rate measured, and what that keeps in flight at this RTT. */
  readonly measuredBitsPerSecond: number;
  readonly inFlightBytes: number;
  readonly sentence: string;
  /** The cause alone, without the measurement: what a verdict says of the layer. */
  readonly why: string;
  /** The copy ran slower than every limit the model knows, beyond what noise explains (a layer named then is a suspect, not a bound). */
  readonly beyondModel?: true;
}

export interface DiagnoseInput {
  readonly client: ClientProfile;
  readonly server: ServerProfile;
  readonly op: Op;
  readonly workload: Workload;
  readonly link: Link;
  readonly measuredSeconds: number;
  readonly stack: EngineStack;
  readonly observations: Observations;
  /** What protected the copy on the wire, and over how many connections (absent: neither, one). */
  readonly session?: Session;
  /**
   * The same op and workload by Pipefill's best pipeline in the same run,
   * with cheaper protection (or none): what this machine's CPU path costs
   * per byte without this copy's crypto. See cpuBoundByProtection.
   */
  readonly reference?: { readonly measuredSeconds: number; readonly protection: Protection };
}

/** CPU seconds per byte a protection costs the slower of its two operations (protect, check), at these rates. */
function cryptoSecondsPerByte(protection: Protection, rates: CryptoRates): number {
  if (protection.kind === 'none') return 0;
  const rate = rates[protection.algorithm];
  return rate ? 1 / Math.min(rate.protect, rate.check) : 0;
}

/** CPU seconds per byte of one operation of a protection at these rates (0: none, or no rate measured). */
function operationSecondsPerByte(protection: Protection, rates: CryptoRates, operation: 'protect' | 'check'): number {
  if (protection.kind === 'none') return 0;
  const rate = rates[protection.algorithm]?.[operation];
  return rate && Number.isFinite(rate) ? 1 / rate : 0;
}

/**
 * Where the CPU, not the network, paces a copy (a LAN, a loopback share),
 * crypto runs on the same core as the rest of each byte's work, so its cost
 * adds to that work rather than overlapping it. The reference copy gives the
 * rest: its time per byte, less its own crypto, is what the slower end spends
 * on each byte besides the crypto (its pipeline is deep, so only the slower
 * end shows). This copy's requests then visit the data's sender (that work
 * plus protecting the message) and its receiver (checking it; its other work
 * is unknown and counted as none, the low end), with as many in flight as
 * the copy's pipeline keeps for each file: src/model/closed-pipeline.ts says
 * how far the two ends' passes overlap. One request at a time puts them in
 * series, which a single-pass estimate missed by 20-60% in the lab's signed
 * loopback reads (two 4 MiB requests in flight). Undefined where the
 * protection's two passes are under half the bound: it is not what paces.
 */
export function cpuBoundByProtection(input: DiagnoseInput, rates: CryptoRates): number | undefined {
  const protection = input.session?.protection;
  if (!protection || protection.kind === 'none' || !input.reference) return undefined;
  const session = input.session ?? SINGLE_UNPROTECTED;
  const bytes = input.workload.totalBytes;
  const referenceCrypto = cryptoSecondsPerByte(input.reference.protection, rates);
  const rest = input.reference.measuredSeconds / bytes - referenceCrypto;
  if (!(rest > 0) || cryptoSecondsPerByte(protection, rates) <= referenceCrypto) return undefined;
  const client = asDrivenByPipefill(input.client, input.stack);
  const server = serverAsSeen(input.server, input.op, input.observations);
  const protect = operationSecondsPerByte(protection, rates, 'protect');
  const check = operationSecondsPerByte(protection, rates, 'check');
  const perSize = new Map<number, number>();
  let seconds = 0;
  for (const file of input.workload.files) {
    let fileSeconds = perSize.get(file.bytes);
    if (fileSeconds === undefined) {
      fileSeconds = 0;
      if (file.bytes > 0) {
        const shape = transferShape(client, server, input.op, file.bytes, input.link, session);
        const requests = Math.ceil(file.bytes / shape.requestBytes);
        const slots = shape.depth * Math.max(1, Math.ceil(shape.chunkBytes / shape.requestBytes));
        const unit = file.bytes / requests;
        fileSeconds = requests * closedPipelineSecondsPerRequest([unit * (rest + protect), unit * check], Math.min(requests, slots));
      }
      perSize.set(file.bytes, fileSeconds);
    }
    seconds += fileSeconds;
  }
  // The protection paces the copy only where its own passes are most of that time; otherwise whatever held the
  // reference holds this copy too (lab, 37 Mb/s at 40 ms: "SMB signing, costing 2.81 s" for a folder AES-128-GMAC
  // signs in under a millisecond, beside an unsigned reference as slow).
  return bytes * (protect + check) >= seconds / 2 ? seconds : undefined;
}

/**
 * The share of one request's time (its round trip, its time on the wire, its
 * crypto at both ends) that is crypto, for the request-granular layer that
 * limits (copy pipeline or credits); 0 for any other layer.
 */
function cryptoShareOfRequest(explained: Prediction, client: ClientProfile, server: ServerProfile, op: Op, link: Link, session: Session): number {
  if (explained.limitedBy !== 'copy-pipeline' && explained.limitedBy !== 'credits') return 0;
  const unit = explained.limitedBy === 'copy-pipeline' ? explained.pipeline.chunkBytes : explained.requestBytes;
  const wire = explained.layers.find((layer) => layer.layer === 'bandwidth')?.bytesPerSecond ?? Infinity;
  const [sender, receiver] = op === 'read' ? [server.crypto, client.crypto] : [client.crypto, server.crypto];
  const crypto = unit * protectionSecondsPerByte(session.protection, sender, receiver);
  return crypto / (link.rttMs / 1000 + unit / wire + crypto);
}

/**
 * What the hosts allow, measured: Pipefill's own copy of the same data with
 * the same protection (its pipeline is the deepest, so it shows the hosts'
 * cost per byte and per request rather than a protocol's), where it took
 * longer than the model's protocol limits. Undefined without such a copy.
 */
export function hostsBound(
  input: Pick<DiagnoseInput, 'reference' | 'session' | 'workload'>,
  modelSeconds: number,
): { seconds: number; bitsPerSecond: number } | undefined {
  const reference = input.reference;
  const protection = input.session?.protection ?? { kind: 'none' as const };
  if (!reference || !(reference.measuredSeconds > modelSeconds)) return undefined;
  const same =
    reference.protection.kind === protection.kind &&
    (protection.kind === 'none' || (reference.protection.kind !== 'none' && reference.protection.algorithm === protection.algorithm));
  if (!same) return undefined;
  return { seconds: reference.measuredSeconds, bitsPerSecond: (input.workload.totalBytes * 8) / reference.measuredSeconds };
}

/**
 * What the hosts let a copy take at least, where that is more than the
 * protocol limits: Pipefill's own copy of the same data with the same
 * protection (hostsBound), or, where this copy is protected and that one is
 * not, that copy plus this protection's cost on these CPUs
 * (cpuBoundByProtection). The layer says which.
 */
export function hostsExpectation(input: DiagnoseInput, modelSeconds: number): { seconds: number; layer: 'hosts' | 'signing' | 'encryption' } | undefined {
  const same = hostsBound(input, modelSeconds);
  if (same) return { seconds: same.seconds, layer: 'hosts' };
  const protection = input.session?.protection;
  const cpu = input.stack.crypto && protection && protection.kind !== 'none' ? cpuBoundByProtection(input, input.stack.crypto) : undefined;
  if (cpu !== undefined && protection && protection.kind !== 'none' && cpu > modelSeconds) return { seconds: cpu, layer: protection.kind };
  return undefined;
}

/** What a floor is called in a sentence about the credits that tie with it. */
const LAYER_WORDS: Partial<Record<string, string>> = {
  bandwidth: 'the line',
  'bottleneck-queue': "the line's queue",
  'packet-loss': 'the loss on the path',
  hosts: 'the two machines',
};

/**
 * Where the model names a floor (the line, the hosts) and the credits' budget
 * is within its resolution of it, the model cannot tell which held the copy;
 * the copy can: one that waited for credits a real share of its time
 * (CREDIT_WAITING_LIMITED) was held by them. A deep pipeline waits on
 * credits whenever it has more requests than credits, so the wait alone says
 * nothing where the credits allow far more than the line (issue 48: rows read
 * "Bandwidth (BDP)" beside "waited for more credits 87% of the time").
 */
function creditsHeldIt(
  explained: Prediction,
  observations: Observations,
): { readonly credits: LayerBudget; readonly floor: LayerBudget; readonly waiting: number } | undefined {
  const waiting = observations.creditWaitingFraction ?? 0;
  if (waiting < CREDIT_WAITING_LIMITED || !isFloor(explained.limitedBy)) return undefined;
  const floor = explained.layers.find((layer) => layer.layer === explained.limitedBy);
  const credits = explained.layers.find((layer) => layer.layer === 'credits');
  return floor && credits && withinResolution(credits.bytesPerSecond, floor.bytesPerSecond) ? { credits, floor, waiting } : undefined;
}

/** What a crowded machine (crowdedByOthers) means for a copy slower than the model's band. */
function crowdedSentence(hosts: HostCosts | undefined, ratio: number): string {
  const load = hosts?.load;
  const others = load ? `${load.otherCores.toFixed(1)} of its ${load.cores} cores` : 'its cores';
  return `It took ${ratio.toFixed(1)}x the time the model gives: other programs kept ${others} busy, and a copy here runs on what they leave, which the scheduler shares out differently from one copy to the next.`;
}

/** measured / explained within these bounds: the explained layer accounts for the copy (wider than the green band of compareWithModel: a copy is outside the model only beyond what noise on a busy machine explains). */
const EXPLAINED = { low: 1 / 1.4, high: 1 / 0.7 };

function observedFacts(input: DiagnoseInput, server: ServerProfile): string[] {
  const facts: string[] = [];
  const { observations: seen } = input;
  if (seen.creditsGranted !== undefined && seen.creditsGranted < input.server.smb2.creditsMax)
    facts.push(`the server let Pipefill use at most ${seen.creditsGranted} SMB2 credits at once`);
  if (server.tcp.receiveWindowBytes !== input.server.tcp.receiveWindowBytes) {
    facts.push(
      `the server advertised a ${formatBinaryBytes(server.tcp.receiveWindowBytes)} TCP receive window and sends waited on it ${Math.round((seen.peerWindowLimitedFraction ?? 0) * 100)}% of the time`,
    );
  }
  return facts;
}

export function diagnoseCopy(input: DiagnoseInput): Diagnosis {
  const client = asDrivenByPipefill(input.client, input.stack);
  const server = serverAsSeen(input.server, input.op, input.observations);
  const session = input.session ?? SINGLE_UNPROTECTED;
  const explained: Prediction = predictCopy(client, server, input.op, input.workload, input.link, session);
  const measuredBitsPerSecond = (input.workload.totalBytes * 8) / input.measuredSeconds;
  const inFlightBytes = (measuredBitsPerSecond / 8) * (input.link.rttMs / 1000);
  const ratio = input.measuredSeconds / explained.seconds;
  const measured = `Measured ${formatRate(measuredBitsPerSecond)} in ${formatDuration(input.measuredSeconds * 1000)} (about ${formatBinaryBytes(inFlightBytes)} in flight at ${formatDuration(input.link.rttMs)})`;
  const facts = observedFacts(input, server);
  if (session.protection.kind !== 'none') facts.push(`every message carried ${describeProtection(session.protection)}`);
  const seen = facts.length > 0 ? ` Seen during the copy: ${facts.join('; ')}.` : '';
  const lossy = (input.observations.retransmittedFraction ?? 0) > LOSSY;
  // Outside the model only beyond the hosts' calibration's own noise: a busy machine's runs of one transfer differ,
  // and the expectation made from their median is no surer than that (2 of 3 runs on a loaded machine named a copy
  // 'outside the model', the third 'SMB signing').
  const noise = 1 + Math.max(0, input.link.hosts?.noise ?? 0);
  // Where other programs left the ends too few cores, no copy is slower than the model can say (crowdedByOthers).
  const crowded = crowdedByOthers(input.link.hosts);
  const explains = (measuredOverModel: number) => measuredOverModel >= EXPLAINED.low / noise && (crowded || measuredOverModel <= EXPLAINED.high * noise);
  const crowdedNote = crowded && ratio > EXPLAINED.high * noise ? ` ${crowdedSentence(input.link.hosts, ratio)}` : '';
  if (explains(ratio)) {
    // A request-granular layer whose requests spend most of their time being signed or sealed is the protection's limit.
    const protection = session.protection;
    const protectionBound =
      protection.kind !== 'none' && cryptoShareOfRequest(explained, client, server, input.op, input.link, session) > 1 / 2 ? protection : undefined;
    const credits = protectionBound ? undefined : creditsHeldIt(explained, input.observations);
    const limitedBy = protectionBound ? protectionBound.kind : credits ? 'credits' : explained.limitedBy;
    const why = protectionBound
      ? ` Most of each request's time is ${protectionBound.algorithm} at the two ends: ${protectionBound.kind === 'signing' ? 'the signature' : 'the encryption'}, not the link, limits you.`
      : '';
    if (credits) {
      const cause = `SMB credits and ${LAYER_WORDS[credits.floor.layer] ?? 'the path'} allow about the same here (${formatRate(credits.credits.bytesPerSecond * 8)} and ${formatRate(credits.floor.bytesPerSecond * 8)}), and the copy had a request ready but no credit to send it with ${Math.round(credits.waiting * 100)}% of the time: the credits the server granted held it back.`;
      return {
        limitedBy,
        explainedSeconds: explained.seconds,
        measuredBitsPerSecond,
        inFlightBytes,
        sentence: `${measured}.${seen} ${cause}${crowdedNote}`,
        why: `${cause}${crowdedNote}`,
      };
    }
    return {
      limitedBy,
      explainedSeconds: explained.seconds,
      measuredBitsPerSecond,
      inFlightBytes,
      sentence: `${measured}.${seen} ${explained.explanation}${why}${crowdedNote}`,
      why: `${explained.explanation}${why}${crowdedNote}`,
    };
  }
  const protection = session.protection;
  const cpuBound = input.stack.crypto ? cpuBoundByProtection(input, input.stack.crypto) : undefined;
  if (ratio > EXPLAINED.high && cpuBound !== undefined && protection.kind !== 'none' && input.reference) {
    const cpuRatio = input.measuredSeconds / cpuBound;
    if (explains(cpuRatio)) {
      const rate = input.stack.crypto?.[protection.algorithm];
      const perCore = rate ? formatByteRate(Math.min(rate.protect, rate.check)) : 'its measured rate';
      const what = protection.kind === 'signing' ? 'the signature' : 'the encryption';
      const cause = `${capitalised(describeProtection(protection))} costs this machine's CPU ${perCore} per core, on top of the rest of each byte's work: the CPU, not the network, paces this copy.`;
      const reference = `Pipefill's own ${input.op} of the same data${input.reference.protection.kind === 'none' ? ' without it' : ` with ${input.reference.protection.algorithm}`} took ${formatDuration(input.reference.measuredSeconds * 1000)}`;
      return {
        limitedBy: protection.kind,
        explainedSeconds: cpuBound,
        measuredBitsPerSecond,
        inFlightBytes,
        sentence: `${measured}.${seen} ${capitalised(describeProtection(protection))} costs this machine's CPU ${perCore} per core, on top of the rest of each byte's work: the network is far from full, and the CPU is what paces this copy. ${reference}; adding ${protection.algorithm} at both ends, overlapped as far as this copy's requests in flight allow, gives ${formatDuration(cpuBound * 1000)}. ${capitalised(what)}, not the link, limits you.`,
        why: cause,
      };
    }
  }
  const hosts = hostsBound(input, explained.seconds);
  if (ratio > EXPLAINED.high && hosts) {
    const hostsRatio = input.measuredSeconds / hosts.seconds;
    if (explains(hostsRatio)) {
      const cause = `The two machines are the limit: Pipefill's best pipeline moved the same data on this share at ${formatRate(hosts.bitsPerSecond)}, in ${formatDuration(hosts.seconds * 1000)}, where SMB and TCP on this path allow ${formatDuration(explained.seconds * 1000)}: their CPUs, memory, storage and network stacks take that long per byte.`;
      return {
        limitedBy: 'hosts',
        explainedSeconds: hosts.seconds,
        measuredBitsPerSecond,
        inFlightBytes,
        sentence: `${measured}.${seen} ${cause}`,
        why: cause,
      };
    }
  }
  if (ratio > EXPLAINED.high) {
    // Slower than every bound the model knows, even with what the copy revealed.
    const resent = formatLossRate(input.observations.retransmittedFraction ?? 0);
    const loss = lossy ? ` TCP sent ${resent} of the bytes again: packet loss is one cause.` : '';
    return {
      limitedBy: lossy ? 'packet-loss' : 'unexplained',
      beyondModel: true,
      explainedSeconds: explained.seconds,
      measuredBitsPerSecond,
      inFlightBytes,
      sentence: `${measured}, ${ratio.toFixed(1)}x slower than every limit the model knows allows (${formatDuration(explained.seconds * 1000)}).${seen}${loss} Something else holds it back: a disk or CPU at either end, packet loss${session.protection.kind === 'none' ? '' : `, ${session.protection.kind} costing more than the ${session.protection.algorithm} rate measured here`}, or a device in the path.`,
      why: lossy
        ? `The copy ran ${ratio.toFixed(1)}x slower than the limits the model knows allow, with ${resent} of its bytes sent again: packet loss is one cause.`
        : `${ratio.toFixed(1)}x slower than every limit the model knows allows: something outside SMB and TCP's settings (a disk or CPU at either end, or a device in the path).`,
    };
  }
  return {
    limitedBy: explained.limitedBy,
    explainedSeconds: explained.seconds,
    measuredBitsPerSecond,
    inFlightBytes,
    sentence: `${measured}: faster than the model expects (${formatDuration(explained.seconds * 1000)}); a cache, or a faster path than the probe measured.${seen}`,
    why: `faster than the model expects: ${explained.explanation}`,
  };
}
