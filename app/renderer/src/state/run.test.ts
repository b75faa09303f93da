import { describe, expect, it } from 'vitest';
import { applyProgress, budgetText, INITIAL_RUN } from './run.js';

describe('run state', () => {
  it('keeps one live series per test copy and follows the fractions', () => {
    const test = { profile: 'win7-smb2' as const, op: 'read' as const, workload: 'file:4MiB', index: 0, count: 2 };
    let state = applyProgress(INITIAL_RUN, { step: 'probe', bytes: 0, totalBytes: 0, fraction: 0 });
    state = applyProgress(state, { step: 'copy', bytes: 10, totalBytes: 40, fraction: 0.4, test, live: { tMs: 100, mbps: 50, opsPerSecond: 6 } });
    state = applyProgress(state, { step: 'copy', bytes: 20, totalBytes: 40, fraction: 0.45, test, live: { tMs: 200, mbps: 60, opsPerSecond: 7 } });
    state = applyProgress(state, {
      step: 'copy',
      bytes: 5,
      totalBytes: 40,
      fraction: 0.7,
      test: { ...test, op: 'write', index: 1 },
      live: { tMs: 100, mbps: 20, opsPerSecond: 2 },
    });
    expect(state.series.map((s) => [s.key, s.points.length])).toEqual([
      ['win7-smb2 read file:4MiB', 2],
      ['win7-smb2 write file:4MiB', 1],
    ]);
    expect(state.fraction).toBe(0.7);
    expect(state.stepFraction).toBeCloseTo(5 / 40, 9);
    expect(state.events).toBe(4);
  });

  it("shows an assessment's budget and the time left, and keeps it through events without one", () => {
    let state = applyProgress(INITIAL_RUN, { step: 'probe', bytes: 0, totalBytes: 0, budget: { seconds: 60, elapsedSeconds: 0.4 } });
    state = applyProgress(state, { step: 'copy', bytes: 1, totalBytes: 2, budget: { seconds: 60, elapsedSeconds: 36.6 } });
    expect(state.budget).toEqual({ seconds: 60, leftSeconds: 60 - 36.6 });
    expect(budgetText(state.budget ?? { seconds: 0, leftSeconds: 0 })).toBe('Budget 60 s: 23 s left');
    state = applyProgress(state, { step: 'copy', bytes: 2, totalBytes: 2 });
    expect(state.budget?.seconds).toBe(60);
    expect(applyProgress(INITIAL_RUN, { step: 'x', bytes: 0, totalBytes: 0, budget: { seconds: 20, elapsedSeconds: 25 } }).budget?.leftSeconds).toBe(0);
  });

  it("reads the run's last event as Done, both bars full", () => {
    const state = applyProgress(INITIAL_RUN, { step: 'done', bytes: 0, totalBytes: 0, fraction: 1 });
    expect(state).toMatchObject({ step: 'Done', stepFraction: 1, fraction: 1 });
  });

  it('keeps the last overall fraction when an event has none', () => {
    const state = applyProgress({ ...INITIAL_RUN, fraction: 0.3 }, { step: 'connect', bytes: 0, totalBytes: 0 });
    expect(state.fraction).toBe(0.3);
  });
});
