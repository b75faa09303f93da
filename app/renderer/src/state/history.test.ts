import { describe, expect, it } from 'vitest';
import type { RunSummary, SiteTrend } from '../../../../src/contract/history.js';
import { sitesOf, trendChart } from './history.js';

const run = (id: number, site: string, startedAt: string, kind: RunSummary['kind'] = 'assessment'): RunSummary => ({
  id,
  kind,
  share: `//${site}`,
  site,
  startedAt,
  ranBy: 'ann',
  machine: 'pc',
  savedAt: startedAt,
  linkMbps: 50,
  rttMs: 20,
  readinessMet: null,
  headline: 'h',
});

describe('the History view', () => {
  it('groups runs by site, the most recently run site first, counting each kind', () => {
    const rows = sitesOf([run(1, 'a/s', '2026-01-01T00:00:00Z'), run(2, 'b/s', '2026-02-01T00:00:00Z'), run(3, 'a/s', '2026-03-01T00:00:00Z', 'capacity')]);
    expect(rows).toEqual([
      { site: 'a/s', share: '//a/s', runs: 2, assessments: 1, capacityRuns: 1, latest: '2026-03-01T00:00:00Z' },
      { site: 'b/s', share: '//b/s', runs: 1, assessments: 1, capacityRuns: 0, latest: '2026-02-01T00:00:00Z' },
    ]);
    expect(sitesOf([])).toEqual([]);
  });

  it('charts each generation across the runs in order, leaving a gap where a run did not measure it', () => {
    const trend: SiteTrend = {
      site: 'a/s',
      runs: 2,
      generations: {
        'xp-smb1 read file': [
          { id: 7, startedAt: '2026-02-01T00:00:00Z', value: 4 },
          { id: 3, startedAt: '2026-01-01T00:00:00Z', value: 9 },
        ],
        'win10-smb3 read file': [{ id: 7, startedAt: '2026-02-01T00:00:00Z', value: 1 }],
      },
      capacityPeakMbps: [],
      readiness: [],
      changes: [],
    };
    const chart = trendChart(trend);
    expect(chart.data.labels).toEqual(['#3 2026-01-01 00:00', '#7 2026-02-01 00:00']);
    expect(chart.data.datasets.map((dataset) => [dataset.label, dataset.data])).toEqual([
      ['win10-smb3 read file', [null, 1]],
      ['xp-smb1 read file', [9, 4]],
    ]);
  });
});
