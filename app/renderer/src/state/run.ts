// The Run view's state: progress events in, the overall and current-step
// fractions and one live series per test copy out (throughput and requests
// per second against time, as TR-3869 plots CIFS ops/s). Pure.

import type { ProgressEvent } from '../../../../src/contract/copy-test.js';
import { clientShortLabel, copyRateText, testShortLabel, workloadKindText } from '../../../../src/presentation/test-labels.js';

export interface LivePoint {
  readonly tMs: number;
  readonly mbps: number;
  readonly opsPerSecond: number;
}

export interface LiveSeries {
  readonly key: string;
  readonly label: string;
  readonly profile: string;
  readonly op: string;
  readonly workload: string;
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
      : [...series, { key, label: testShortLabel(event.test), profile: event.test.profile, op: event.test.op, workload: event.test.workload, points: [point] }];
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

/** One small chart of the Run view: one kind of copy ("Large file, write"), a line per client generation. */
export interface LiveGroup {
  readonly title: string;
  readonly series: readonly { readonly label: string; readonly colourIndex: number; readonly points: readonly LivePoint[] }[];
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The live series as small multiples: a chart per kind of copy and
 * direction, in the order they ran, each with a line per client. A client
 * keeps its colour in every chart (the order clients first appeared), so
 * a legend of two or three names reads for all of them.
 */
export function liveGroups(series: readonly LiveSeries[]): LiveGroup[] {
  const clients = [...new Set(series.map((s) => s.profile))];
  const groups = new Map<string, { title: string; series: LiveGroup['series'][number][] }>();
  for (const s of series) {
    const title = `${capitalise(workloadKindText(s.workload))}, ${s.op}`;
    const group = groups.get(title) ?? { title, series: [] };
    group.series.push({ label: clientShortLabel(s.profile), colourIndex: clients.indexOf(s.profile), points: s.points });
    groups.set(title, group);
  }
  return [...groups.values()];
}

export interface LiveRow {
  readonly key: string;
  readonly label: string;
  readonly seconds: string;
  readonly rate: string;
  readonly opsPerSecond: string;
}

/** The same series as a table (the charts' alternative): each copy's time so far, its median rate and requests per second. */
export function liveRows(series: readonly LiveSeries[]): LiveRow[] {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length === 0 ? 0 : sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  };
  return series.map((s) => {
    const last = s.points[s.points.length - 1];
    return {
      key: s.key,
      label: s.label,
      seconds: last ? `${(last.tMs / 1000).toFixed(1)} s` : '',
      rate: copyRateText(median(s.points.map((point) => point.mbps)) * 1e6),
      opsPerSecond: median(s.points.map((point) => point.opsPerSecond)).toFixed(0),
    };
  });
}
