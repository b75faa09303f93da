// The pipelined data mover: keeps `depth` copy-engine chunks in flight, each
// split into SMB requests of at most `requestBytes`, as the copy engine and
// redirector of the client being emulated would. Depth 1 with one request
// per chunk is a synchronous client (XP); the credit window underneath makes
// every request wait for a grant, so the pipeline never outruns the server.

import { setMaxListeners } from 'node:events';
import type { FilePipeline } from '../model/in-flight.js';
import { requestWithinGrant } from '../model/in-flight.js';
import { deliveryRate, selfSizedDepth } from '../model/self-sizing.js';
import { CreditStarvationError } from '../smb/credits.js';
import { cancelledError, SmbError } from '../smb/errors.js';
import type { FileRange } from '../smb/frame-writer.js';
import type { PatternSource } from './pattern.js';
import type { SmbSession } from '../smb/session.js';
import type { TimelineRecorder } from './timeline.js';

/** Where a write's bytes come from: a local file, read into pooled buffers or named as a range of it. */
export interface WriteSource {
  read(offset: number, length: number): Promise<Buffer[]>;
  /** Called once the write that carried the pieces has completed. */
  release(pieces: readonly Buffer[]): void;
  /** The bytes as a range of the open file, for a connection whose sender reads file ranges itself. */
  range?(offset: number, length: number): Promise<FileRange>;
}

export interface FileTransfer {
  readonly session: SmbSession;
  readonly fileId: Buffer;
  readonly op: 'read' | 'write';
  readonly fileBytes: number;
  readonly pipeline: FilePipeline;
  /** What the file holds (writes) or must hold (reads). */
  readonly pattern: PatternSource;
  /** For writes: the local file holding the pattern; without it the pattern is computed on the spot. */
  readonly source?: WriteSource;
  /** Check every byte read against the pattern. */
  readonly verify: boolean;
  readonly recorder: TimelineRecorder;
  readonly signal?: AbortSignal;
  readonly label: string;
  /**
   * Asked before each chunk, with the bytes of the chunks in flight: true
   * stops issuing more (what is in flight completes). A budgeted copy stops
   * once its rate has settled, or its slot ends before those bytes arrive.
   */
  readonly until?: (inFlightBytes: number) => boolean;
  /**
   * A pipeline that sizes itself as it runs (Pipefill's own when no probe
   * measured the path): it starts at `pipeline.depth` and deepens while the
   * delivery rate times the connection's quickest exchange says the path
   * holds more (src/model/self-sizing.ts).
   */
  readonly growth?: PipelineGrowth;
}

export interface PipelineGrowth {
  /** The in-flight budget, in chunks. */
  readonly maxDepth: number;
  readonly bdpMultiple: number;
}

/** What a self-sizing transfer chose, for tests and the bench. */
export interface TransferOutcome {
  readonly bytes: number;
  readonly depth: number;
}

/** Credits the transfer asks the server to keep granted: its requests in flight, and some headroom for metadata. */
export function creditsNeeded(session: SmbSession, pipeline: FilePipeline, depth = pipeline.depth): number {
  return depth * chunkCharge(session, pipeline) + 16;
}

function chunkCharge(session: SmbSession, pipeline: FilePipeline): number {
  return Math.ceil(pipeline.chunkBytes / pipeline.requestBytes) * session.creditCharge(pipeline.requestBytes);
}

/**
 * Writes leave in file order, as every Windows client sends them: each range
 * takes a turn when it starts (in offset order) and issues its WRITE only
 * after the range before it has issued its own. Without this, signed and
 * sealed writes left in the order their local reads finished on the thread
 * pool (2 to 39 out of order per run against Samba), and a write past the
 * end of what a server holds is one some servers drop and NTFS zero-fills.
 */
export class IssueOrder {
  private last: Promise<void> = Promise.resolve();

  /** The next turn: `ready` once every earlier turn is done; `done` when this one has issued (or failed). */
  take(): { ready: Promise<void>; done: () => void } {
    const ready = this.last;
    let done!: () => void;
    this.last = new Promise<void>((resolve) => (done = resolve));
    return { ready, done };
  }
}

