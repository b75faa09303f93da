// The run's budget, kept as the copies run: each copy's slot is its share of
// what is left after the reserve for the run's end and the read-backs still
// to come, weighed by the model's time for it and every copy after it, less
// what copies so far took beyond their slots (src/model/settle.ts budgetSlot).

import type { CopyBudgetOptions } from '../copy/copy-budget.js';
import { budgetSlot } from '../model/settle.js';
import type { PlannedCopy } from './copy-plan.js';
import { readsBackLater } from './copy-plan.js';

/**
 * What the end of a run needs beyond the copies' slots: the signing check's
 * session set-up (negotiate, two session set-ups, tree connect, log-off: about
 * six round trips), the scratch folder's removal (a round trip per entry,
 * eight in flight, and the sessions' log-offs) and the process's own start
 * and exit. Measured at 52 Mb/s / 75 ms: 2.6 s from the report to the
 * process's end, and the process 2.5-3.3 s over a 60 s budget with 1.5 s +
 * 12 round trips held back.
 */
function reserveSeconds(rttMs: number, entries: number): number {
  return 2 + (rttMs / 1000) * (entries / 4 + 12 + 6);
}

/** A write reads back what it wrote: about a fifth more than the copy on the paths measured (the read-back is Pipefill's own pipeline). */
const WRITE_OVERHEAD = 1.2;
/**
 * Round trips around each copy outside its timed part: its folder made and,
 * where the read-back follows at once, that read's opens and closes (8); a
 * file write's read-back waits for the others' after the copies (3).
 */
const perCopySeconds = (rttMs: number, readBackNow: boolean) => ((readBackNow ? 8 : 3) * rttMs) / 1000;

/** The shortest slot a budgeted copy gets, however little time is left: enough round trips to see a rate. */
export const minimumSlotSeconds = (rttMs: number) => Math.max(0.3, (12 * rttMs) / 1000);

/** A write whose read-back follows at once takes that much longer than its copy. */
const weight = (copy: PlannedCopy) => (copy.op === 'write' && !readsBackLater(copy) ? WRITE_OVERHEAD : 1);

export interface BudgetKeeperOptions {
  readonly budgetSeconds: number;
  /** Seconds of the budget spent so far (the budget's clock). */
  readonly spent: () => number;
  readonly rttMs: number;
  /** Entries the scratch folder will hold, for its removal's share of the reserve. */
  readonly entries: number;
  /** The file writes' read-backs after the copies, and the signing check's read: the model's times for them. */
  readonly readBackSeconds: number;
  readonly checkSeconds: number;
  /** The line's second test after the copies, where the probe lost packets (line-under-loss.ts): held back like the check; 0 or absent elsewhere. */
  readonly lineSeconds?: number;
}

export class BudgetKeeper {
  // What copies took beyond their planned wall time (a request finishing past the slot, the read-back, the
  // closing round trips): learnt as they run, and held back for each copy still to come.
  private overrun = { seconds: 0, copies: 0 };
  private lineHeld = true;

  constructor(private readonly options: BudgetKeeperOptions) {}

  /**
   * Whether the line's second test is still held back for (holdLine(false)
   * once the run's writes show no loss on the path: the test will not run,
   * and its seconds go to the copies still to come; true again where a
   * later write shows some).
   */
  holdLine(held: boolean): void {
    this.lineHeld = held;
  }

  /** The slot of `copy`, the first of `remaining` (the copies still to run, in order). */
  slotFor(copy: PlannedCopy, remaining: readonly PlannedCopy[]): CopyBudgetOptions {
    const { rttMs } = this.options;
    const { overrun } = this;
    const lineSeconds = this.lineHeld ? (this.options.lineSeconds ?? 0) : 0;
    const fixed = (other: PlannedCopy) =>
      perCopySeconds(rttMs, other.op === 'write' && !readsBackLater(other)) + (overrun.copies > 0 ? overrun.seconds / overrun.copies : 0);
    // The copies still to run, and the signing check's read at the end, share what is left after the reserve
    // and the file writes' read-backs; a directory set's write reads back what it wrote at once (weight).
    const needs = [...remaining.map((other) => other.expectedSeconds * weight(other) + fixed(other)), this.options.checkSeconds, lineSeconds];
    const minimums = [
      ...remaining.map((other) => Math.max(minimumSlotSeconds(rttMs), other.minimumSeconds) * weight(other) + fixed(other)),
      minimumSlotSeconds(rttMs),
      lineSeconds,
    ];
    // The read-backs still to come are spent whatever the slots: held back with the reserve.
    const available = Math.max(
      0,
      this.options.budgetSeconds - this.options.spent() - reserveSeconds(rttMs, this.options.entries) - this.options.readBackSeconds,
    );
    const slot = budgetSlot(needs, minimums, available);
    return { rttMs, maxSeconds: Math.max(minimumSlotSeconds(rttMs), (slot - fixed(copy)) / weight(copy)) };
  }

  /** A copy given `budget` took `wallSeconds`: what it took beyond its plan is held back for the copies after it. */
  ran(copy: PlannedCopy, budget: CopyBudgetOptions, wallSeconds: number): void {
    const plannedWall = budget.maxSeconds * weight(copy) + perCopySeconds(this.options.rttMs, copy.op === 'write' && !readsBackLater(copy));
    this.overrun.seconds += Math.max(0, wallSeconds - plannedWall);
    this.overrun.copies += 1;
  }

  /** The signing check's slot: what is left after the reserve. */
  checkSlot(): CopyBudgetOptions {
    const { rttMs } = this.options;
    return {
      rttMs,
      maxSeconds: Math.max(minimumSlotSeconds(rttMs), this.options.budgetSeconds - this.options.spent() - reserveSeconds(rttMs, this.options.entries)),
    };
  }
}
