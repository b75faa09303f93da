// A capture's analysis as a person reads it in a terminal or a ticket: for
// each copy the capture holds, how fast it ran, how fast the model says it
// could with the path, client and server as the capture shows them, and the
// layer that held it; then what the client did (requests, depth, credits),
// the server's time per command, and what the capture could not show.
// Every figure comes from the analysis document: nothing is worked out here
// but the words. Pure.

import type { CaptureAnalysis, CapturedConnection, CapturedCopy } from '../contract/capture.js';
import { LAYER_LABELS } from '../model/layer-labels.js';
import { printable } from '../model/terminal-text.js';
import { formatBinaryBytes, formatBytes, formatDuration, formatRate } from '../model/units.js';

/** How far requests' mean size may stray from their commonest before the text says both. */
const MEAN_NAMED_BEYOND = 0.05;
/** The share of a copy's time with nothing out from which the client's own pace is named. */
const CLIENT_IDLE_NAMED = 0.1;

const endpointText = (endpoint: CapturedConnection['client']) =>
  endpoint.address.includes(':') ? `[${endpoint.address}]:${endpoint.port}` : `${endpoint.address}:${endpoint.port}`;

/** The copy's seconds and rate as measured, beside the model's. */
export function copyVerdictText(copy: CapturedCopy): string {
  const seconds = copy.lastSeconds - copy.firstSeconds;
  const rate = seconds > 0 ? (copy.bytes * 8) / seconds : 0;
  const ran = `${copy.op} of ${formatBytes(copy.bytes)}: ${formatDuration(seconds * 1000)} at ${formatRate(rate)}`;
  if (!copy.model) return `${ran}; not set against the model (the capture lacks the round trip)`;
  const { expectedSeconds, clientIdleSeconds, limitedBy, verdict } = copy.model;
  // The document's verdict; the ratio only says by how much.
  const ratio = expectedSeconds > 0 ? seconds / expectedSeconds : Number.POSITIVE_INFINITY;
  const how =
    verdict === 'as-expected'
      ? 'as the model expects'
      : verdict === 'slower-than-expected'
        ? `${ratio.toFixed(1)}x slower than the model expects`
        : `${(1 / ratio).toFixed(1)}x faster than the model expects`;
  const own = clientIdleSeconds >= CLIENT_IDLE_NAMED * expectedSeconds ? `, ${formatDuration(clientIdleSeconds * 1000)} of it the client's own pace` : '';
  return `${ran}; the model gives ${formatDuration(expectedSeconds * 1000)} with this path, client and server${own} (${how}); limited by ${LAYER_LABELS[limitedBy]}`;
}

/** What the client did for one copy: its requests as issued. */
export function copyClientText(copy: CapturedCopy): string {
  const sizes = copy.largestRequestBytes !== copy.requestBytes ? ` (the largest ${formatBinaryBytes(copy.largestRequestBytes)})` : '';
  const partial = [
    copy.sealed ? 'read from the sizes of encrypted messages' : '',
    copy.opened || copy.sealed ? '' : 'opened before the capture began',
    copy.closed || copy.sealed ? '' : 'not closed in the capture',
    copy.unanswered > 0 ? `${copy.unanswered} requests unanswered in it` : '',
  ]
    .filter(Boolean)
    .join('; ');
  // A tenth of its time or more with nothing out: the client's own pace, named (the model's time leaves it out).
  const idle =
    copy.idleFraction !== undefined && copy.idleFraction >= CLIENT_IDLE_NAMED
      ? `; nothing in flight ${Math.round(100 * copy.idleFraction)}% of the time (the client's own pace: its CPU, disk or program)`
      : '';
  const waited =
    copy.waitingFraction !== undefined && copy.heldWhileWaiting !== undefined
      ? `; waited for credits ${Math.round(100 * copy.waitingFraction)}% of the time, holding ${copy.heldWhileWaiting}`
      : '';
  // Requests of several sizes: the one most bytes went in, and the mean the model takes (capture-model.ts clientSeen).
  const mean = copy.requests > 0 ? copy.bytes / copy.requests : copy.requestBytes;
  const requests =
    Math.abs(mean - copy.requestBytes) > MEAN_NAMED_BEYOND * copy.requestBytes
      ? `${copy.requests} requests, most of ${formatBinaryBytes(copy.requestBytes)} (${formatBinaryBytes(mean)} on average)`
      : `${copy.requests} requests of ${formatBinaryBytes(copy.requestBytes)}`;
  return `${requests}${sizes}, at most ${copy.maxInFlight} in flight (${copy.meanInFlight.toFixed(1)} on average, ${formatBinaryBytes(copy.meanBytesInFlight)})${idle}${waited}${copy.sealed ? '' : `; ${copy.metadataRoundTrips} metadata round trips`}${partial ? `; ${partial}` : ''}`;
}