async function moveRange(transfer: FileTransfer, offset: number, length: number, signal: AbortSignal, order: IssueOrder): Promise<void> {
  const { session, fileId, pattern } = transfer;
  const options = { signal };
  if (transfer.op === 'write') {
    const { source } = transfer;
    let written: number;
    if (!source) {
      // The pattern is made on the spot: each WRITE is issued as its range starts, already in file order.
      // Fresh pieces, nobody else's: sealing may encrypt them in place.
      written = await session.write(fileId, offset, session.connection.sendsRanges ? pattern.range(offset, length) : pattern.pieces(offset, length), {
        ...options,
        spend: true,
      });
    } else if (session.connection.sendsRanges && source.range) {
      // The sender thread reads (a local file) or makes (the pattern) these bytes itself, a cache-sized slice at a time, as it sends them.
      const turn = order.take();
      let writing;
      try {
        const range = await source.range(offset, length);
        await turn.ready;
        writing = session.write(fileId, offset, range, options);
      } finally {
        turn.done();
      }
      written = await writing;
    } else {
      const turn = order.take();
      let pieces;
      let writing;
      try {
        pieces = await source.read(offset, length);
        await turn.ready;
        // The request is framed and queued for credits in call order: starting it is issuing it.
        // Pooled pieces, refilled from the file before they are sent again: sealing may encrypt them in place.
        writing = session.write(fileId, offset, pieces, { ...options, spend: true });
      } finally {
        turn.done();
      }
      written = await writing;
      // Only a completed write gives its buffers back: a cancelled one may still be on the socket.
      source.release(pieces);
    }
    if (written !== length)
      throw new SmbError(
        'protocol',
        `The server wrote ${written} of ${length} bytes at ${offset} of ${transfer.label}.`,
        'The share may be full or the server under quota.',
      );
    transfer.recorder.record(length);
  } else {
    await readRange(transfer, offset, length, signal);
  }
}

/**
 * The request size that fits what the server grants now, where a request
 * starved (it cost more credits than the server left, with nothing in flight
 * to bring more), and a smaller one can go; undefined otherwise. A server may
 * grant a burst and then settle lower: against smbd with `smb2 max credits =
 * 16` a read went out cut to 20 credits (half of what the ECHOs had brought,
 * fitToCredits), and the server then left 16 (npm test, a fresh clone beside
 * a busy core, 2026-11-28).
 */
function starvedFit(error: unknown, session: SmbSession, length: number): number | undefined {
  if (!(error instanceof SmbError && error.cause instanceof CreditStarvationError)) return undefined;
  // The grant the server left: what is free and what is out. Every request of a pipeline starves at once, and
  // another one's retry may already hold the free credits (a fresh clone's capacity run beside a busy core, 2026-11-29).
  const { credits } = session.connection;
  const held = credits.credits + credits.creditsInFlight;
  if (!(held >= 1)) return undefined;
  const fits = requestWithinGrant(length, held);
  return fits < length && session.creditCharge(fits) <= held ? fits : undefined;
}

/** One READ of a range, checked; where it starved of credits, the range again in requests the grant allows, one after another. */
async function readRange(transfer: FileTransfer, offset: number, length: number, signal: AbortSignal): Promise<void> {
  const { session, fileId, pattern } = transfer;
  let data: Buffer;
  try {
    data = await session.read(fileId, offset, length, { signal });
  } catch (error) {
    const fits = starvedFit(error, session, length);
    if (fits === undefined) throw error;
    // Bounded: each piece is smaller than the range, and fits the grant the server left.
    for (let at = offset; at < offset + length; at += fits) await readRange(transfer, at, Math.min(fits, offset + length - at), signal);
    return;
  }
  if (data.length !== length)
    throw new SmbError(
      'protocol',
      `The server returned ${data.length} of ${length} bytes at ${offset} of ${transfer.label}.`,
      'The file changed during the test; run it again.',
    );
  if (transfer.verify && !pattern.matches(offset, data)) {
    throw new SmbError(
      'data-mismatch',
      `The bytes read back at offset ${offset} of ${transfer.label} differ from those written.`,
      'Something between Pipefill and the disk changed the data: check the server, its storage and any WAN optimiser.',
    );
  }
  // Nothing refers to the reply any more: its memory can take the next one.
  session.connection.recycle(data);
  transfer.recorder.record(length);
}

/**
 * Makes sure one request can go. Every header then asks for the credits the
 * whole pipeline needs, so the grant grows with the first replies, as TCP's
 * window does; only when a single request costs more than is held does it
 * first ask with ECHOs (a round trip each). A server that grants fewer than
 * one request costs (a small `smb2 max credits`) gets requests it can take:
 * what a redirector does when credits are short.
 */
async function fitToCredits(transfer: FileTransfer): Promise<FileTransfer> {
  const { session, pipeline } = transfer;
  const { connection } = session;
  // A growing pipeline asks for its whole budget's credits at once, so the grant is there when it deepens.
  connection.creditTarget = Math.max(connection.creditTarget, creditsNeeded(session, pipeline, Math.max(pipeline.depth, transfer.growth?.maxDepth ?? 0)));
  const charge = session.creditCharge(pipeline.requestBytes);
  if (charge <= connection.credits.credits + connection.credits.creditsInFlight) return transfer;
  const held = await session.reserveCredits(charge, transfer.signal ? { signal: transfer.signal } : {});
  if (charge <= held) return transfer;
  return { ...transfer, pipeline: { ...pipeline, requestBytes: requestWithinGrant(pipeline.requestBytes, held) } };
}

