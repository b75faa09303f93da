// One plain sentence per prediction, with the numbers that make the case:
// "one 60 KB request per round trip: 1.2 MB/s at 32 ms, whatever the bandwidth".

import type { ClientProfile, Op } from './client-profiles.js';
import type { CryptoSide } from './crypto-cost.js';
import type { LayerBudget, LimitLayer, Session } from './in-flight.js';
import { exchangeSeconds, hostCostsFor } from './host-costs.js';
import { creditCharge } from './in-flight.js';
import { bufferBytesOf } from './link.js';
import type { Link } from './link.js';
import type { ServerProfile } from './server-profiles.js';
import { formatBinaryBytes, formatByteRate, formatBytes, formatDuration, formatLossRate, formatRate } from './units.js';

export interface ExplainInput {
  readonly seconds: number;
  readonly limitedBy: LimitLayer;
  readonly layers: readonly LayerBudget[];
  readonly bdpBytes: number;
  readonly requestBytes: number;
  readonly pipeline: { readonly depth: number; readonly chunkBytes: number };
  readonly breakdown: {
    readonly dataSeconds: number;
    readonly metadataSeconds: number;
    readonly metadataRoundTrips: number;
    readonly slowStartSeconds: number;
  };
  readonly files: number;
  readonly session: Session;
}

function rateOf(bytesPerSecond: number): string {
  return `${formatByteRate(bytesPerSecond)} (${formatRate(bytesPerSecond * 8)})`;
}

function share(bytesPerSecond: number, link: Link): string {
  const percent = Math.round(((bytesPerSecond * 8) / link.bandwidthBitsPerSecond) * 100);
  return `${percent}% of your ${formatRate(link.bandwidthBitsPerSecond)}`;
}

