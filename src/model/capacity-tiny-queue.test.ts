import { describe, expect, it } from 'vitest';
import { expectedCapacity, MIN_SIMULATED_COUNT_SECONDS } from './capacity.js';
import { simulatedTimes } from './shared-queue-sim.js';
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

describe('a line so fast that the simulated count is shorter than a few timeouts', () => {
  // Loopback as the suite's capacity run can probe it: 26.3 Gb/s and 0.019 ms give a one-BDP queue of 63 KB, one
  // XP reply. The packet-level run of two people could afford 35 ms of counting there, less than one 200 ms
  // retransmission timeout, and both people sat in one through it.
  const loopback = { bandwidthBitsPerSecond: 26.33e9, rttMs: 0.0192 };
  it('never expects two people to move nothing', () => {
    const expected = expectedCapacity({
      client: CLIENT_PROFILES['xp-smb1'],
      server: SERVER_PROFILES.samba,
      op: 'read',
      link: loopback,
      users: 2,
      fileBytes: 1024 * 1024,
      schedule: { steps: [1, 2], warmupSeconds: 0.3, measureSeconds: 1 },
    });
    expect(expected.aggregateBitsPerSecond).toBeGreaterThan(0);
  });
  it('answers from the packet-level run only where its count spans five shortest timeouts', () => {
    const times = simulatedTimes({
      steps: [1, 2],
      lineBitsPerSecond: loopback.bandwidthBitsPerSecond,
      segmentBytes: 1448,
      packetOverheadBytes: 66,
      warmupSeconds: 0.3,
      measureSeconds: 1,
    });
    expect(times.measureSeconds).toBeLessThan(MIN_SIMULATED_COUNT_SECONDS);
    // The WAN lab's capacity cell (155 Mb/s; 1, 4 and 16 people; 5 s warm-up, 8 s counted) is simulated.
    const lab = simulatedTimes({
      steps: [1, 4, 16],
      lineBitsPerSecond: 155e6,
      segmentBytes: 1448,
      packetOverheadBytes: 66,
      warmupSeconds: 5,
      measureSeconds: 8,
    });
    expect(lab.measureSeconds).toBeGreaterThanOrEqual(MIN_SIMULATED_COUNT_SECONDS);
  });
});
