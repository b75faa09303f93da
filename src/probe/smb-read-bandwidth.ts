// The path's bandwidth without an iperf3 server (a helpdesk's usual case):
// Pipefill's deepest SMB read pipeline reads a scratch file again and again,
// over one connection on a fast path and several over a network, and the
// rate the replies arrive at is the figure (src/probe/read-rate.ts).

import { MIB } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { pipelineFor } from '../copy/drivers.js';
import { Access, CreateOption, Disposition } from '../smb/messages.js';
import { PatternSource } from '../copy/pattern.js';
import { ScratchFolder } from '../copy/scratch.js';
import { removeAtEnd, withFolderLeft } from '../copy/scratch-end.js';
import type { SmbCredentials, SmbTarget } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { TimelineRecorder } from '../copy/timeline.js';
import { transferFile } from '../copy/transfer.js';
import type { BandwidthResult } from './bandwidth.js';
import { probePathMtu, stopAtBlackHole } from './path-mtu.js';
import type { ReadSpan } from './read-rate.js';
import { ArrivalLog, SpanRecorder, steadyReadRate } from './read-rate.js';

export interface SmbReadOptions {
  readonly seconds?: number;
  /** TCP connections (each its own session) the reads go on; 1 where one already fills the path (a LAN, loopback). */
  readonly connections?: number;
  /** The path's round trip, for the windows a still-rising rate is judged over. */
  readonly rttMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Connections the reads go on over a network path. One connection's reads
 * are held by what holds one copy (its TCP ramp, its credits), which is the
 * model's to find, not the line's: a CUBIC sender that left slow start early
 * read 622 Mb/s at 150 ms as 493-565 Mb/s on one connection and 600 on two,
 * against a 595 Mb/s payload limit; four overfilled 155 Mb/s at 150 ms
 * (128-149 Mb/s, two 149) (lab, 4 s each, 2026-11-26).
 */
export const SMB_READ_CONNECTIONS = 2;

/** The file read again and again; big enough that a read is mostly data, small enough to write quickly. */
const PROBE_FILE_BYTES = 16 * MIB;

/** A second reader joins a connection only with at least this long left to read the stream over (smbReadBandwidth). */
const SECOND_READER_LEAST_MS = 500;

/**
 * Reads over a network path go on while the rate of the last window (8
 * round trips, half a second at least) is 3% or more above the window's
 * before, up to three times the time given: a fresh path's CUBIC sender that
 * left slow start early was still climbing after four seconds at 622 Mb/s
 * and 150 ms (two connections: 489-534 Mb/s in the lab's fidelity runs, each
 * on a new link, against 600 where an earlier connection had left the
 * kernel's cached metrics).
 */
const STILL_RISING = 1.03;
const PLATEAU_WINDOW_RTTS = 8;
const PLATEAU_WINDOW_LEAST_MS = 500;
const EXTENDED_AT_MOST = 3;

/** The largest reply the reads over several connections ask for (smbReadBandwidth). */
const STREAM_REPLY_BYTES = 256 * 1024;

/** One connection of the probe: its session and the probe file open on it. */
interface ReadConnection {
  readonly session: SmbSession;
  readonly fileId: Buffer;
}

/**
 * Reads one scratch file over and over with Pipefill's deepest pipeline for
 * about `seconds`, on `connections` connections at once, and reports the
 * payload rate those reads reached together (steadyReadRate for one read on
 * one connection; otherwise the stream of replies once every connection has
 * finished its first read, up to the time given). The file is written first
 * and the connections opened meanwhile (untimed); the file is removed after,
 * with the scratch folder.
 */
export async function smbReadBandwidth(target: SmbTarget, credentials: SmbCredentials, options: SmbReadOptions = {}): Promise<BandwidthResult> {
  const signal = options.signal;
  const request = signal ? { signal } : {};
  const connectionCount = Math.max(1, Math.min(SMB_READ_CONNECTIONS, Math.floor(options.connections ?? 1)));
  const session = await SmbSession.open(target, credentials, request);
  // The other connections log on while the file is written: a few round trips, beside it.
  const extraSessions = Array.from({ length: connectionCount - 1 }, () => SmbSession.open(target, credentials, request));
  for (const opening of extraSessions) opening.catch(() => undefined);
  // The path MTU's probes go on a session of their own, which they may spend (path-mtu.ts); it logs on meanwhile too.
  const mtuSession = SmbSession.open(target, credentials, request);
  mtuSession.catch(() => undefined);
  const opened: ReadConnection[] = [];
  let scratch: ScratchFolder | undefined;
  // Once, from whichever of catch and finally comes first: the open files, the folder (on a fresh session if this one died), the sessions.
  let closed: Promise<string | undefined> | undefined;
  const closeDown = () =>
    (closed ??= (async () => {
      for (const on of opened.slice(1)) await on.session.close(on.fileId).catch(() => undefined);
      if (opened[0]) await session.close(opened[0].fileId).catch(() => undefined);
      const left = scratch
        ? (await removeAtEnd(scratch, session, () => SmbSession.open(target, credentials, { timeoutMs: 3_000 }), { timeoutMs: 5_000 })).left
        : undefined;
      for (const opening of [...extraSessions, mtuSession]) await opening.then((extra) => extra.end()).catch(() => undefined);
      await session.end();
      return left;
    })());
  try {
    const created = await ScratchFolder.createChecked(session);
    await created.sweepOthersAside(() => SmbSession.open(target, credentials, request));
    scratch = created;
    // Before the first full-size packet: a path that swallows them is named, not timed out (path-mtu.ts).
    const mtu = await probePathMtu(await mtuSession, scratch, () => SmbSession.open(target, credentials, { ...request, timeoutMs: 5_000 }), {
      rttMs: options.rttMs ?? 0,
      ...request,
    });
    stopAtBlackHole(mtu);
    const probeFile = await writeProbeFile(session, scratch, request);
    for (const on of [session, ...(await Promise.all(extraSessions))]) {
      const handle = await on.create(
        { path: probeFile.path, access: Access.readData, disposition: Disposition.open, options: CreateOption.nonDirectory },
        request,
      );
      opened.push({ session: on, fileId: handle.fileId });
    }
    const seconds = options.seconds ?? 5;
    const reads = await readTogether(opened, probeFile, seconds, options);
    const steady = rateOfReads(reads, opened.length, seconds);
    return {
      mbps: (steady ?? (reads.stream.bytes * 8) / reads.elapsed) / 1e6,
      method: 'smb-read',
      direction: 'download',
      seconds: reads.elapsed,
      ...(connectionCount > 1 ? { streams: connectionCount } : {}),
      ...(steady === undefined ? {} : { estimate: 'steady' as const }),
    };
  } catch (error) {
    // Cleaned up here, so the error can say where the probe's folder stayed, if it did.
    throw withFolderLeft(error, [await closeDown()]);
  } finally {
    await closeDown();
  }
}

/** The probe file, written with Pipefill's own pipeline (untimed): its path and the pattern its bytes follow. */
async function writeProbeFile(session: SmbSession, scratch: ScratchFolder, request: { signal?: AbortSignal }): Promise<ProbeFile> {
  const path = scratch.path('bandwidth-probe.bin');
  const pattern = new PatternSource(scratch.name, 'bandwidth-probe.bin');
  const writeHandle = await session.create({
    path,
    access: Access.readData | Access.writeData,
    disposition: Disposition.create,
    options: CreateOption.nonDirectory,
  });
  await transferFile({
    session,
    fileBytes: PROBE_FILE_BYTES,
    pattern,
    verify: false,
    label: path,
    ...request,
    fileId: writeHandle.fileId,
    op: 'write',
    pipeline: pipelineFor(CLIENT_PROFILES['pipefill-max'], session.negotiated, 'write', PROBE_FILE_BYTES),
    recorder: new TimelineRecorder(),
  });
  await session.close(writeHandle.fileId);
  return { path, pattern };
}

interface ProbeFile {
  readonly path: string;
  readonly pattern: PatternSource;
}

/** What the reads left to read a rate from: their spans, the stream of replies, and the times that bound the rate. */
interface ReadLog {
  readonly spans: readonly ReadSpan[];
  readonly stream: ArrivalLog;
  readonly started: number;
  readonly endMs: number;
  readonly windowMs: number;
  readonly extended: boolean;
  /** When every connection had a reply: the rate is read from here. */
  readonly streamFrom: number | undefined;
  readonly elapsed: number;
}

/**
 * Reads the probe file over every connection at once, whole reads until the
 * time is up: at most seconds x (1 GB/s / the read) of them per reader. Over
 * a network path, reads go on past the time given while the stream's rate
 * still rises (TCP's ramp not over), a window at a time, up to three times
 * the time given.
 */
async function readTogether(opened: readonly ReadConnection[], file: ProbeFile, seconds: number, options: SmbReadOptions): Promise<ReadLog> {
  const request = options.signal ? { signal: options.signal } : {};
  const connectionCount = opened.length;
  // Each connection reads its share of the file, so that N connections move what one did per round (a slow link's
  // first reads take no longer than one whole-file read did).
  const readBytes = Math.ceil(PROBE_FILE_BYTES / connectionCount);
  const started = performance.now();
  let endMs = started + seconds * 1000;
  const spans: ReadSpan[] = [];
  const stream = new ArrivalLog();
  const capMs = started + EXTENDED_AT_MOST * seconds * 1000;
  const windowMs = Math.max(PLATEAU_WINDOW_LEAST_MS, PLATEAU_WINDOW_RTTS * (options.rttMs ?? 0));
  let extended = false;
  let plateau = false;
  const keepReading = (): boolean => {
    const now = performance.now();
    if (now < endMs) return true;
    if (connectionCount === 1 || plateau || now >= capMs) return false;
    const last = stream.slopeBetween(now - windowMs, now);
    const before = stream.slopeBetween(now - 2 * windowMs, now - windowMs);
    if (last === undefined || before === undefined || !(last > before * STILL_RISING)) {
      plateau = true;
      return false;
    }
    endMs = Math.min(capMs, now + windowMs);
    extended = true;
    return true;
  };
  const reader = async (on: ReadConnection, onFirstRead: () => void = () => undefined) => {
    // The whole read asked for at once: the path is what is measured, so no pipeline of a guessed depth may hold the
    // reads back (four 4 MiB requests read a 622 Mb/s, 150 ms link, 11.7 MB in flight, as 400-490 Mb/s).
    // The server's credits still bound what is outstanding on each connection.
    const best = pipelineFor(CLIENT_PROFILES['pipefill-max'], on.session.negotiated, 'read', readBytes);
    // Over several connections the rate is read off the replies as they come, and a 4 MiB reply is one point every
    // 3.4 s at 10 Mb/s: the replies are made small enough to give the line many (their headers are 0.1% of them).
    const sized =
      connectionCount > 1
        ? { ...best, chunkBytes: Math.min(best.chunkBytes, STREAM_REPLY_BYTES), requestBytes: Math.min(best.requestBytes, STREAM_REPLY_BYTES) }
        : best;
    const whole = { ...sized, depth: Math.max(sized.depth, Math.ceil(readBytes / sized.chunkBytes)) };
    do {
      const recorder = new SpanRecorder(stream);
      await transferFile({
        session: on.session,
        fileId: on.fileId,
        op: 'read',
        fileBytes: readBytes,
        pipeline: whole,
        pattern: file.pattern,
        verify: false,
        label: file.path,
        recorder,
        ...request,
      });
      const span = recorder.span();
      if (span) spans.push(span);
      onFirstRead();
    } while (keepReading());
  };
  // Between two reads a connection idles a round trip (the last reply, then the next read's requests): where a read
  // is short beside that, a second reader on the connection keeps it busy (its window open), and the rate is read
  // over the stream of replies from the moment every connection has one.
  let joined = 0;
  let streamFrom: number | undefined;
  const readers = opened.map((on) => {
    let second: Promise<void> | undefined;
    const first = reader(on, () => {
      if (second || performance.now() > endMs - SECOND_READER_LEAST_MS) return;
      second = reader(on);
      second.catch(() => undefined);
      joined += 1;
      if (joined === opened.length) streamFrom = performance.now();
    });
    return first.then(() => second);
  });
  const settled = await Promise.allSettled(readers);
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return { spans, stream, started, endMs, windowMs, extended, streamFrom, elapsed: (performance.now() - started) / 1000 };
}

/**
 * The payload rate the reads reached. Over a network path the rate is the
 * second half's, as iperf3's steady estimate: a connection's first read ends
 * inside TCP's ramp (622 Mb/s, 150 ms: four connections read 566-569 Mb/s
 * from their first reads' ends, 579-589 over six seconds, against a 595 Mb/s
 * payload limit). Extended, the rate is the last two windows', where it
 * stopped rising. Undefined where no steady rate can be read.
 */
function rateOfReads(log: ReadLog, connectionCount: number, seconds: number): number | undefined {
  const { streamFrom, stream, endMs } = log;
  const from =
    streamFrom === undefined
      ? undefined
      : connectionCount === 1
        ? streamFrom
        : Math.max(streamFrom, log.extended ? endMs - 2 * log.windowMs : log.started + (seconds * 1000) / 2);
  if (from !== undefined) return connectionCount > 1 ? stream.slopeBetween(from, endMs) : stream.rateBetween(from, endMs);
  return connectionCount === 1
    ? steadyReadRate(log.spans)
    : // Every connection still in its first read when the time was up (a slow link): the stream of all of them.
      stream.slopeBetween(log.started, Infinity);
}