function layerSentence(layer: LayerBudget, input: ExplainInput, client: ClientProfile, server: ServerProfile, op: Op, link: Link): string {
  const rtt = formatDuration(link.rttMs);
  const rate = rateOf(layer.bytesPerSecond);
  switch (layer.layer) {
    case 'copy-pipeline': {
      const { depth, chunkBytes } = input.pipeline;
      if (depth === 1) {
        const trips = client.roundTripsPerRequest[op];
        const per = trips === 1 ? 'per round trip' : `at a time, ${trips} round trips each`;
        return `one ${formatBinaryBytes(chunkBytes)} request ${per}: ${rate} at ${rtt}, whatever the bandwidth.`;
      }
      const protection = input.session.protection;
      const waits = protection.kind === 'none' ? '' : ` Each request also waits on ${protection.kind} with ${protection.algorithm} at both ends.`;
      return `the copy engine keeps ${depth} x ${formatBinaryBytes(chunkBytes)} (${formatBinaryBytes(layer.bytesInFlight)}) in flight: ${rate} at ${rtt}, ${share(layer.bytesPerSecond, link)}. The path needs ${formatBytes(input.bdpBytes)} in flight.${waits}`;
    }
    case 'credits': {
      if (client.protocol === 'smb1') {
        return `the server's SMB1 multiplex limit (${server.smb1MaxMpx} requests of ${formatBinaryBytes(input.requestBytes)}) allows ${formatBinaryBytes(layer.bytesInFlight)} in flight: ${rate} at ${rtt}, ${share(layer.bytesPerSecond, link)}.`;
      }
      const charge = creditCharge(input.requestBytes);
      const grantedBytes = Math.floor(server.smb2.creditsMax / charge) * input.requestBytes;
      const throttled = server.smb2.clientThrottleBytes !== undefined && server.smb2.clientThrottleBytes < grantedBytes;
      if (throttled) {
        return `the client's SMB2 credit throttle holds it to ${formatBinaryBytes(layer.bytesInFlight)} in flight: ${rate} at ${rtt}, ${share(layer.bytesPerSecond, link)}.`;
      }
      const chargeText = charge > 1 ? ` (${charge} credits each)` : '';
      return `the server's ${server.smb2.creditsMax} SMB2 credits allow ${formatBinaryBytes(layer.bytesInFlight)} of ${formatBinaryBytes(input.requestBytes)} requests${chargeText} in flight: ${rate} at ${rtt}, ${share(layer.bytesPerSecond, link)}.`;
    }
    case 'client-tcp-window': {
      const what = op === 'read' ? "the client's TCP receive window" : "the client's TCP send buffer";
      return `your ${op}s stop at ${formatBinaryBytes(layer.bytesInFlight)} in flight: ${what}. At ${rtt} that caps you at ${rate}, ${share(layer.bytesPerSecond, link)}.`;
    }
    case 'server-tcp-window': {
      const what = op === 'write' ? "the server's TCP receive window" : "the server's TCP send buffer";
      return `your ${op}s stop at ${formatBinaryBytes(layer.bytesInFlight)} in flight: ${what}. At ${rtt} that caps you at ${rate}, ${share(layer.bytesPerSecond, link)}.`;
    }
    case 'packet-loss':
      // Only a sender that backs off at each loss: a BBR server's reads keep their rate through it (server-as-seen.ts).
      return `packet loss of ${formatLossRate(link.lossRate ?? 0)} holds one ${op === 'read' ? server.tcp.congestion : client.tcp.congestion} TCP stream, which backs off at each loss, to about ${rate} at ${rtt} (Mathis bound), whatever the windows.`;
    case 'bottleneck-queue': {
      const congestion = op === 'read' ? server.tcp.congestion : client.tcp.congestion;
      const buffer = bufferBytesOf(link);
      const flows = input.session.channels > 1 ? `${input.session.channels} ${congestion} flows` : `one ${congestion} flow`;
      return `the bottleneck's ${formatBytes(buffer)} buffer is ${Math.round((buffer / input.bdpBytes) * 100)}% of the path's ${formatBytes(input.bdpBytes)} BDP: after each loss ${flows} back${input.session.channels > 1 ? '' : 's'} off below what fills the line, and averages ${rate}, ${share(layer.bytesPerSecond, link)}. A deeper queue, more connections (multichannel) or BBR keep the line busy.`;
    }
    case 'signing':
    case 'encryption': {
      const protection = input.session.protection;
      if (protection.kind === 'none') return `${layer.layer} limits it to ${rate}.`;
      const [sender, receiver]: [[string, CryptoSide], [string, CryptoSide]] =
        op === 'read'
          ? [
              ['the server', server.crypto],
              ['this client', client.crypto],
            ]
          : [
              ['this client', client.crypto],
              ['the server', server.crypto],
            ];
      const protect = sender[1].rates[protection.algorithm]?.protect ?? Infinity;
      const check = receiver[1].rates[protection.algorithm]?.check ?? Infinity;
      const [who, verb] =
        protect <= check
          ? [sender[0], protection.kind === 'signing' ? 'signing' : 'encrypting']
          : [receiver[0], protection.kind === 'signing' ? 'verifying' : 'decrypting'];
      const what = protection.kind === 'signing' ? 'the signature' : 'the encryption';
      const channels = input.session.channels > 1 ? ` over ${input.session.channels} connections` : '';
      return `${verb} with ${protection.algorithm} lets ${who} move about ${formatRate(layer.bytesPerSecond * 8)} of data${channels}; your link is ${formatRate(link.bandwidthBitsPerSecond)}: ${what}, not the link, limits you.`;
    }
    case 'hosts': {
      // The costs that applied: those measured with the copy's protection where they were.
      const costs = link.hosts ? hostCostsFor(link.hosts, op, input.session.protection).costs : undefined;
      const perRequest = costs
        ? `${formatDuration(costs.secondsPerRequest * 1000)} per request and ${formatDuration(costs.secondsPerByte * 1e9)} per MB`
        : 'their measured cost per request and per byte';
      const protection = input.session.protection.kind === 'none' ? '' : ` with ${input.session.protection.kind} (${input.session.protection.algorithm})`;
      // Where the server's file-system work on the metadata exchanges is a real part of the time, say so (predictTransfer counts it as the hosts').
      const perExchange = exchangeSeconds(link.hosts, input.session.protection, client.crypto, server.crypto);
      const fileSystemSeconds = input.breakdown.metadataRoundTrips * perExchange;
      const fileSystem =
        fileSystemSeconds > input.breakdown.dataSeconds / 4
          ? `, and the server's file-system work${exchangeWork(input.session.protection)} takes ${formatDuration(perExchange * 1000)} on each of ${input.breakdown.metadataRoundTrips} metadata exchanges (${formatDuration(fileSystemSeconds * 1000)} in all)`
          : '';
      return `the two machines are the limit: measured on this share, their CPUs, memory, storage and network stacks take ${perRequest} ${op === 'read' ? 'reading' : 'writing'}${protection}, ${rate} with ${formatBinaryBytes(input.requestBytes)} requests, below the ${formatRate(link.bandwidthBitsPerSecond)} the path carries${fileSystem}.`;
    }
    case 'bandwidth':
      // The files' clause before the colon: the verdict quotes a cause to its first colon.
      return `every layer keeps the path's ${formatBytes(input.bdpBytes)} BDP in flight${filesAside(input, link)}: the link itself is the limit, ${rate} of payload on ${formatRate(link.bandwidthBitsPerSecond)}.`;
  }
}

