// An assessment's progress as a person reads it (issue 38): one bar that
// moves with the work, not the clock. The bar followed the time budget, so
// a run that finished early ended at 22-34%, with no "done". Now the probe
// and set-up, each copy, the read-backs and the signing check are steps of
// equal weight, a copy's own bytes move it within its step, the bar never
// moves back, a quiet step still sends the budget's countdown every half
// second, and the run ends at 100% with "done".

import type { ProgressEvent } from '../contract/copy-test.js';

/** A quiet step repeats its event this often, with the budget's clock brought up to date. */
export const HEARTBEAT_MS = 500;
/** Steps assumed before the plan is known (the probe is step 0 of them). */
const STEPS_BEFORE_PLAN = 10;

type Extra = Partial<Pick<ProgressEvent, 'bytes' | 'totalBytes' | 'test' | 'live'>>;

export class RunProgress {
  private steps = STEPS_BEFORE_PLAN;
  private copies = 0;
  private fraction = 0;
  private last: ProgressEvent | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly emit: ((event: ProgressEvent) => void) | undefined,
    private readonly budget: () => ProgressEvent['budget'] | undefined,
  ) {}

  /** The run's copies are known: step 0 is the probe and set-up, 1..copies the copies, then the read-backs and the check. */
  plan(copies: number): void {
    this.copies = copies;
    this.steps = copies + 3;
  }

  get readBackStep(): number {
    return this.copies + 1;
  }

  get checkStep(): number {
    return this.copies + 2;
  }

  /** Step `index`, `within` (0-1) through it. */
  report(step: string, index: number, within = 0, extra: Extra = {}): void {
    const at = (Math.max(0, index) + Math.min(1, Math.max(0, within))) / this.steps;
    // Never back: an estimate of the steps ahead may shrink, the bar does not.
    this.fraction = Math.min(1, Math.max(this.fraction, at));
    this.send({ step, bytes: extra.bytes ?? 0, totalBytes: extra.totalBytes ?? 0, fraction: this.fraction, ...extra });
    this.heartbeat ??= setInterval(() => {
      if (this.last) this.send(this.last);
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** The end: 100%, "done", and no more events. */
  done(): void {
    this.stop();
    this.fraction = 1;
    this.send({ step: 'done', bytes: 0, totalBytes: 0, fraction: 1 });
  }

  /** No more events (the run failed or was cancelled: no "done"). */
  stop(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private send(event: ProgressEvent): void {
    const budget = this.budget();
    const fresh: ProgressEvent = { ...event };
    delete fresh.budget;
    this.last = { ...fresh, ...(budget ? { budget } : {}) };
    this.emit?.(this.last);
  }
}