/** One copy-engine chunk: all its requests at once, done when the last is. */
async function moveChunk(transfer: FileTransfer, start: number, signal: AbortSignal, order: IssueOrder): Promise<void> {
  const end = Math.min(transfer.fileBytes, start + transfer.pipeline.chunkBytes);
  const requests: Promise<void>[] = [];
  for (let offset = start; offset < end; offset += transfer.pipeline.requestBytes) {
    requests.push(moveRange(transfer, offset, Math.min(transfer.pipeline.requestBytes, end - offset), signal, order));
  }
  const outcomes = await Promise.allSettled(requests);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Moves a file, all of it unless `until` stops it: returns the bytes moved,
 * always a prefix of the file (chunks are taken in order and every one
 * started is finished). On the first failure or on cancel it stops issuing,
 * lets what is in flight settle, and throws that first error.
 */
export async function transferFile(request: FileTransfer): Promise<number> {
  return (await transferFileWithDepth(request)).bytes;
}

/** transferFile, also saying how deep the pipeline ran in the end. */
export async function transferFileWithDepth(request: FileTransfer): Promise<TransferOutcome> {
  if (request.fileBytes === 0) return { bytes: 0, depth: 0 };
  const transfer = await fitToCredits(request);
  const { pipeline, fileBytes, session } = transfer;
  // Every loop below advances by these: a zero (a server's sizes, a bad profile) would never end.
  if (!(Number.isInteger(pipeline.requestBytes) && pipeline.requestBytes >= 1 && Number.isInteger(pipeline.chunkBytes) && pipeline.chunkBytes >= 1)) {
    throw new SmbError(
      'protocol',
      `Cannot copy in requests of ${pipeline.requestBytes} bytes (chunks of ${pipeline.chunkBytes}).`,
      "The server's NEGOTIATE sizes or the client profile are wrong.",
    );
  }
  const stop = new AbortController();
  // One listener per request in flight: a deep pipeline has more than Node's default ten.
  setMaxListeners(0, stop.signal);
  const onAbort = () => stop.abort();
  transfer.signal?.addEventListener('abort', onAbort, { once: true });
  if (transfer.signal?.aborted) stop.abort();

  const chunks = Math.ceil(fileBytes / pipeline.chunkBytes);
  // Chunks start in order and their ranges in offset order: turns are taken in file order.
  const order = new IssueOrder();
  let next = 0;
  let firstError: unknown;
  let depth = Math.min(pipeline.depth, chunks);
  // Self-sizing state: bytes delivered, the best rate sample, and the first
  // chunk of the current round (growth waits for a chunk started after the last one).
  let delivered = 0;
  let bestBytesPerSecond = 0;
  let roundStartsAt = 0;
  const deepen = (index: number, sample: number) => {
    const { growth } = transfer;
    if (!growth) return;
    bestBytesPerSecond = Math.max(bestBytesPerSecond, sample);
    const rttMs = session.connection.fastestExchangeMs;
    if (index < roundStartsAt || rttMs === undefined) return;
    // Never deeper than the credits the server has granted so far: more would only queue buffers.
    const held = session.connection.credits.credits + session.connection.credits.creditsInFlight;
    const creditDepth = Math.max(depth, Math.floor(held / chunkCharge(session, pipeline)));
    const wanted = selfSizedDepth({
      depth,
      minDepth: pipeline.depth,
      maxDepth: Math.min(growth.maxDepth, creditDepth),
      bdpMultiple: growth.bdpMultiple,
      chunkBytes: pipeline.chunkBytes,
      bestBytesPerSecond,
      minRttSeconds: rttMs / 1000,
    });
    if (wanted <= depth) return;
    depth = Math.min(wanted, chunks);
    roundStartsAt = next;
  };
  const workers: Promise<void>[] = [];
  // Chunks started and not yet through: what a stop still waits for.
  let inFlight = 0;
  const worker = async () => {
    while (next < chunks && !stop.signal.aborted && !transfer.until?.(inFlight * pipeline.chunkBytes)) {
      const index = next++;
      const startedAt = performance.now();
      const deliveredAtStart = delivered;
      inFlight += 1;
      try {
        await moveChunk(transfer, index * pipeline.chunkBytes, stop.signal, order);
      } catch (error) {
        firstError ??= error;
        stop.abort();
        return;
      } finally {
        inFlight -= 1;
      }
      delivered += Math.min(pipeline.chunkBytes, fileBytes - index * pipeline.chunkBytes);
      deepen(index, deliveryRate(deliveredAtStart, startedAt, delivered, performance.now()));
      spawn();
    }
  };
  const spawn = () => {
    while (workers.length < depth && next < chunks && !stop.signal.aborted) workers.push(worker());
  };
  spawn();
  try {
    // Workers may be added while earlier ones run; none rejects (each keeps its error in firstError).
    for (let index = 0; index < workers.length; index += 1) await workers[index];
  } finally {
    transfer.signal?.removeEventListener('abort', onAbort);
  }
  if (transfer.signal?.aborted) throw cancelledError();
  if (firstError !== undefined) throw firstError;
  return { bytes: Math.min(fileBytes, next * pipeline.chunkBytes), depth };
}