/** Below this share of the data's time, a folder's metadata round trips are not worth a clause beside the line. */
const METADATA_SHARE_WORTH_SAYING = 0.1;

/**
 * A folder whose data the line limits still waits for each file's opening and closing, one file after
 * another: the part a copy tool's lanes overlap, so said beside the line (a lossy lab's small-files read
 * read "every layer keeps the BDP in flight" above "set robocopy /MT:2", with nothing to join the two).
 */
function filesAside(input: ExplainInput, link: Link): string {
  const { metadataSeconds, metadataRoundTrips, dataSeconds } = input.breakdown;
  if (input.files < 2 || !(metadataSeconds >= METADATA_SHARE_WORTH_SAYING * dataSeconds)) return '';
  return `, and its ${input.files} files' ${metadataRoundTrips} metadata round trips at ${formatDuration(link.rttMs)} add ${formatDuration(metadataSeconds * 1000)}, one file after another, which copying several files at once overlaps`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a metadata exchange's time holds beside the server's file system: its two messages' signing or sealing, where the copy's are. */
const exchangeWork = (protection: Session['protection']): string =>
  protection.kind === 'none' ? '' : ` and ${protection.kind === 'signing' ? 'signing' : 'sealing'}`;

export function explain(input: ExplainInput, client: ClientProfile, server: ServerProfile, op: Op, link: Link): string {
  const rtt = formatDuration(link.rttMs);
  const { breakdown } = input;
  if (input.limitedBy === 'round-trips') {
    const perFile = input.files > 0 ? Math.round(breakdown.metadataRoundTrips / input.files) : breakdown.metadataRoundTrips;
    const perExchange = exchangeSeconds(link.hosts, input.session.protection, client.crypto, server.crypto);
    const turnaround =
      link.hosts && perExchange > 0
        ? ` plus the server's ${formatDuration(perExchange * 1000)} of file-system work${exchangeWork(input.session.protection)} each`
        : '';
    return capitalise(
      `${input.files} files x about ${perFile} metadata round trips (${breakdown.metadataRoundTrips} in all, ${formatDuration(breakdown.metadataSeconds * 1000)} at ${rtt}${turnaround}) take longer than the data itself (${formatDuration(breakdown.dataSeconds * 1000)}): fewer round trips per file, or several files at once, is what helps.`,
    );
  }
  if (input.limitedBy === 'slow-start') {
    return capitalise(
      `the copy is short beside TCP's ramp: ${formatDuration(breakdown.slowStartSeconds * 1000)} go to growing the window from its initial few segments to the ${formatBytes(input.bdpBytes)} this path needs.`,
    );
  }
  const layer = input.layers.find((candidate) => candidate.layer === input.limitedBy);
  if (!layer) return `Limited by ${input.limitedBy}.`;
  return capitalise(layerSentence(layer, input, client, server, op, link));
}
