// What the two machines themselves take, measured: on a fast path (a LAN, a
// loopback share) the hosts' own work per request and per byte (the client's
// send and receive path, the server's storage and page cache) and the
// server's file-system work per metadata exchange, not the network, set the
// pace; a model without them calls every copy there "outside the model".
//
// A short calibration in a scratch folder of its own, with the engine every
// generation's copy runs on and the work each copy does (writes send from a
// local file and reads check every byte against the pattern, as the copies'
// do): per direction, a transfer of small requests and
// one of large requests, each with a pipeline deep enough that the hosts,
// not the window, pace it, solved for a cost per request and per byte
// (src/model/host-costs.ts costsFromSamples); and a few files created and
// closed one at a time, whose exchanges beyond the round trip are the
// server's metadata work. Where a generation negotiates signing or
// encryption, its costs are measured again on a session with that
// protection. Each transfer is cut off after a fraction of a second, so a
// slow LAN costs no more time than a fast one; the folder is removed after,
// as the probe's is.

import type { ClientProfileId } from '../model/client-profiles.js';
import { CLIENT_PROFILES, KIB, SECTOR_BYTES } from '../model/client-profiles.js';
import type { Protection } from '../model/crypto-cost.js';
import type { CalibrationSample, HostCosts, MetadataExchangeTimes, PipelineFill, RequestCosts } from '../model/host-costs.js';
import { costsFromSamples, fillFromRuns, metadataSecondsFrom, runSpread } from '../model/host-costs.js';
import {
  CALIBRATION_LARGE_FILE_BYTES,
  CALIBRATION_RUNS,
  CALIBRATION_SMALL_FILE_BYTES,
  TURNAROUND_REQUEST_BYTES,
  TURNAROUND_REQUESTS,
  TURNAROUND_RUNS,
} from '../model/calibration-bytes.js';
import type { FilePipeline } from '../model/in-flight.js';
import { payloadEfficiency } from '../model/link.js';
import { median } from '../model/stats.js';
import { parseWorkload } from '../model/workloads.js';
import { LocalSource } from '../copy/local-source.js';
import { Access, CreateOption, Disposition } from '../smb/messages.js';
import { PatternSource } from '../copy/pattern.js';
import { pipelineFor } from '../copy/drivers.js';
import { ScratchFolder } from '../copy/scratch.js';
import { warmServerProcess } from '../copy/server-warm-up.js';
import type { SmbCredentials, SmbTarget } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { transferFileWithDepth } from '../copy/transfer.js';
import { SpanRecorder } from './read-rate.js';
import { otherProgramsLoad } from '../platform/cpu-load.js';

/**
 * The two pipelines the costs are solved from: the smallest request a
 * generation sends (32 KiB, Windows 7 over SMB1; SMB 2.0's and a small
 * file's are 64 KiB), and the pipeline of the generation the session is for
 * (Pipefill's own unprotected, the person's client with its signing), so the
 * costs hold at the request sizes and depth of the copies that use them, and
 * other generations' are read between. On a LAN the small one is often the
 * only one the hosts, not the line, pace (lab, 1 Gb/s / 0.5 ms: Windows 7's
 * SMB1 copies moved 740-780 Mb/s where every 64 KiB or larger copy filled
 * the line).
 */
const SMALL: FilePipeline = { depth: 16, chunkBytes: 32 * KIB, requestBytes: 32 * KIB };
/** The turnaround's requests: one 64 KiB request at a time, as XP and a small file's copy go. */
const LONE: FilePipeline = { depth: 1, chunkBytes: TURNAROUND_REQUEST_BYTES, requestBytes: TURNAROUND_REQUEST_BYTES };
const SMALL_FILE_BYTES = CALIBRATION_SMALL_FILE_BYTES;
const LARGE_FILE_BYTES = CALIBRATION_LARGE_FILE_BYTES;
/** Each transfer stops issuing requests after this long: a slow LAN gets a shorter sample, not a longer calibration. */
const TRANSFER_CUTOFF_MS = 250;
/** Files created and closed one at a time for the metadata cost, after the warm-up's; fewer where the round trips make them slow. */
const METADATA_FILES = 16;
const METADATA_WARMUP_FILES = 2;
const METADATA_MIN_FILES = 6;
const METADATA_BUDGET_MS = 500;
/** How long the calibration first waits to see what other programs use of this machine. */
const QUIET_MS = 250;
/** A sample moving at least this share of the line's payload rate is paced by the network: it says nothing of the hosts. */
const NETWORK_BOUND_SHARE = 0.9;

export interface HostCalibrationOptions {
  /** The path's round trip (the probe's), subtracted from each metadata exchange. */
  readonly rttMs: number;
  /** The path's line rate; absent on a share on this machine, where there is no network between. */
  readonly lineBitsPerSecond?: number;
  /** The person's client: where its session negotiates signing or encryption, the costs are measured again on one, with its pipeline. */
  readonly client?: ClientProfileId;
  readonly signal?: AbortSignal;
}

