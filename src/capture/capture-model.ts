// A captured copy against the model (issue 53): the model of every layer,
// given what the capture showed instead of a profile's figures. The link's
// round trip is the handshake's; the client keeps in flight what it was seen
// to (its largest request and the most requests it had out); the server
// grants the credits it was seen to and advertises the window it did; the
// receiver's window is the one it advertised; the client's own pace (the
// time it had nothing out) is its own. The line's rate is not in a
// capture (a copy that ran below it shows no more than its own rate): a
// person gives it, else the model takes the line as no limit and says so.

import type { ClientProfile } from '../model/client-profiles.js';
import type { Link } from '../model/link.js';
import { isMtuBytes } from '../model/link.js';
import { PipefillInputError } from '../model/errors.js';
import type { LayerBudget, LimitLayer } from '../model/in-flight.js';
import type { Verdict } from '../model/assessment.js';
import { compareWithModel } from '../model/assessment.js';
import { clientProfile, predictTransfer, serverProfile } from '../model/predict.js';
import { CREDIT_WAITING_LIMITED, creditsSeen } from '../model/credits-seen.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';
import { serverAsSeen } from '../model/server-as-seen.js';
import { singleFile } from '../model/workloads.js';
import type { ConnectionSeen } from './connections.js';
import type { FileCopySeen } from './file-copy-seen.js';
import type { SmbExchangesSeen } from './smb-exchanges.js';

/** Where a person gave no line rate: one no copy is held by (100 Gb/s). */
const NO_LINE_LIMIT_BITS_PER_SECOND = 100e9;
/** IPv4 and TCP headers with timestamps beside an MSS: the MTU the path carried. */
const HEADER_BYTES_BESIDE_MSS = 40;

export interface CopyAgainstModel {
  readonly copy: FileCopySeen;
  /** The copy's data: its first request to its last answer (s). */
  readonly measuredSeconds: number;
  /** The model's time for the same bytes with the client, server and path as seen, its own pace included (s). */
  readonly expectedSeconds: number;
  /** Of that, the client's own pace: the time it had nothing in flight, as seen (s). */
  readonly clientIdleSeconds: number;
  /** Measured against expected by the assessment's own rule (compareWithModel: the model's 15%). */
  readonly verdict: Verdict;
  readonly limitedBy: LimitLayer;
  readonly layers: readonly LayerBudget[];
  readonly link: Link;
  /** Whether the line's rate was given (else the model took it as no limit). */
  readonly lineGiven: boolean;
}

export interface CaptureModelInput {
  /** The line's rate, where the person knows it. */
  readonly bandwidthBitsPerSecond?: number;
}

/** The credits the server allowed, read from the capture as from Pipefill's own copies (src/model/credits-seen.ts); undefined where it missed the session's start. */
export function serverCreditsSeen(smb: SmbExchangesSeen): number | undefined {
  const { windowMax } = smb.credits;
  if (windowMax === undefined) return undefined;
  return creditsSeen(
    smb.copies.length === 0
      ? [{ creditsGrantedMax: windowMax }]
      : smb.copies.map((copy) => ({
          creditsGrantedMax: windowMax,
          creditsHeldWhileWaiting: copy.heldWhileWaiting,
          creditWaitingFraction: copy.waitingFraction,
        })),
  );
}

/**
 * The client as the capture shows it: a current client's profile, with the
 * requests and depth it was seen to use. A copy that waited for credits a
 * real share of its time (CREDIT_WAITING_LIMITED) would have had more out if
 * the server had let it: its depth as seen is the credits', not its own, so
 * it is taken as one request deeper than they allow, and the model names the
 * credits (on the lab's link with `smb2 max credits = 16`, Windows 10's
 * copies waited 94% of the time with one 1 MiB request out).
 */
