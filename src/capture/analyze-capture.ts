// `analyzeCapture`: a capture file read through once, each SMB connection in
// it as the contract carries it (src/contract/capture.ts), each copy against
// the model with the path, client and server as seen, and what the capture
// could not show said in a sentence each. Nothing the file holds is passed
// on as text but what parsers made of it (numbers, addresses as formatted).

import type { CaptureAnalysis, CapturedConnection, CaptureInput } from '../contract/capture.js';
import { CaptureInputSchema } from '../contract/capture.js';
import { formatBytes, parseRate } from '../model/units.js';
import { dialectName } from '../smb/security/algorithms.js';
import { copyAgainstModel, serverCreditsSeen } from './capture-model.js';
import type { ConnectionSeen, SideSeen } from './connections.js';
import type { CommandTimes } from './smb-exchanges.js';
import type { CaptureRead } from './read-capture.js';
import { readCaptureFile } from './read-capture.js';

/** MS-SMB2 2.2.1's command names, as Wireshark shows them. */
const COMMAND_NAMES: Readonly<Record<number, string>> = {
  0: 'NEGOTIATE',
  1: 'SESSION_SETUP',
  2: 'LOGOFF',
  3: 'TREE_CONNECT',
  4: 'TREE_DISCONNECT',
  5: 'CREATE',
  6: 'CLOSE',
  7: 'FLUSH',
  8: 'READ',
  9: 'WRITE',
  10: 'LOCK',
  11: 'IOCTL',
  12: 'CANCEL',
  13: 'ECHO',
  14: 'QUERY_DIRECTORY',
  15: 'CHANGE_NOTIFY',
  16: 'QUERY_INFO',
  17: 'SET_INFO',
  18: 'OPLOCK_BREAK',
};

const commandName = (command: number) => COMMAND_NAMES[command] ?? `command 0x${command.toString(16).padStart(4, '0')}`;

/**
 * A command's times as the server took them: each exchange timed at the capture's point less the round trip
 * between there and the server (its SYN to SYN-ACK). At the client that is the path's whole round trip (the lab's
 * 40 ms link timed every NEGOTIATE, CREATE and CLOSE at 41-44 ms); at the server, none. Unknown without the handshake.
 */
function serverTimes(entry: CommandTimes, toServerRttMs: number | undefined): CapturedConnection['commands'][number] {
  const less = (ms: number) => Math.max(0, ms - (toServerRttMs ?? 0));
  return {
    command: commandName(entry.command),
    count: entry.count,
    medianMs: less(entry.medianMs),
    p95Ms: less(entry.p95Ms),
    ...(toServerRttMs === undefined ? { pathIncluded: true } : {}),
  };
}

function sideOut(side: SideSeen): CapturedConnection['tcp']['client'] {
  return {
    ...(side.mss === undefined ? {} : { mss: side.mss }),
    ...(side.windowScale === undefined ? {} : { windowScale: side.windowScale }),
    maxWindowBytes: side.maxWindowBytes,
    zeroWindows: side.zeroWindows,
    bytes: side.sent.bytes,
    retransmittedBytes: side.sent.retransmittedBytes,
    missedBytes: side.sent.missedBytes,
    unframedBytes: side.framing.unframedBytes,
  };
}

function connectionOut(connection: ConnectionSeen, bandwidthBitsPerSecond: number | undefined): CapturedConnection {
  const { smb } = connection;
  const dialect = smb.dialect === undefined ? undefined : dialectName(smb.dialect);
  return {
    client: connection.client,
    server: connection.server,
    ...(connection.handshakeRttMs === undefined ? {} : { handshakeRttMs: connection.handshakeRttMs }),
    sawOpen: connection.sawOpen,
    sawEnd: connection.sawEnd,
    ...(dialect ? { dialect } : {}),
    messages: smb.messages,
    credits: { ...smb.credits, ...(serverCreditsSeen(smb) === undefined ? {} : { seen: serverCreditsSeen(smb) }) },
    commands: smb.commands.map((entry) => serverTimes(entry, connection.toServerRttMs)),
    tcp: { client: sideOut(connection.clientSide), server: sideOut(connection.serverSide) },
    copies: smb.copies.map((copy) => {
      const model = copyAgainstModel(connection, copy, bandwidthBitsPerSecond === undefined ? {} : { bandwidthBitsPerSecond });
      return {
        ...copy,
        ...(model
          ? {
              model: {
                expectedSeconds: model.expectedSeconds,
                clientIdleSeconds: model.clientIdleSeconds,
                verdict: model.verdict,
                limitedBy: model.limitedBy,
                lineGiven: model.lineGiven,
              },
            }
          : {}),
      };
    }),
    unmatchedResponses: smb.unmatchedResponses,
    unansweredRequests: smb.unansweredRequests,
  };
}

