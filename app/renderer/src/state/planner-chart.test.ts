import { describe, expect, it } from 'vitest';
import { plan } from './planner.js';
import { plannerChart } from './planner-chart.js';

describe("the Planner's chart", () => {
  it('one bar series per generation, one group per test; minutes where the longest copy runs past two of them', () => {
    const slow = plan({ bandwidthBitsPerSecond: 20e6, rttMs: 80, lossPercent: 0, server: 'samba' });
    const chart = plannerChart(slow, ['orange', 'blue']);
    const generations = new Set(slow.cells.map((cell) => cell.client));
    expect(chart.data.datasets).toHaveLength(generations.size);
    expect(Math.max(...slow.cells.map((cell) => cell.seconds))).toBeGreaterThan(120);
    const scales = chart.options?.scales as { y?: { title?: { text?: string } } } | undefined;
    expect(scales?.y?.title?.text).toBe('minutes');
    const longest = Math.max(...chart.data.datasets.flatMap((set) => (set.data as (number | null)[]).filter((value): value is number => value !== null)));
    expect(longest).toBeCloseTo(Math.max(...slow.cells.map((cell) => cell.seconds)) / 60, 6);
  });

  it('seconds on a fast link', () => {
    const fast = plannerChart(plan({ bandwidthBitsPerSecond: 10e9, rttMs: 1, lossPercent: 0, server: 'samba' }), ['orange']);
    const scales = fast.options?.scales as { y?: { title?: { text?: string } } } | undefined;
    expect(scales?.y?.title?.text).toBe('seconds');
  });
});
