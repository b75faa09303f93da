// The Run view's state: progress events in, the overall and current-step
// fractions and one live series per test copy out (throughput and requests
// per second against time, as TR-3869 plots CIFS ops/s). Pure.

import type { ProgressEvent } from '../../../../src/contract/copy-test.js';

export interface LivePoint {
  readonly tMs: number;
  readonly mbps: number;
  readonly opsPerSecond: number;
}

export interface LiveSeries {
  readonly key: string;
  readonly label: string;
  readonly points: readonly LivePoint[];
}

export interface RunState {
  readonly step: string;
  readonly stepFraction: number;
  readonly fraction: number;
  readonly series: readonly LiveSeries[];
  readonly events: number;
  /** An assessment's time budget and the time left of it, when it runs within one. */
  readonly budget?: { readonly seconds: number; readonly leftSeconds: number };
}

export const INITIAL_RUN: RunState = { step: 'Starting…', stepFraction: 0, fraction: 0, series: [], events: 0 };

/** Points kept per series: ten a second for a minute and more is plenty for a chart. */
const MAX_POINTS = 1_200;

export function applyProgress(state: RunState, event: ProgressEvent): RunState {
  let series = state.series;
  if (event.live && event.test) {
    const key = `${event.test.profile} ${event.test.op} ${event.test.workload}`;
    const point = { tMs: event.live.tMs, mbps: event.live.mbps, opsPerSecond: event.live.opsPerSecond };
    const existing = series.find((s) => s.key === key);
    series = existing
      ? series.map((s) => (s === existing ? { ...s, points: [...s.points, point].slice(-MAX_POINTS) } : s))
      : [...series, { key, label: `${event.test.profile} ${event.test.op} (${event.test.workload})`, points: [point] }];
  }
  // The run's last event ("done", at 100%) reads as a person expects it.
  const done = event.step === 'done';
  return {
    step: done ? 'Done' : event.step,
    stepFraction: done ? 1 : event.totalBytes > 0 ? Math.min(1, event.bytes / event.totalBytes) : 0,
    fraction: event.fraction ?? state.fraction,
    series,
    events: state.events + 1,
    ...(event.budget
      ? { budget: { seconds: event.budget.seconds, leftSeconds: Math.max(0, event.budget.seconds - event.budget.elapsedSeconds) } }
      : state.budget
        ? { budget: state.budget }
        : {}),
  };
}

/** "Budget 60 s: 23 s left". */
export function budgetText(budget: NonNullable<RunState['budget']>): string {
  return `Budget ${Math.round(budget.seconds)} s: ${Math.round(budget.leftSeconds)} s left`;
}
