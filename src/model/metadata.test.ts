import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from './client-profiles.js';
import type { MetadataSequences } from './metadata.js';
import { roundTripsBeforeData, roundTripsPerFile } from './metadata.js';

describe('roundTripsBeforeData', () => {
  it("counts a sequence's steps before the data handle's first flush or close", () => {
    const sequences: MetadataSequences = {
      readPerFile: [['create', 'query-info'], ['query-info'], ['close']],
      writePerFile: [['create', 'query-info'], ['create'], ['set-info'], ['flush'], ['set-info'], ['close']],
      readPerDirectory: [],
      writePerDirectory: [],
    };
    expect(roundTripsBeforeData(sequences, 'read')).toBe(2);
    expect(roundTripsBeforeData(sequences, 'write')).toBe(3);
  });

  it("gives each generation's opening round trips, fewer than its whole sequence", () => {
    const before = (id: keyof typeof CLIENT_PROFILES, op: 'read' | 'write') => roundTripsBeforeData(CLIENT_PROFILES[id].metadata, op);
    // Robocopy over SMB1 reads seven infos and opens before a byte moves; writes probe, create and size first.
    expect([before('xp-smb1', 'read'), before('xp-smb1', 'write')]).toEqual([8, 7]);
    expect([before('win7-smb2', 'read'), before('win7-smb2', 'write')]).toEqual([2, 6]);
    expect([before('pipefill-max', 'read'), before('pipefill-max', 'write')]).toEqual([1, 1]);
    for (const profile of Object.values(CLIENT_PROFILES)) {
      for (const op of ['read', 'write'] as const) expect(before(profile.id, op)).toBeLessThan(roundTripsPerFile(profile.metadata, op));
    }
  });

  it('counts every step when nothing closes (no data handle to move the data through)', () => {
    const sequences: MetadataSequences = { readPerFile: [['query-info'], ['query-info']], writePerFile: [], readPerDirectory: [], writePerDirectory: [] };
    expect(roundTripsBeforeData(sequences, 'read')).toBe(2);
    expect(roundTripsBeforeData(sequences, 'write')).toBe(0);
  });
});
