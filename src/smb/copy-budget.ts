// A budgeted copy (issue 15): stop once the rate has settled or the copy's
// time slot is spent, and keep what is needed to project the rest of the
// workload: each touched file's metadata and data times, each folder's.

import type { Completion, Projection, SettledRate } from '../model/settle.js';
import { projectSeconds, settledRate } from '../model/settle.js';

export interface CopyBudgetOptions {
  /** The path's round trip (the probe's, or the session's own exchanges): sets the rate windows. */
  readonly rttMs: number;
  /** The copy's time slot: it stops here even if its rate has not settled. */
  readonly maxSeconds: number;
}

export type StoppedBy = 'settled' | 'time';

interface Touched {
  readonly fullBytes: number;
  movedBytes: number;
  metadataSeconds: number;
  dataSeconds: number;
}

/** How often the rate is re-examined while data moves: often enough for a quick stop, rarely enough to cost nothing. */
const CHECK_EVERY_MS = 20;
/** Completions kept for the rate: a budgeted copy is short; past this, every other one is dropped (the rate needs its span, not each lump). */
const MAX_COMPLETIONS = 20_000;

export class CopyBudget {
  private stopped: StoppedBy | undefined;
  private dataFromMs = 0;
  private lastCheckMs = -Infinity;
  private settled: SettledRate | undefined;
  private readonly files: Touched[] = [];
  private readonly folders: number[] = [];
  private completions: Completion[] = [];

  /** `clock`: ms since the copy started, as its timeline counts them. */
  constructor(
    private readonly clock: () => number,
    readonly options: CopyBudgetOptions,
  ) {}

  get stoppedBy(): StoppedBy | undefined {
    return this.stopped;
  }

  /** Before a file or folder: is there time for it? */
  mayStartNext(): boolean {
    if (!this.stopped && this.clock() >= this.options.maxSeconds * 1000) this.stopped = 'time';
    return this.stopped === undefined;
  }

  /** Called with the bytes moved so far whenever a request completes (metadata ones move none and are skipped). */
  noteTotal(totalBytes: number): void {
    const last = this.completions[this.completions.length - 1];
    if (last && last.totalBytes === totalBytes) return;
    this.completions.push({ tMs: this.clock(), totalBytes });
    if (this.completions.length > MAX_COMPLETIONS) this.completions = this.completions.filter((_, index) => index % 2 === 0);
  }

  beginData(): void {
    this.dataFromMs = this.clock();
    this.lastCheckMs = -Infinity;
  }

  /** Before each chunk of a file's data: stop issuing once the rate has settled or the slot is spent. */
  shouldStopData(): boolean {
    if (this.stopped) return true;
    const now = this.clock();
    if (now >= this.options.maxSeconds * 1000) {
      this.stopped = 'time';
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
    this.files.push({ fullBytes: file.fullBytes, movedBytes: file.movedBytes, metadataSeconds: Math.max(0, file.seconds - file.dataSeconds), dataSeconds: file.dataSeconds });
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
    const dataSeconds = this.files.reduce((sum, file) => sum + file.dataSeconds, 0);
    const rate = this.settled ?? { bytesPerSecond: dataSeconds > 0 ? movedBytes / dataSeconds : 0, relativeHalfWidth: Infinity };
    const projection = projectSeconds({ measuredSeconds, remainingBytes, remainingMetadataSeconds, rate });
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
