import { describe, expect, it } from 'vitest';
import type { CapacityResult } from '../../contract/capacity.js';
import { CapacityInputSchema, CapacityResultSchema } from '../../contract/capacity.js';
import { runCli } from '../main.js';
import { formatCapacity, parseClients, parseTarget } from './capacity.js';

const latency = (p50Ms: number | null, p95Ms: number | null, samples: number) => ({ p50Ms, p95Ms, samples });

const result: CapacityResult = CapacityResultSchema.parse({
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
    { users: 1, measuredBy: 'tcp', seconds: 10, aggregateMbps: 140, perUser: [{ user: 0, op: 'read', mbps: 140 }], minMbps: 140, medianMbps: 140, maxMbps: 140, fairness: 1, echo: latency(40, 44, 50), openClose: latency(80, 90, 25), addedLatencyMs: 7.9, expected: { aggregateMbps: 148, perUserMbps: 148, addedLatencyMs: 8.2, limit: 'read: the link is full' } },
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
  readiness: { target: { users: 30, perUserMbps: 5, addedLatencyMs: 50 }, met: false, basis: 'modelled', text: '30 people copying at once get 4.93 Mb/s each and wait 9 ms more per round trip (the model, ...): not met.' },
  failures: [{ user: 1, step: 2, message: 'The server ended the session (read).' }],
});

describe('pipefill capacity', () => {
  it('reads its steps and its target', () => {
    expect(parseClients('1, 2,4,8')).toEqual([1, 2, 4, 8]);
    expect(() => parseClients('1,two')).toThrow(/whole numbers/);
    expect(() => parseClients('1,-2')).toThrow(/whole numbers/);
    expect(parseTarget('30,5,50')).toEqual({ users: 30, perUserMbps: 5, addedLatencyMs: 50 });
    expect(() => parseTarget('30,5')).toThrow(/USERS,MBPS,MS/);
    expect(() => parseTarget('30,five,50')).toThrow(/not a number/);
  });

  it('refuses steps that do not rise, too many people, and an unknown profile before asking for a password', async () => {
    expect(CapacityInputSchema.safeParse({ share: '//s/x', user: 'u', password: '', clients: [4, 2] }).success).toBe(false);
    expect(CapacityInputSchema.safeParse({ share: '//s/x', user: 'u', password: '', clients: [1, 65] }).success).toBe(false);
    const errors: string[] = [];
    const output = { out: () => undefined, err: (text: string) => errors.push(text) };
    expect(await runCli(['capacity', '--share', '//s/x', '--user', 'u', '--clients', '8,4'], output)).toBe(2);
    expect(errors.join('\n')).toMatch(/must rise/);
    expect(await runCli(['capacity', '--share', '//s/x', '--user', 'u', '--profile', 'win95'], output)).toBe(2);
  });

  it('prints every step beside the model, the knee, the verdict and who failed', () => {
    const text = formatCapacity(result);
    expect(text).toMatch(/path 155 Mb\/s \(iperf3\), 32\.0 ms/);
    expect(text).toMatch(/^1\s+140\s+148\s+140 \/ 140 \/ 140\s+1\.00\s+40\.0 \/ 44\.0\s+7\.9 \(8\.2\)/m);
    expect(text).toMatch(/^2\s+146\s+-\s/m);
    expect(text).toContain('knee at 1 person; peak 146 Mb/s at 2 people; the model: knee at 1 person, peak 148 Mb/s at 1 person.');
    expect(text).toContain('30 people copying at once get 4.93 Mb/s each');
    expect(text).toContain('person 2 stopped during the step of 2 people: The server ended the session (read).');
    expect(text).not.toContain('completed SMB requests');
  });
});
