// A budgeted copy (issue 15): stop once the rate has settled or the copy's
// time slot is spent, and keep what is needed to project the rest of the
// workload: each touched file's metadata and data times, each folder's.

import type { Completion, Projection, SettledRate } from '../model/settle.js';
import { projectSeconds, recentRate, settledRate } from '../model/settle.js';

export interface CopyBudgetOptions {
  /** The path's round trip (the probe's, or the session's own exchanges): sets the rate windows. */
  readonly rttMs: number;
  /** The copy's time slot: it stops here even if its rate has not settled. */
  readonly maxSeconds: number;
  /** Move whole files only, and stop after this many (the read source of a directory set, which later reads must find whole). */
  readonly wholeFiles?: number;
  /** Never begin more files than this (a read of a source that holds only so many). */
  readonly maxFiles?: number;
  /**
   * With `wholeFiles`: go on with whole files until the copy has also run this long (or its slot is spent). On a
   * fast path two files take milliseconds, too short a part to scale the model by: an idle loopback's folders were
   * projected from 5-8 ms of copying at 1.4-1.5x their model.
   */
  readonly minSpanMs?: number;
}

export type StoppedBy = 'settled' | 'time';

/**
 * A file's data phase takes a wait w (its first request's round trip, and a
 * congestion window that restarts after the metadata's pauses) plus bytes / r.
 * A settled rate gives r; w is then what the whole files took beyond it.
 * Without one, a line through the whole files' (bytes, seconds) gives both;
 * one point alone, bytes / seconds.
 */
export function dataPhase(
  points: readonly { readonly bytes: number; readonly seconds: number }[],
  settled?: { readonly bytesPerSecond: number; readonly relativeHalfWidth: number },
): { bytesPerSecond: number; waitSeconds: number; relativeHalfWidth: number } {
  const usable = points.filter((point) => point.bytes > 0 && point.seconds > 0);
  const average = (values: readonly number[]) => (values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : 0);
  if (settled && settled.bytesPerSecond > 0) {
    return {
      bytesPerSecond: settled.bytesPerSecond,
      waitSeconds: Math.max(0, average(usable.map((point) => point.seconds - point.bytes / settled.bytesPerSecond))),
      relativeHalfWidth: settled.relativeHalfWidth,
    };
  }
  const meanBytes = average(usable.map((point) => point.bytes));
  const meanSeconds = average(usable.map((point) => point.seconds));
  const spread = usable.reduce((sum, point) => sum + (point.bytes - meanBytes) ** 2, 0);
  const slope = spread > 0 ? usable.reduce((sum, point) => sum + (point.bytes - meanBytes) * (point.seconds - meanSeconds), 0) / spread : 0;
  if (slope > 0 && spread > 0 && usable.length >= 2) {
    return { bytesPerSecond: 1 / slope, waitSeconds: Math.max(0, meanSeconds - slope * meanBytes), relativeHalfWidth: Infinity };
  }
  const bytes = usable.reduce((sum, point) => sum + point.bytes, 0);
  const seconds = usable.reduce((sum, point) => sum + point.seconds, 0);
  return { bytesPerSecond: seconds > 0 ? bytes / seconds : 0, waitSeconds: 0, relativeHalfWidth: Infinity };
}

interface Touched {
  readonly fullBytes: number;
  readonly movedBytes: number;
  readonly metadataSeconds: number;
  readonly dataSeconds: number;
}

/** Completions after the ramp that make a copy's own rate, unsettled, a better guide than a line through its files. */
const MIN_OWN_COMPLETIONS = 6;

/** How often the rate is re-examined while data moves: often enough for a quick stop, rarely enough to cost nothing. */
const CHECK_EVERY_MS = 20;
/** Completions kept for the rate: a budgeted copy is short; past this, every other one is dropped (the rate needs its span, not each lump). */
const MAX_COMPLETIONS = 20_000;

