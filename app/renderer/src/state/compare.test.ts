import { describe, expect, it } from 'vitest';
import { CAPACITY_FIXTURE } from '../../../../src/test-support/capacity-fixture.js';
import { readFileSync } from 'node:fs';
import type { Report } from '../../../../src/contract/report.js';
import { ReportSchema } from '../../../../src/contract/report.js';
import { mergeCapacityRuns, openedDocument, reportsStart, siteRows } from './compare.js';

// Sites with capacity runs on their rows: compareSites in src/report/report.test.ts, and the e2e's Reports step.
describe('the Reports view: reports and capacity runs', () => {
  it('opens a capacity run as one, and says what is wrong with a file that is neither', () => {
    const capacity = openedDocument(JSON.stringify(CAPACITY_FIXTURE), 'run.json');
    expect('capacity' in capacity && capacity.capacity.share).toBe(CAPACITY_FIXTURE.share);
    expect(() => openedDocument('{"knee": {}, "steps": "many"}', 'odd.json')).toThrow(/capacity run odd\.json/);
    expect(() => openedDocument('{"target": {}}', 'half.json')).toThrow(/report half\.json/);
    expect(() => openedDocument('not json', 'text.json')).toThrow(/text\.json is not JSON/);
  });

  it('counts a capacity run opened twice once', () => {
    const later = { ...CAPACITY_FIXTURE, startedAt: '2026-11-25T08:00:00.000Z' };
    expect(mergeCapacityRuns(mergeCapacityRuns([], [CAPACITY_FIXTURE]), [CAPACITY_FIXTURE, later])).toEqual([CAPACITY_FIXTURE, later]);
  });
});

describe('what Reports opens on (issue 48: "Time: not tested" for the share just tested)', () => {
  const fixture = (name: string): Report =>
    ReportSchema.parse(JSON.parse(readFileSync(new URL(`../../../../src/report/fixtures/${name}.json`, import.meta.url), 'utf8')));

  it("shows the newest report's own client, so its row has a time", () => {
    const older = fixture('lab-52mbit-75ms');
    const newest = { ...fixture('lab-100mbit-40ms-credits16'), startedAt: '2099-01-01T00:00:00.000Z' };
    const start = reportsStart([newest, older]);
    expect(start.profile).toBe(newest.options.client ?? 'win11-24h2');
    expect(start.target).toBe(`dirset<5min@${start.profile}`);
    const row = siteRows([newest], start.profile, 'write', 'dirset')[0];
    expect(row?.seconds).toBeGreaterThan(0);
  });

  it('opens on the default client with nothing open', () => {
    expect(reportsStart([]).profile).toBe('win11-24h2');
  });
});