/** The calibration's result, for the report: the fitted costs and what they were fitted from. */
export interface HostCalibration {
  readonly costs: HostCosts;
  readonly samples: readonly (CalibrationSample & { readonly op: 'read' | 'write'; readonly protection: Protection['kind'] })[];
}

/** The run with the median time per byte (the lower middle of an even count), or undefined for none. */
function medianSample(runs: readonly CalibrationSample[]): CalibrationSample | undefined {
  const sorted = [...runs].sort((a, b) => a.seconds / a.bytes - b.seconds / b.bytes);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

const protectionOfSession = (session: SmbSession): Protection =>
  session.negotiated.encryption
    ? { kind: 'encryption', algorithm: session.negotiated.encryption }
    : session.negotiated.signing
      ? { kind: 'signing', algorithm: session.negotiated.signing }
      : { kind: 'none' };

/**
 * One calibration's work in its scratch folder: the transfers, their samples
 * and spread, and the files they make (named in turn, so nothing is written
 * twice and every read finds what was written before it).
 */
class CalibrationRun {
  private files = 0;
  private readonly written = new Map<string, number>();
  private turnaroundFile: string | undefined;
  /** The largest spread of any transfer's repeated runs: the calibration's own noise (HostCosts.noise). */
  noise = 0;
  readonly samples: HostCalibration['samples'][number][] = [];
  private readonly request: { signal?: AbortSignal };

  constructor(
    private readonly folder: ScratchFolder,
    private readonly source: LocalSource,
    private readonly sourceFile: string,
    private readonly options: HostCalibrationOptions,
  ) {
    this.request = options.signal ? { signal: options.signal } : {};
  }

  private nextName(): string {
    this.files += 1;
    return `calibration-${this.files}.bin`;
  }

  /**
   * One transfer of `shape` to or from file `name` in the folder, as a sample.
   * `steady`: the sample runs from the first reply to the last, the rate the
   * hosts keep once the pipeline is full (a deep pipeline's fill is a round
   * trip the model counts apart, and 4 MiB x 4 over 64 MiB is a quarter of the
   * transfer: timed whole, Pipefill's loopback reads were expected 1.4-1.6x
   * slow, 2026-11-25). Otherwise the whole transfer.
   */
  async transfer(
    on: SmbSession,
    op: 'read' | 'write',
    name: string,
    shape: { readonly pipeline: FilePipeline; readonly fileBytes: number },
    steady = true,
  ): Promise<CalibrationSample | undefined> {
    const handle = await on.create(
      {
        path: this.folder.path(name),
        access: op === 'write' ? Access.readData | Access.writeData : Access.readData,
        disposition: op === 'write' ? Disposition.create : Disposition.open,
        options: CreateOption.nonDirectory,
      },
      this.request,
    );
    try {
      const { pipeline } = shape;
      const startedAt = performance.now();
      const recorder = new SpanRecorder();
      // Reads go as far as the file written before them, which the cut-off may have ended early.
      const fileBytes = op === 'read' ? Math.min(shape.fileBytes, this.written.get(name) ?? 0) : shape.fileBytes;
      if (fileBytes === 0) return undefined;
      const outcome = await transferFileWithDepth({
        session: on,
        fileId: handle.fileId,
        op,
        fileBytes,
        pipeline,
        pattern: new PatternSource(this.folder.name, this.sourceFile),
        ...(op === 'write' ? { source: this.source.writeSource(this.sourceFile) } : {}),
        verify: op === 'read',
        recorder,
        label: name,
        until: () => performance.now() - startedAt > TRANSFER_CUTOFF_MS,
        ...this.request,
      });
      const wholeSeconds = (performance.now() - startedAt) / 1000;
      const wholeBytes = recorder.bytes > 0 ? recorder.bytes : outcome.bytes;
      if (op === 'write') this.written.set(name, wholeBytes);
      const span = recorder.span();
      const timedSteady = steady && span !== undefined && span.lastMs > span.firstMs && span.bytes > span.firstBytes;
      const [bytes, seconds] = timedSteady ? [span.bytes - span.firstBytes, (span.lastMs - span.firstMs) / 1000] : [wholeBytes, wholeSeconds];
      // What the first reply took beyond its bytes at the steady rate: the pipeline's fill (PipelineFill).
      const fillSeconds = timedSteady ? Math.max(0, (span.firstMs - startedAt) / 1000 - span.firstBytes * (seconds / bytes)) : undefined;
      return bytes > 0 && seconds > 0
        ? {
            requestBytes: pipeline.requestBytes,
            requests: Math.max(1, Math.round(bytes / pipeline.requestBytes)),
            bytes,
            seconds,
            ...(fillSeconds === undefined ? {} : { fillSeconds }),
          }
        : undefined;
    } finally {
      await on.close(handle.fileId, this.request).catch(() => undefined);
    }
  }

  /**
   * On a network path a sample the line paced says nothing of the hosts. One
   * it did not is the hosts' own pace: in a deep pipeline their work runs
   * beside the line's, so the whole of its time is theirs (the model caps the
   * rate with it and adds only the turnaround to a request:
   * HostCosts.acrossNetwork). Taking the line's time off instead left Windows
   * 7's SMB1 copies on a LAN (740-780 Mb/s where the line carried 940)
   * expected at the line's pace.
   */
  private hostsPaced(sample: CalibrationSample): CalibrationSample | undefined {
    if (this.options.lineBitsPerSecond === undefined) return sample;
    const payload = (this.options.lineBitsPerSecond / 8) * payloadEfficiency(false);
    return sample.bytes / sample.seconds >= NETWORK_BOUND_SHARE * payload ? undefined : sample;
  }

  /** The costs per request and per byte on session `on`, each way, with `profile`'s pipeline for the large requests. */
  async costsOn(on: SmbSession, profile: ClientProfileId): Promise<{ read: RequestCosts; write: RequestCosts }> {
    const protection = protectionOfSession(on).kind;
    const shapesFor = (op: 'read' | 'write') => [
      // A server's maximum is its word: at least a sector, so a server that says 0 gets no transfer of empty requests.
      {
        pipeline: {
          ...SMALL,
          requestBytes: Math.max(SECTOR_BYTES, Math.min(SMALL.requestBytes, op === 'read' ? on.negotiated.maxReadSize : on.negotiated.maxWriteSize)),
        },
        fileBytes: SMALL_FILE_BYTES,
      },
      { pipeline: pipelineFor(CLIENT_PROFILES[profile], on.negotiated, op, LARGE_FILE_BYTES), fileBytes: LARGE_FILE_BYTES },
    ];
    // Each shape's files: as many written as its runs' time allows (CALIBRATION_RUNS), then each read back once.
    const written: string[][] = [[], []];
    const fit = async (op: 'read' | 'write'): Promise<RequestCosts> => {
      const kept: (CalibrationSample | undefined)[] = [];
      let fill: PipelineFill | undefined;
      for (const [index, shape] of shapesFor(op).entries()) {
        // The median run: the copies the costs predict are single runs, typical ones. The fastest of several was
        // the tail (a 24H2 signed read, six runs of 64 MiB: 157-262 ms; copies expected from the fastest read
        // 1.3-1.5x slow on loopback, 2026-11-25), and one stalled run does not move a median of three or six.
        const runs: CalibrationSample[] = [];
        const files = written[index] ?? [];
        // Each file read once, as a copy reads its source: the first read of a file just written costs the server more
        // than a second (a signed 24H2 read of 64 MiB on loopback: 0.40-0.44 ns a byte first, 0.36-0.37 again, and the
        // median of both fell on the second; copies read 0.44-0.55, 2026-11-28).
        const started = performance.now();
        const more = (run: number) =>
          op === 'read'
            ? run < files.length
            : run < CALIBRATION_RUNS.most && (run < CALIBRATION_RUNS.least || performance.now() - started < CALIBRATION_RUNS.withinMs);
        for (let run = 0; more(run); run += 1) {
          const name = op === 'read' ? (files[run] ?? '') : this.nextName();
          if (op === 'write') files.push(name);
          const sample = await this.transfer(on, op, name, shape);
          if (sample) runs.push(sample);
        }
        this.noise = Math.max(this.noise, runSpread(runs));
        const typical = medianSample(runs);
        if (typical) this.samples.push({ ...typical, op, protection });
        kept.push(typical ? this.hostsPaced(typical) : undefined);
        // The generation's own pipeline's fill, on a share on this machine: each file of its copies pays it once.
        if (index === 1 && this.options.lineBitsPerSecond === undefined) fill = fillFromRuns(runs);
      }
      const [small, large] = kept;
      const costs = costsFromSamples(small, large);
      return fill ? { ...costs, fill } : costs;
    };
    const write = await fit('write');
    const read = await fit('read');
    return { read, write };
  }

  /**
   * The server's file-system work per metadata exchange: new files created
   * and closed one at a time (metadataSecondsFrom). Pooled, the exchanges'
   * median read 66-231 us from run to run on loopback against a CMAC-only
   * Samba, and the 1 GB folder's promise came 15% slow. The first files, a
   * connection's first opens in a new folder, only warm the server.
   */
  async metadataSeconds(session: SmbSession): Promise<number> {
    const perFile: MetadataExchangeTimes[] = [];
    const started = performance.now();
    for (let index = 0; index < METADATA_WARMUP_FILES + METADATA_FILES; index += 1) {
      if (perFile.length >= METADATA_MIN_FILES && performance.now() - started > METADATA_BUDGET_MS) break;
      const createdAt = performance.now();
      const handle = await session.create(
        {
          path: this.folder.path(this.nextName()),
          access: Access.readData | Access.writeData,
          disposition: Disposition.create,
          options: CreateOption.nonDirectory,
        },
        this.request,
      );
      const closedAt = performance.now();
      await session.close(handle.fileId, this.request);
      if (index >= METADATA_WARMUP_FILES) perFile.push({ createMs: closedAt - createdAt, closeMs: performance.now() - closedAt });
    }
    return metadataSecondsFrom(perFile, this.options.rttMs);
  }

  /**
   * The server's turnaround for a data request: 64 KiB requests one at a
   * time (as XP and a small file's copy go), each less the round trip and its
   * time on the line. Deep pipelines hide it; a synchronous client pays it on
   * every request (lab, 1 Gb/s / 0.5 ms: XP's reads took 0.28 ms a request
   * beyond the path, its writes none). The reads read the last write's file.
   */
  async turnaround(session: SmbSession, op: 'read' | 'write'): Promise<number> {
    const perRequest: number[] = [];
    const line = this.options.lineBitsPerSecond === undefined ? Infinity : (this.options.lineBitsPerSecond / 8) * payloadEfficiency(false);
    for (let run = 0; run < TURNAROUND_RUNS; run += 1) {
      const name = op === 'write' ? this.nextName() : (this.turnaroundFile ?? '');
      const sample = await this.transfer(session, op, name, { pipeline: LONE, fileBytes: TURNAROUND_REQUESTS * LONE.requestBytes }, false);
      if (op === 'write') this.turnaroundFile = name;
      if (sample) perRequest.push(sample.seconds / sample.requests - sample.requestBytes / line);
    }
    return perRequest.length > 0 ? Math.max(0, median(perRequest) - this.options.rttMs / 1000) : 0;
  }
}

export async function measureHostCosts(target: SmbTarget, credentials: SmbCredentials, options: HostCalibrationOptions): Promise<HostCalibration> {
  const { signal } = options;
  const request = signal ? { signal } : {};
  // Other programs' use of the machine, while this one waits: a copy beside them runs on what they leave.
  const load = await otherProgramsLoad(QUIET_MS, signal);
  const session = await SmbSession.open(target, credentials, request);
  let guarded: SmbSession | undefined;
  let scratch: ScratchFolder | undefined;
  let local: LocalSource | undefined;
  try {
    scratch = await ScratchFolder.create(session, request);
    // Writes send from a local file, as the copies' writes do (reading a file costs the client less than making the pattern).
    const sourceWorkload = parseWorkload(`file:${LARGE_FILE_BYTES}B`);
    const sourceFile = sourceWorkload.files[0]?.path ?? '';
    local = await LocalSource.create(sourceWorkload, scratch.name, signal);
    const run = new CalibrationRun(scratch, local, sourceFile, options);
    // Each session's server process as the copies' will be (server-warm-up.ts), before any of it is timed.
    await warmServerProcess(session, scratch.path('warm-up-1.bin'), request);
    const metadataSeconds = await run.metadataSeconds(session);
    const plain = await run.costsOn(session, 'pipefill-max');
    const turnaroundSeconds = { write: await run.turnaround(session, 'write'), read: await run.turnaround(session, 'read') };
    let guardedCosts: HostCosts['protected'];
    if (options.client) {
      guarded = await SmbSession.open(target, credentials, { offer: CLIENT_PROFILES[options.client].offer, ...request });
      await warmServerProcess(guarded, scratch.path('warm-up-2.bin'), request);
      const protection = protectionOfSession(guarded);
      // Its metadata exchanges too: smbd's signing of each small message is its own work (loopback, AES-128-GMAC:
      // a create and a close 0.32-0.35 ms each signed, 0.17 plain).
      if (protection.kind !== 'none')
        guardedCosts = { protection, ...(await run.costsOn(guarded, options.client)), metadataSeconds: await run.metadataSeconds(guarded) };
    }
    await scratch.remove(request);
    scratch = undefined;
    return {
      costs: {
        ...plain,
        ...(guardedCosts ? { protected: guardedCosts } : {}),
        metadataSeconds,
        turnaroundSeconds,
        noise: run.noise,
        ...(load ? { load } : {}),
        ...(options.lineBitsPerSecond === undefined ? {} : { acrossNetwork: true }),
      },
      samples: run.samples,
    };
  } finally {
    if (scratch) await scratch.remove({ timeoutMs: 5_000 }).catch(() => undefined);
    if (local) {
      await local.close().catch(() => undefined);
      local.remove();
    }
    await guarded?.end().catch(() => undefined);
    await session.end();
  }
}
