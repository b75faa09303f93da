import { describe, expect, it } from 'vitest';
import { applyProgress, budgetText, INITIAL_RUN, liveGroups, liveRows } from './run.js';

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

describe('the live charts as small multiples and as a table', () => {
  const event = (profile: 'win11-24h2' | 'pipefill-max', op: 'read' | 'write', workload: string, tMs: number, mbps: number) =>
    ({ step: 'copy', bytes: 1, totalBytes: 2, test: { profile, op, workload, index: 0, count: 4 }, live: { tMs, mbps, opsPerSecond: mbps / 10 } }) as const;

  it('draws a chart per kind of copy, a line per client, each client in one colour everywhere', () => {
    let state = INITIAL_RUN;
    for (const e of [
      event('win11-24h2', 'write', 'file:15MiB', 100, 40),
      event('pipefill-max', 'write', 'file:15MiB', 100, 80),
      event('win11-24h2', 'write', 'tr3869-dirset:0.033', 100, 20),
      event('pipefill-max', 'write', 'tr3869-dirset:0.033', 100, 50),
    ])
      state = applyProgress(state, e);
    const groups = liveGroups(state.series);
    expect(groups.map((group) => group.title)).toEqual(['Large file, write', 'Small files, write']);
    expect(groups.map((group) => group.series.map((s) => [s.label, s.colourIndex]))).toEqual([
      [
        ['Windows 11 24H2', 0],
        ['Best pipeline', 1],
      ],
      [
        ['Windows 11 24H2', 0],
        ['Best pipeline', 1],
      ],
    ]);
  });

  it("gives each copy's time so far, median rate in MB/s and Mb/s, and requests per second", () => {
    let state = INITIAL_RUN;
    for (const [tMs, mbps] of [
      [100, 10],
      [200, 40],
      [300, 30],
    ] as const)
      state = applyProgress(state, event('win11-24h2', 'read', 'file:15MiB', tMs, mbps));
    expect(liveRows(state.series)).toEqual([
      { key: 'win11-24h2 read file:15MiB', label: 'Windows 11 24H2, large file read', seconds: '0.3 s', rate: '3.75 MB/s (30 Mb/s)', opsPerSecond: '3' },
    ]);
  });
});
