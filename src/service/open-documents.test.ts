import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PipefillApi } from '../contract/api.js';
import { apiOverLines, serveApiOverLines } from '../contract/line-transport.js';
import type { LineServer } from '../contract/line-transport.js';
import { MAX_OPEN_DOCUMENTS, MAX_OPEN_DOCUMENTS_BYTES } from '../contract/open-documents.js';
import type { Report } from '../contract/report.js';
import { MAX_REPORT_BYTES, ReportSchema } from '../contract/report.js';
import { CAPACITY_FIXTURE } from '../test-support/capacity-fixture.js';
import { createLocalApi } from './local-api.js';

const report = (): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-155mbit-32ms.json', import.meta.url), 'utf8')));
const newApi = () => createLocalApi({ settingsFile: '/nonexistent/pipefill-settings.json' });

/** A report grown to about `bytes` of JSON by a longer timeline, as a long --full run's would be. */
function reportOfSize(bytes: number, startedAt: string): Report {
  const base = report();
  const copy = base.copyTests[0];
  if (!copy) throw new Error('the fixture has no copy');
  const point = copy.timeline[0] ?? { tMs: 0, bytes: 0, ops: 0 };
  const pointBytes = JSON.stringify(point).length + 1;
  const timeline = Array.from({ length: Math.ceil(bytes / pointBytes) }, (_, index) => ({ ...point, tMs: index * 100 }));
  return { ...base, startedAt, copyTests: [{ ...copy, timeline }, ...base.copyTests.slice(1)] };
}

/** The service as `service --stdio` serves it: the contract over lines, both halves joined. */
function overLines(api: PipefillApi): PipefillApi {
  const holder: { server?: LineServer } = {};
  const client = apiOverLines((line) => queueMicrotask(() => holder.server?.receive(line)));
  holder.server = serveApiOverLines(api, (line) => queueMicrotask(() => client.receive(line)));
  return client.api;
}

describe('the documents the views have open, kept by the services', () => {
  it('lists them by id, once each, with the shown report and capacity run; each is fetched alone', async () => {
    const api = newApi();
    await expect(api.openDocuments({})).resolves.toEqual({ entries: [], shownReport: null, shownCapacity: null });
    const first = report();
    const second = { ...first, startedAt: '2026-11-26T08:00:00.000Z' };
    await api.openDocumentsAdd({ document: first });
    await api.openDocumentsAdd({ document: second, show: true });
    // The same document again counts once, and keeps its id.
    await expect(api.openDocumentsAdd({ document: first })).resolves.toEqual({ open: 2 });
    await api.openDocumentsAdd({ document: CAPACITY_FIXTURE, show: true });
    const open = await api.openDocuments({});
    expect(open.entries.map((entry) => [entry.kind, entry.startedAt])).toEqual([
      ['assessment', second.startedAt],
      ['assessment', first.startedAt],
      ['capacity', CAPACITY_FIXTURE.startedAt],
    ]);
    expect(open.shownReport).toBe(open.entries[0]?.id);
    expect(open.shownCapacity).toBe(open.entries[2]?.id);
    expect(await api.openDocument({ id: open.entries[0]?.id ?? '' })).toEqual({ report: second });
    expect(await api.openDocument({ id: open.entries[2]?.id ?? '' })).toEqual({ capacity: CAPACITY_FIXTURE });
    await expect(api.openDocument({ id: 'open-999' })).rejects.toThrow(/No document open-999 is open any more/);
  });

  it('refuses what is not a report, and keeps no more than the bound', async () => {
    const api = newApi();
    await expect(api.openDocumentsAdd({ document: { hello: 'world' } })).rejects.toThrow(/not a Pipefill report or capacity run/);
    const base = report();
    for (let i = 0; i < MAX_OPEN_DOCUMENTS + 5; i++)
      await api.openDocumentsAdd({ document: { ...base, startedAt: `2026-11-26T08:${String(i).padStart(2, '0')}:00.000Z` }, show: i === 0 });
    const open = await api.openDocuments({});
    expect(open.entries).toHaveLength(MAX_OPEN_DOCUMENTS);
    expect(open.entries[0]?.startedAt).toBe('2026-11-26T08:05:00.000Z');
    // The shown one dropped off: nothing is shown rather than a report that is no longer open.
    expect(open.shownReport).toBeNull();
  });

  it('is bounded by bytes on every transport: a document over 16 MiB is refused over stdio too, and the whole stays under its bound', async () => {
    const api = overLines(newApi());
    // 19.8 MB, as the issue sent over `service --stdio` (the web host's request cap was the only one).
    await expect(api.openDocumentsAdd({ document: reportOfSize(19.8e6, '2026-11-26T09:00:00.000Z') })).rejects.toThrow(/more than a view keeps open/);
    // Ten of 12 MB each: only what fits in the bound stays, the newest.
    const documents = Array.from({ length: 10 }, (_, i) => reportOfSize(12e6, `2026-11-26T10:0${i}:00.000Z`));
    const size = Buffer.byteLength(JSON.stringify(documents[0]));
    for (const document of documents) await api.openDocumentsAdd({ document });
    const open = await api.openDocuments({});
    expect(open.entries.length).toBe(Math.floor(MAX_OPEN_DOCUMENTS_BYTES / size));
    expect(open.entries.at(-1)?.startedAt).toBe('2026-11-26T10:09:00.000Z');
    // The list is small whatever is kept; each document comes alone, under the line limit.
    expect(JSON.stringify(open).length).toBeLessThan(4096);
    const one = await api.openDocument({ id: open.entries.at(-1)?.id ?? '' });
    expect(JSON.stringify(one).length).toBeLessThan(MAX_REPORT_BYTES);
  }, 60_000);
});