export class CopyBudget {
  private stopped: StoppedBy | undefined;
  private dataFromMs = 0;
  private lastCheckMs = -Infinity;
  private settled: SettledRate | undefined;
  /** At a stop by time: the rate after the ramp so far, unsettled but the copy's own. */
  private unsettled: SettledRate | undefined;
  private readonly files: Touched[] = [];
  private readonly folders: number[] = [];
  private completions: Completion[] = [];
  /** The first completion of the file now moving: with the latest, its rate so far (drainMs), kept without a scan. */
  private dataStart: Completion | undefined;

  /** `clock`: ms since the copy started, as its timeline counts them. */
  constructor(
    private readonly clock: () => number,
    readonly options: CopyBudgetOptions,
  ) {}

  /** Before a file or folder: is there time for it? A copy that has moved no data yet goes on: nothing could be projected. */
  mayStartNext(): boolean {
    const { wholeFiles } = this.options;
    const spanned = this.clock() >= Math.min(this.options.minSpanMs ?? 0, this.options.maxSeconds * 1000);
    if (!this.stopped && wholeFiles !== undefined && this.files.length >= wholeFiles && spanned) this.stopped = 'settled';
    if (!this.stopped && this.options.maxFiles !== undefined && this.files.length >= this.options.maxFiles)
      this.stopped = this.clock() >= this.options.maxSeconds * 1000 ? 'time' : 'settled';
    const moved = this.files.some((file) => file.movedBytes > 0);
    if (!this.stopped && wholeFiles === undefined && moved && this.clock() >= this.options.maxSeconds * 1000) this.stopped = 'time';
    return this.stopped === undefined;
  }

  /** Completions of the file now moving: two give a rate, however rough. */
  private completionsSinceDataStart(): number {
    let count = 0;
    for (let index = this.completions.length - 1; index >= 0 && (this.completions[index]?.tMs ?? -1) >= this.dataFromMs; index--) count++;
    return count;
  }

  /** Called with the bytes moved so far whenever a request completes (metadata ones move none and are skipped). */
  noteTotal(totalBytes: number): void {
    const last = this.completions[this.completions.length - 1];
    if (last && last.totalBytes === totalBytes) return;
    const completion = { tMs: this.clock(), totalBytes };
    this.completions.push(completion);
    if (this.dataStart === undefined && completion.tMs >= this.dataFromMs) this.dataStart = completion;
    if (this.completions.length > MAX_COMPLETIONS) this.completions = this.completions.filter((_, index) => index % 2 === 0);
  }

  /**
   * What `inFlightBytes` take to arrive at the rate this file's data has moved so far; 0 before it shows one. Asked
   * before every chunk: it reads two completions, not the list.
   */
  private drainMs(inFlightBytes: number): number {
    if (!(inFlightBytes > 0)) return 0;
    const [first, last] = [this.dataStart, this.completions[this.completions.length - 1]];
    if (!first || !last || !(last.tMs > first.tMs && last.totalBytes > first.totalBytes)) return 0;
    return (inFlightBytes * (last.tMs - first.tMs)) / (last.totalBytes - first.totalBytes);
  }

  beginData(): void {
    this.dataFromMs = this.clock();
    this.dataStart = undefined;
    this.lastCheckMs = -Infinity;
  }

  /**
   * Before each chunk of a file's data: stop issuing once the rate has settled
   * or the slot is spent, or will be once what is in flight has arrived. Where
   * a lossy hop holds the copy to a few Mb/s, a deep pipeline's requests in
   * flight take seconds to drain: the lab's 50 Mb/s, 40 ms link losing 1% ran
   * three folder copies 3-5 s past their slots, and the 60 s run took 87 s
   * (2026-11-28).
   */
  shouldStopData(inFlightBytes = 0): boolean {
    if (this.stopped) return true;
    if (this.options.wholeFiles !== undefined) return false;
    const now = this.clock();
    const arrivedMs = now + this.drainMs(inFlightBytes);
    if (arrivedMs >= this.options.maxSeconds * 1000 && (this.files.some((file) => file.movedBytes > 0) || this.completionsSinceDataStart() >= 2)) {
      this.stopped = 'time';
      const input = { completions: this.completions, fromMs: this.dataFromMs, rttMs: this.options.rttMs };
      const soFar = settledRate(input);
      // After a short data phase the ramp detection has no later window to go by and keeps part of the ramp:
      // the last stretch's rate is then the better guide (a ramp only climbs).
      const recent = recentRate(input);
      if (recent.bytesPerSecond > soFar.bytesPerSecond)
        this.unsettled = {
          settled: false,
          bytesPerSecond: recent.bytesPerSecond,
          relativeHalfWidth: Infinity,
          completions: recent.completions,
          rampEndMs: soFar.rampEndMs,
        };
      else if (soFar.completions >= MIN_OWN_COMPLETIONS && soFar.bytesPerSecond > 0) this.unsettled = soFar;
      return true;
    }
    if (now - this.lastCheckMs < CHECK_EVERY_MS) return false;
    this.lastCheckMs = now;
    const rate = settledRate({ completions: this.completions, fromMs: this.dataFromMs, rttMs: this.options.rttMs });
    if (!rate.settled) return false;
    this.settled = rate;
    this.stopped = 'settled';
    return true;
  }

