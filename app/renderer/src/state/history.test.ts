import { describe, expect, it } from 'vitest';
import type { RunSummary, SiteTrend } from '../../../../src/contract/history.js';
import { generationKeyLabel } from '../../../../src/presentation/test-labels.js';
import { localTimeText, sitesOf, trendChart } from './history.js';

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
    expect(chart.type).toBe('line');
    expect(chart.data.labels).toEqual([`#3 ${localTimeText('2026-01-01T00:00:00Z')}`, `#7 ${localTimeText('2026-02-01T00:00:00Z')}`]);
    expect(chart.data.datasets.map((dataset) => [dataset.label, dataset.data])).toEqual([
      ['Windows 10/11, large file read', [null, 1]],
      ['Windows XP, large file read', [9, 4]],
    ]);
  });

  it('shows a single run as bars, one per generation, in plain names', () => {
    const one = { id: 4, startedAt: '2026-02-01T00:00:00Z' };
    const chart = trendChart({
      site: 'a/s',
      runs: 1,
      generations: { 'win11-24h2 write dirset': [{ ...one, value: 26 }], 'pipefill-max write dirset': [{ ...one, value: 54 }] },
      capacityPeakMbps: [],
      readiness: [],
      changes: [],
    });
    expect(chart.type).toBe('bar');
    expect(chart.data.labels).toEqual(['Best pipeline, small files write', 'Windows 11 24H2, small files write']);
    expect(chart.data.datasets[0]?.data).toEqual([54, 26]);
  });

  it('names generations and times as a person reads them', () => {
    expect(generationKeyLabel('win7-smb1 write file')).toBe('Windows 7 (SMB1), large file write');
    expect(generationKeyLabel('future-client read thing')).toBe('future-client, thing read');
    // A trend's series names its sample size: a --quick run's line is told apart from a default run's.
    expect(generationKeyLabel('win11-24h2 write file file:15MiB')).toBe('Windows 11 24H2, large file write, 15 MiB');
    expect(generationKeyLabel('win11-24h2 read dirset tr3869-dirset:0.033')).toMatch(/^Windows 11 24H2, small files read, 10 files in 1 folder, 35\.\d MB$/);
    // Local time: the page's zone, whatever it is.
    const local = new Date(2026, 10, 24, 18, 2);
    expect(localTimeText(local.toISOString())).toBe('2026-11-24 18:02');
    expect(localTimeText('not a time')).toBe('not a time');
  });
});