/** One connection as every view reads it: its summary, each copy's verdict and client lines, TCP, and the server's times. */
export interface ConnectionLines {
  readonly summary: string;
  readonly copies: readonly { readonly verdict: string; readonly client: string }[];
  readonly tcp: string;
  readonly serverTimes?: string;
}

/** The analysis as its views show it (the terminal's text, the app's Capture view): one set of sentences for both. */
export interface CaptureLines {
  readonly heading: string;
  readonly connections: readonly ConnectionLines[];
  readonly notes: readonly string[];
}

function connectionLines(connection: CapturedConnection, index: number, count: number): ConnectionLines {
  const protection = connection.messages.sealed > 0 ? 'encrypted' : connection.messages.signed > 0 ? 'signed' : 'unsigned';
  const rtt = connection.handshakeRttMs === undefined ? 'round trip unknown' : `round trip ${formatDuration(connection.handshakeRttMs)} (its handshake)`;
  const { windowMax, seen, inUseMax } = connection.credits;
  const credits =
    connection.messages.sealed > 0
      ? 'its credits hidden by encryption'
      : windowMax === undefined || seen === undefined
        ? `at most ${inUseMax} credits in use (the capture missed the session's start)`
        : `the server allowed ${seen} credits (at most ${windowMax} held at once)`;
  const { client, server } = connection.tcp;
  const resent = [client, server].map((side) => (side.bytes > 0 ? side.retransmittedBytes / side.bytes : 0));
  const commands = connection.commands.filter((entry) => entry.count > 0);
  return {
    summary: `${count > 1 ? `Connection ${index + 1}: ` : ''}${endpointText(connection.client)} to ${endpointText(connection.server)}: SMB ${connection.dialect ?? '(dialect not seen)'}, ${protection}, ${rtt}; ${credits}.`,
    copies: connection.copies.map((copy) => ({ verdict: `${copyVerdictText(copy)}.`, client: `${copyClientText(copy)}.` })),
    tcp: `TCP: MSS ${client.mss ?? '?'} / ${server.mss ?? '?'}; windows up to ${formatBinaryBytes(client.maxWindowBytes)} (client) and ${formatBinaryBytes(server.maxWindowBytes)} (server); zero windows ${client.zeroWindows} and ${server.zeroWindows}; sent again ${(100 * (resent[0] ?? 0)).toFixed(2)}% and ${(100 * (resent[1] ?? 0)).toFixed(2)}%.`,
    ...(commands.length > 0
      ? {
          serverTimes: `Server's time per command (median / 95th percentile${commands.some((entry) => entry.pathIncluded) ? ', the path included: the capture missed the handshake' : ''}): ${commands.map((entry) => `${entry.command} ${formatDuration(entry.medianMs)} / ${formatDuration(entry.p95Ms)} (${entry.count})`).join(', ')}.`,
        }
      : {}),
  };
}

export function captureLines(analysis: CaptureAnalysis, name: string): CaptureLines {
  const { file, connections } = analysis;
  return {
    heading: `Capture ${printable(name)}: ${file.packets} packets over ${formatDuration(file.spanSeconds * 1000)}; ${connections.length} SMB connection${connections.length === 1 ? '' : 's'}${analysis.otherConnections > 0 ? ` (and ${analysis.otherConnections} other TCP)` : ''}.`,
    connections: connections.map((connection, index) => connectionLines(connection, index, connections.length)),
    notes: analysis.notes,
  };
}

export function captureText(analysis: CaptureAnalysis, name: string): string {
  const { heading, connections, notes } = captureLines(analysis, name);
  const lines = [heading];
  for (const connection of connections) {
    lines.push('', connection.summary);
    for (const copy of connection.copies) lines.push(`  ${copy.verdict}`, `    ${copy.client}`);
    if (connection.copies.length === 0) lines.push('  No file read or written in it.');
    lines.push(`  ${connection.tcp}`);
    if (connection.serverTimes) lines.push(`  ${connection.serverTimes}`);
  }
  if (notes.length > 0) lines.push('', 'What the capture could not show:', ...notes.map((note) => `- ${note}`));
  return lines.join('\n');
}
