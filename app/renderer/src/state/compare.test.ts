import { describe, expect, it } from 'vitest';
import { CAPACITY_FIXTURE } from '../../../../src/test-support/capacity-fixture.js';
import { mergeCapacityRuns, openedDocument } from './compare.js';

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
