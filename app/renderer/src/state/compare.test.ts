import { describe, expect, it } from 'vitest';
import { CAPACITY_FIXTURE } from '../../../../src/test-support/capacity-fixture.js';
import type { Report } from '../../../../src/contract/report.js';
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
  /** A report of `share` for `client` at `startedAt`, with a finding for its small-files write (the fields Reports reads). */
  const reportOf = (share: string, client: Report['options']['client'], startedAt: string): Report =>
    ({
      startedAt,
      target: { share, user: 'u' },
      options: { profiles: [client, 'pipefill-max'], client, server: 'samba', quick: false, fileBytes: 1 << 20, dirsetScale: 0.01 },
      probes: { rtt: { medianMs: 40 }, bandwidth: { mbps: 96 } },
      copyTests: [],
      diagnosis: {
        headline: '',
        findings: [{ profile: client, op: 'write', workload: 'tr3869-dirset:0.01', measuredSeconds: 11, limitedBy: 'round-trips' }],
      },
    }) as unknown as Report;

  it("shows the newest report's own client, so its row has a time", () => {
    const older = reportOf('//fs01/a', 'win10-smb3', '2026-11-26T10:00:00.000Z');
    const newest = reportOf('//fs01/b', 'win11-24h2', '2026-11-27T10:00:00.000Z');
    const start = reportsStart([older, newest]);
    expect(start).toEqual({ profile: 'win11-24h2', target: 'dirset<5min@win11-24h2' });
    expect(siteRows([newest], start.profile, 'write', 'dirset')[0]?.seconds).toBe(11);
    // The default win10-smb3 found no such copy in it: "not tested".
    expect(siteRows([newest], 'win10-smb3', 'write', 'dirset')[0]?.seconds).toBeUndefined();
  });

  it('opens on the default client with nothing open', () => {
    expect(reportsStart([]).profile).toBe('win11-24h2');
  });
});
