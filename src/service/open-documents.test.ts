import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_OPEN_DOCUMENTS } from '../contract/open-documents.js';
import type { Report } from '../contract/report.js';
import { ReportSchema } from '../contract/report.js';
import { CAPACITY_FIXTURE } from '../test-support/capacity-fixture.js';
import { createLocalApi } from './local-api.js';

const report = (): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-155mbit-32ms.json', import.meta.url), 'utf8')));

describe('the documents the views have open, kept by the services', () => {
  it('gives back what was added, once each, with the shown report and capacity run', async () => {
    const api = createLocalApi({ settingsFile: '/nonexistent/pipefill-settings.json' });
    await expect(api.openDocuments({})).resolves.toEqual({ reports: [], capacityRuns: [], shownReport: null, shownCapacity: null });
    const first = report();
    const second = { ...first, startedAt: '2026-11-26T08:00:00.000Z' };
    await api.openDocumentsAdd({ document: first });
    await api.openDocumentsAdd({ document: second, show: true });
    // The same document again counts once.
    await expect(api.openDocumentsAdd({ document: first })).resolves.toEqual({ open: 2 });
    await api.openDocumentsAdd({ document: CAPACITY_FIXTURE, show: true });
    const open = await api.openDocuments({});
    expect(open.reports.map((r) => r.startedAt)).toEqual([second.startedAt, first.startedAt]);
    expect(open.shownReport).toEqual({ share: second.target.share, startedAt: second.startedAt });
    expect(open.capacityRuns).toHaveLength(1);
    expect(open.shownCapacity).toEqual({ share: CAPACITY_FIXTURE.share, startedAt: CAPACITY_FIXTURE.startedAt });
  });

  it('refuses what is not a report, and keeps no more than the bound', async () => {
    const api = createLocalApi({ settingsFile: '/nonexistent/pipefill-settings.json' });
    await expect(api.openDocumentsAdd({ document: { hello: 'world' } })).rejects.toThrow(/not a Pipefill report or capacity run/);
    const base = report();
    for (let i = 0; i < MAX_OPEN_DOCUMENTS + 5; i++)
      await api.openDocumentsAdd({ document: { ...base, startedAt: `2026-11-26T08:${String(i).padStart(2, '0')}:00.000Z` }, show: i === 0 });
    const open = await api.openDocuments({});
    expect(open.reports).toHaveLength(MAX_OPEN_DOCUMENTS);
    expect(open.reports[0]?.startedAt).toBe('2026-11-26T08:05:00.000Z');
    // The shown one dropped off: nothing is shown rather than a report that is no longer open.
    expect(open.shownReport).toBeNull();
  });
});