function clientSeen(connection: ConnectionSeen, copy: FileCopySeen, credits: number | undefined): ClientProfile {
  const base = clientProfile((connection.smb.dialect ?? 0) >= 0x300 ? 'win10-smb3' : 'win7-smb2');
  const heldByCredits = credits !== undefined && (copy.waitingFraction ?? 0) >= CREDIT_WAITING_LIMITED && copy.requestBytes > 0;
  const creditDepth = heldByCredits ? Math.floor((credits * BYTES_PER_CREDIT) / copy.requestBytes) + 1 : 0;
  const depth = Math.max(1, copy.maxInFlight, creditDepth);
  // Its requests' mean size, so the model makes as many as it did: a client whose requests vary (go-smb2 read
  // through io.ReadAll: 39 requests for 16 MiB, most of 1 MiB) pays a round trip for each small one too.
  const chunkBytes = copy.requests > 0 ? Math.max(1, Math.round(copy.bytes / copy.requests)) : copy.requestBytes;
  const pipeline = { kind: 'table' as const, rows: [{ upToFileBytes: Infinity, depth, chunkBytes }] };
  const receiveWindow = connection.clientSide.maxWindowBytes;
  return {
    ...base,
    pipeline: { read: pipeline, write: pipeline },
    maxRequestBytes: { read: copy.largestRequestBytes, write: copy.largestRequestBytes },
    largeMtu: copy.largestRequestBytes > 64 * 1024,
    tcp: receiveWindow > 0 ? { ...base.tcp, receiveWindowBytes: receiveWindow } : base.tcp,
  };
}

/** The path as the capture shows it: the handshake's round trip, the MSS's packet size, the line as given. */
export function linkSeen(connection: ConnectionSeen, input: CaptureModelInput): Link | undefined {
  const rttMs = connection.handshakeRttMs;
  if (rttMs === undefined || !(rttMs > 0)) return undefined;
  const mss = Math.min(connection.clientSide.mss ?? Infinity, connection.serverSide.mss ?? Infinity);
  return {
    bandwidthBitsPerSecond: input.bandwidthBitsPerSecond ?? NO_LINE_LIMIT_BITS_PER_SECOND,
    rttMs,
    ...(isMtuBytes(mss + HEADER_BYTES_BESIDE_MSS) ? { mtuBytes: mss + HEADER_BYTES_BESIDE_MSS } : {}),
  };
}

/** One captured copy against the model; undefined where the capture lacks the round trip (it missed the handshake). */
export function copyAgainstModel(connection: ConnectionSeen, copy: FileCopySeen, input: CaptureModelInput = {}): CopyAgainstModel | undefined {
  const link = linkSeen(connection, input);
  if (!link || !(copy.requestBytes > 0)) return undefined;
  const credits = serverCreditsSeen(connection.smb);
  const server = serverAsSeen(serverProfile('samba'), copy.op, {
    // The window that paced the copies, not a moment's peak (src/model/credits-seen.ts).
    ...(credits === undefined ? {} : { creditsGranted: credits }),
    // The server's window as it advertised it: writes wait on it (peerWindowLimitedFraction 1 makes the model take it).
    ...(connection.serverSide.maxWindowBytes > 0 ? { peerWindowBytes: connection.serverSide.maxWindowBytes, peerWindowLimitedFraction: 1 } : {}),
  });
  let prediction;
  try {
    prediction = predictTransfer(clientSeen(connection, copy, credits), server, copy.op, singleFile(copy.bytes, `file:${copy.bytes}B`), link);
  } catch (error) {
    // A capture can state what no path has (a round trip of hours); that copy is then not set against the model.
    if (error instanceof PipefillInputError) return undefined;
    throw error;
  }
  const measuredSeconds = copy.lastSeconds - copy.firstSeconds;
  // The client's own pace is part of its behaviour as seen, as the hosts' calibration is of an assessment's model:
  // the time it had nothing out adds to what the layers between it and the server take, and where it is the larger
  // part, the client's machine is what held the copy (impacket sealing in Python: 87% of a write idle).
  const clientIdleSeconds = (copy.idleFraction ?? 0) * measuredSeconds;
  const layersSeconds = prediction.breakdown.dataSeconds + prediction.breakdown.slowStartSeconds;
  const expectedSeconds = layersSeconds + clientIdleSeconds;
  return {
    copy,
    measuredSeconds,
    expectedSeconds,
    clientIdleSeconds,
    verdict: compareWithModel(measuredSeconds, { seconds: expectedSeconds }).verdict,
    limitedBy: clientIdleSeconds > layersSeconds ? 'hosts' : prediction.limitedBy,
    layers: prediction.layers,
    link,
    lineGiven: input.bandwidthBitsPerSecond !== undefined,
  };
}