  fileDone(file: { fullBytes: number; movedBytes: number; seconds: number; dataSeconds: number }): void {
    this.files.push({
      fullBytes: file.fullBytes,
      movedBytes: file.movedBytes,
      metadataSeconds: Math.max(0, file.seconds - file.dataSeconds),
      dataSeconds: file.dataSeconds,
    });
  }

  folderDone(seconds: number): void {
    this.folders.push(seconds);
  }

  /**
   * The whole workload's time from what was moved. The rate is the settled
   * one; after a stop by time, the data moved over the time spent moving it
   * (no interval can be claimed for it then).
   */
  project(workload: { readonly files: readonly { readonly bytes: number }[]; readonly folders: number }, measuredSeconds: number): BudgetedCopy {
    const touchedBytes = this.files.reduce((sum, file) => sum + file.fullBytes, 0);
    const movedBytes = this.files.reduce((sum, file) => sum + file.movedBytes, 0);
    const untouchedFiles = workload.files.slice(this.files.length);
    const remainingBytes = touchedBytes - movedBytes + untouchedFiles.reduce((sum, file) => sum + file.bytes, 0);
    const mean = (values: readonly number[]) => (values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : 0);
    const perFile = mean(this.files.map((file) => file.metadataSeconds));
    const perFolder = this.folders.length > 0 ? mean(this.folders) : perFile;
    const remainingMetadataSeconds = untouchedFiles.length * perFile + Math.max(0, workload.folders - this.folders.length) * perFolder;
    const whole = this.files.filter((file) => file.movedBytes === file.fullBytes).map((file) => ({ bytes: file.movedBytes, seconds: file.dataSeconds }));
    const partial = this.files
      .filter((file) => file.movedBytes < file.fullBytes && file.movedBytes > 0)
      .map((file) => ({ bytes: file.movedBytes, seconds: file.dataSeconds }));
    // A file stopped part-way is a point on the same line (its prefix took that long).
    const phase = dataPhase([...whole, ...partial], this.settled ?? this.unsettled);
    const rate = { bytesPerSecond: phase.bytesPerSecond, relativeHalfWidth: phase.relativeHalfWidth };
    // Every file not begun owes its wait too (those begun have paid it).
    const owed = remainingMetadataSeconds + untouchedFiles.length * phase.waitSeconds;
    const projection = projectSeconds({ measuredSeconds, remainingBytes, remainingMetadataSeconds: owed, rate });
    return {
      complete: remainingBytes === 0 && untouchedFiles.length === 0,
      stoppedBy: this.stopped ?? 'settled',
      measuredBytes: movedBytes,
      measuredSeconds,
      filesTouched: this.files.length,
      rateMbps: (rate.bytesPerSecond * 8) / 1e6,
      rateRelativeHalfWidth: rate.relativeHalfWidth,
      projection,
    };
  }
}

export interface BudgetedCopy {
  /** Every byte and round trip was moved: nothing is projected. */
  readonly complete: boolean;
  readonly stoppedBy: StoppedBy;
  readonly measuredBytes: number;
  readonly measuredSeconds: number;
  readonly filesTouched: number;
  readonly rateMbps: number;
  readonly rateRelativeHalfWidth: number;
  readonly projection: Projection;
}
