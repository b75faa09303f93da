import { describe, expect, it } from 'vitest';
import { expectedCapacity } from './capacity.js';
import { CLIENT_PROFILES } from './client-profiles.js';
import { SERVER_PROFILES } from './server-profiles.js';

describe('a queue smaller than one reply', () => {
  // Loopback as a capacity run probed it: 7.9 Gb/s, 0.031 ms, a one-BDP queue of 30 KB beside XP's 61 KB replies.
  it('never expects one person alone to move nothing', () => {
    for (const bufferBytes of [30_695, 64_893]) {
      const expected = expectedCapacity({
        client: CLIENT_PROFILES['xp-smb1'],
        server: SERVER_PROFILES.samba,
        op: 'read',
        link: { bandwidthBitsPerSecond: 7877.78e6, rttMs: 0.0311715, bufferBytes },
        users: 1,
        fileBytes: 1024 * 1024,
        schedule: { steps: [1, 2], warmupSeconds: 0.3, measureSeconds: 1 },
      });
      expect(expected.aggregateBitsPerSecond, `queue of ${bufferBytes} bytes`).toBeGreaterThan(0);
    }
  });
});