/** Below this round trip the hosts, not the path, set a copy's pace: where the probe measures them (src/probe/host-rates.ts FAST_PATH_RTT_MS). */
const SHORT_PATH_MS = 2;

/** What the capture could not show, connection by connection. */
function notesOn(read: CaptureRead, connections: readonly CapturedConnection[], lineGiven: boolean): string[] {
  const notes: string[] = [];
  if (read.connections.length === 0)
    notes.push(
      read.packets === 0
        ? 'The capture holds no packets.'
        : `No SMB connection in the capture's ${read.packets} packets (${read.otherConnections} other TCP connections): capture on the client or the server while the copy runs, with a filter such as "tcp port 445".`,
    );
  connections.forEach((connection, index) => {
    const which = connections.length > 1 ? `Connection ${index + 1}: ` : '';
    if (connection.handshakeRttMs === undefined)
      notes.push(
        `${which}the capture began after the connection opened, so its round trip (from the handshake) is unknown, and no copy is set against the model.`,
      );
    if (connection.credits.windowMax === undefined && connection.messages.sealed === 0)
      notes.push(
        `${which}the capture missed the session's start, so the credits the server granted are known only as those in use (at most ${connection.credits.inUseMax}).`,
      );
    const missed = connection.tcp.client.missedBytes + connection.tcp.server.missedBytes;
    if (missed > 0)
      notes.push(
        `${which}the capture missed ${formatBytes(missed)} of the connection's data (packets it never recorded: give tcpdump a larger buffer, -B 131072, or capture nearer the client); requests in them are not counted.`,
      );
    const unframed = connection.tcp.client.unframedBytes + connection.tcp.server.unframedBytes - missed;
    if (unframed > 0)
      notes.push(
        `${which}${formatBytes(unframed)} of SMB traffic could not be read as messages (a snap length cut their headers, or a gap took the framing until the next message); the requests in them are not counted.`,
      );
    if (connection.handshakeRttMs !== undefined && connection.handshakeRttMs < SHORT_PATH_MS && connection.copies.length > 0)
      notes.push(
        `${which}on a path this short (${connection.handshakeRttMs.toFixed(2)} ms: a LAN, or this machine) the two machines' own speed sets the pace, which a capture does not show: the model's times leave it out.`,
      );
    if (connection.messages.sealed > 0)
      notes.push(
        `${which}the session is encrypted: ${connection.messages.sealed} messages show only their size, so its copies are read from those sizes and their order (a server answers one file's requests in the order asked); their files, metadata round trips, credits and the server's time per command are hidden (Pipefill never asks for keys).`,
      );
    if (connection.unansweredRequests > 0)
      notes.push(`${which}${connection.unansweredRequests} requests had no answer in the capture: it ended, or lost them, first.`);
  });
  if (!lineGiven && connections.some((connection) => connection.copies.some((copy) => copy.model)))
    notes.push("The line's rate is not in a capture: the model takes it as no limit. Give it (--bandwidth 100Mbit) to set the copies against it too.");
  return notes;
}

export function captureAnalysisOf(read: CaptureRead, bandwidthBitsPerSecond?: number): CaptureAnalysis {
  const connections = read.connections.map((connection) => connectionOut(connection, bandwidthBitsPerSecond));
  return {
    file: { bytes: read.fileBytes, packets: read.packets, otherPackets: read.otherPackets, spanSeconds: read.spanSeconds },
    connections,
    otherConnections: read.otherConnections,
    notes: notesOn(read, connections, bandwidthBitsPerSecond !== undefined),
  };
}

/** The contract's `analyzeCapture`: the capture at `input.path`, read through once. */
export async function analyzeCapture(input: CaptureInput, signal?: AbortSignal): Promise<CaptureAnalysis> {
  const parsed = CaptureInputSchema.parse(input);
  const bandwidth = parsed.bandwidth === undefined ? undefined : parseRate(parsed.bandwidth);
  return captureAnalysisOf(await readCaptureFile(parsed.path, signal), bandwidth);
}
