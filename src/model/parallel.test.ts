import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from './client-profiles.js';
import { parallelSeconds } from './parallel.js';
import { predictTransfer } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';
import { parseWorkload } from './workloads.js';

const client = CLIENT_PROFILES['win10-smb3'];
const server = SERVER_PROFILES.win2012plus;
const dirset = parseWorkload('tr3869-dirset');

describe('parallelSeconds', () => {
  it('is the plain prediction with one lane', () => {
    const link = { bandwidthBitsPerSecond: 100e6, rttMs: 75 };
    expect(parallelSeconds(client, server, 'write', dirset, link, 1)).toBe(predictTransfer(client, server, 'write', dirset, link).seconds);
  });

  it('overlaps round trips across lanes on a long link, down to the wire time', () => {
    const link = { bandwidthBitsPerSecond: 100e6, rttMs: 75 };
    const one = parallelSeconds(client, server, 'write', dirset, link, 1);
    const eight = parallelSeconds(client, server, 'write', dirset, link, 8);
    const many = parallelSeconds(client, server, 'write', dirset, link, 128);
    expect(eight).toBeLessThan(one / 2);
    expect(many).toBeLessThanOrEqual(eight);
    expect(many).toBeGreaterThanOrEqual((dirset.totalBytes * 8) / 100e6);
  });

  it('does not help a single file', () => {
    const link = { bandwidthBitsPerSecond: 100e6, rttMs: 75 };
    const file = parseWorkload('file:100MB');
    expect(parallelSeconds(client, server, 'read', file, link, 8)).toBe(predictTransfer(client, server, 'read', file, link).seconds);
  });
});
