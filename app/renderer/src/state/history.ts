// The History view's numbers: the stored runs grouped by site, and a site's
// trend as a chart (each generation's measured rate, run by run). Pure; the
// store and the trend itself are the services' (src/store, src/contract/history.ts).

import type { ChartConfiguration } from 'chart.js';
import type { RunSummary, SiteTrend } from '../../../../src/contract/history.js';
import { generationKeyLabel } from '../../../../src/presentation/test-labels.js';

export interface SiteRow {
  readonly site: string;
  /** The share as last typed for this site. */
  readonly share: string;
  readonly runs: number;
  readonly assessments: number;
  readonly capacityRuns: number;
  readonly latest: string;
}

/** One row per site, the most recently run first. */
export function sitesOf(runs: readonly RunSummary[]): SiteRow[] {
  const bySite = new Map<string, RunSummary[]>();
  for (const run of runs) bySite.set(run.site, [...(bySite.get(run.site) ?? []), run]);
  return [...bySite.entries()]
    .map(([site, own]) => {
      const newest = own.reduce((best, run) => (run.startedAt > best.startedAt ? run : best));
      return {
        site,
        share: newest.share,
        runs: own.length,
        assessments: own.filter((run) => run.kind === 'assessment').length,
        capacityRuns: own.filter((run) => run.kind === 'capacity').length,
        latest: newest.startedAt,
      };
    })
    .sort((a, b) => b.latest.localeCompare(a.latest) || a.site.localeCompare(b.site));
}

// Enough distinct hues for the generations one assessment measures (8 profiles x 2 ops x 2 workloads at most).
const HUES = [210, 20, 120, 280, 45, 330, 170, 0, 90, 250, 300, 60, 190, 140, 230, 10];

/** When a run started, in the person's local time, short enough for an axis: `#3 2026-11-24 18:02`. */
export function runLabel(startedAt: string, id: number): string {
  return `#${id} ${localTimeText(startedAt)}`;
}

/** An ISO time as local `2026-11-24 18:02` (the page's time zone); text that is no time, as it is. */
export function localTimeText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/**
 * Each generation's measured rate across the site's assessments. With two
 * runs or more, a line per generation, x the runs in order (a run that did
 * not measure a generation leaves a gap, not a zero). With one run there is
 * no trend yet: a bar per generation shows that run instead of a column of
 * dots.
 */
export function trendChart(trend: SiteTrend): ChartConfiguration {
  const runs = new Map<number, string>();
  for (const points of Object.values(trend.generations)) for (const point of points) runs.set(point.id, point.startedAt);
  const order = [...runs.entries()].sort((a, b) => a[1].localeCompare(b[1]) || a[0] - b[0]);
  const generations = Object.entries(trend.generations).sort(([a], [b]) => a.localeCompare(b));
  if (order.length === 1) {
    const [[id, startedAt]] = order as [[number, string]];
    return {
      type: 'bar',
      data: {
        labels: generations.map(([generation]) => generationKeyLabel(generation)),
        datasets: [{ label: runLabel(startedAt, id), data: generations.map(([, points]) => points[0]?.value ?? null), backgroundColor: 'hsl(210 65% 45%)' }],
      },
      options: {
        indexAxis: 'y',
        scales: { x: { beginAtZero: true, title: { display: true, text: 'measured rate (Mb/s)' } } },
        plugins: { legend: { display: false } },
      },
    };
  }
  const labels = order.map(([id, startedAt]) => runLabel(startedAt, id));
  const datasets = generations.map(([generation, points], index) => {
    const hue = HUES[index % HUES.length] ?? 0;
    const byRun = new Map(points.map((point) => [point.id, point.value]));
    return {
      label: generationKeyLabel(generation),
      data: order.map(([id]) => byRun.get(id) ?? null),
      borderColor: `hsl(${hue} 65% 45%)`,
      backgroundColor: `hsl(${hue} 65% 45%)`,
      spanGaps: true,
      pointRadius: 3,
    };
  });
  return {
    type: 'line',
    data: { labels, datasets },
    options: {
      scales: { x: { title: { display: true, text: 'run' } }, y: { beginAtZero: true, title: { display: true, text: 'measured rate (Mb/s)' } } },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
}
