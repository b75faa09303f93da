// A capacity run as the contract carries it, for the exporters' and the CLI's tests: two steps, the model
// beside the first, a person who stopped in the second, and a readiness verdict from the model.

import type { CapacityResult } from '../contract/capacity.js';
import { CapacityResultSchema } from '../contract/capacity.js';

const latency = (p50Ms: number | null, p95Ms: number | null, samples: number) => ({ p50Ms, p95Ms, samples });

export const CAPACITY_FIXTURE: CapacityResult = CapacityResultSchema.parse({
  share: '//branch-fs/data',
  profile: 'win10-smb3',
  server: 'samba',
  op: 'read',
  fileBytes: 64 * 2 ** 20,
  seconds: 10,
  warmupSeconds: 3,
  startedAt: '2026-11-24T12:00:00.000Z',
  negotiated: { dialect: '3.1.1', signing: null, encryption: null },
  link: { mbps: 155, rttMs: 32, bufferBytes: 620_000, method: 'iperf3' },
  idle: { echo: latency(32.1, 32.6, 10), openClose: latency(64.5, 65, 5) },
  steps: [
    {
      users: 1,
      measuredBy: 'tcp',
      seconds: 10,
      aggregateMbps: 140,
      perUser: [{ user: 0, op: 'read', mbps: 140 }],
      minMbps: 140,
      medianMbps: 140,
      maxMbps: 140,
      fairness: 1,
      echo: latency(40, 44, 50),
      openClose: latency(80, 90, 25),
      addedLatencyMs: 7.9,
      expected: { aggregateMbps: 148, perUserMbps: 148, addedLatencyMs: 8.2, limit: 'read: the link is full' },
    },
    {
      users: 2,
      measuredBy: 'tcp',
      seconds: 10,
      aggregateMbps: 146,
      perUser: [
        { user: 0, op: 'read', mbps: 100 },
        { user: 1, op: 'read', mbps: 46, failed: 'The server ended the session (read).' },
      ],
      minMbps: 100,
      medianMbps: 100,
      maxMbps: 100,
      fairness: 1,
      echo: latency(45, 50, 50),
      openClose: latency(90, 95, 25),
      addedLatencyMs: 12.9,
      expected: null,
    },
  ],
  knee: { users: 1, peakUsers: 2, peakMbps: 146, share: 0.5 },
  expectedKnee: { users: 1, peakUsers: 1, peakMbps: 148 },
  readiness: {
    target: { users: 30, perUserMbps: 5, addedLatencyMs: 50 },
    met: false,
    basis: 'modelled',
    text: '30 people copying at once get 4.93 Mb/s each and wait 9 ms more per round trip (the model, ...): not met.',
  },
  failures: [{ user: 1, step: 2, message: 'The server ended the session (read).' }],
});
