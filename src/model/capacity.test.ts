import { describe, expect, it } from 'vitest';
import { expectedCapacity, jainFairness, kneeAndPeak, percentile, splitUsers } from './capacity.js';
import { CLIENT_PROFILES } from './client-profiles.js';
import { meanQueueBytes } from './congestion.js';
import { bdpBytes } from './link.js';
import { SERVER_PROFILES } from './server-profiles.js';

describe('jainFairness', () => {
  it('is 1 when everyone gets the same and 1/n when one person gets everything', () => {
    expect(jainFairness([5, 5, 5, 5])).toBeCloseTo(1, 12);
    expect(jainFairness([8, 0, 0, 0])).toBeCloseTo(0.25, 12);
    // (1 + 3)^2 / (2 x (1 + 9)) = 0.8
    expect(jainFairness([1, 3])).toBeCloseTo(0.8, 12);
    expect(jainFairness([0, 0])).toBe(1);
  });

  it('refuses no rates, negative ones and non-numbers', () => {
    expect(() => jainFairness([])).toThrow(/at least one/);
    expect(() => jainFairness([1, -1])).toThrow(/not negative/);
    expect(() => jainFairness([1, Number.NaN])).toThrow(/finite/);
  });
});

describe('kneeAndPeak', () => {
  it('puts the knee at the last step before one more person adds less than half of what the first one got', () => {
    const curve = [
      { users: 8, aggregateBitsPerSecond: 50 },
      { users: 1, aggregateBitsPerSecond: 10 },
      { users: 2, aggregateBitsPerSecond: 20 },
      { users: 4, aggregateBitsPerSecond: 40 },
      { users: 16, aggregateBitsPerSecond: 52 },
    ];
    // 4 -> 8 adds 2.5 a person, under 5 (half of the first step's 10).
    expect(kneeAndPeak(curve)).toEqual({ kneeUsers: 4, peakUsers: 16, peakBitsPerSecond: 52 });
    // With a share of a fifth, 2.5 still counts (>= 2): the knee moves to 8 (8 -> 16 adds 0.25).
    expect(kneeAndPeak(curve, 0.2).kneeUsers).toBe(8);
  });

  it('finds a peak before the end of a falling curve, and says when there is no knee yet', () => {
    expect(
      kneeAndPeak([
        { users: 1, aggregateBitsPerSecond: 10 },
        { users: 2, aggregateBitsPerSecond: 30 },
        { users: 4, aggregateBitsPerSecond: 25 },
      ]),
    ).toEqual({ kneeUsers: 2, peakUsers: 2, peakBitsPerSecond: 30 });
    expect(
      kneeAndPeak([
        { users: 1, aggregateBitsPerSecond: 10 },
        { users: 3, aggregateBitsPerSecond: 30 },
      ]).kneeUsers,
    ).toBeUndefined();
    expect(kneeAndPeak([{ users: 4, aggregateBitsPerSecond: 10 }])).toEqual({ kneeUsers: undefined, peakUsers: 4, peakBitsPerSecond: 10 });
  });

  it('refuses an empty curve, a repeated step and a share outside (0, 1]', () => {
    expect(() => kneeAndPeak([])).toThrow(/at least one/);
    expect(() =>
      kneeAndPeak([
        { users: 2, aggregateBitsPerSecond: 1 },
        { users: 2, aggregateBitsPerSecond: 2 },
      ]),
    ).toThrow(/Two steps/);
    expect(() => kneeAndPeak([{ users: 1, aggregateBitsPerSecond: 1 }], 0)).toThrow(/share/);
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const samples = Array.from({ length: 20 }, (_, index) => 20 - index);
    expect(percentile(samples, 50)).toBe(10);
    expect(percentile(samples, 95)).toBe(19);
    expect(percentile(samples, 100)).toBe(20);
    expect(percentile([7], 95)).toBe(7);
    expect(() => percentile([], 50)).toThrow(/No samples/);
  });
});

describe('meanQueueBytes', () => {
  const base = { bdpBytes: 250_000, segmentBytes: 1448, rttMs: 20 };

  it('averages what loss-based windows hold beyond the BDP over a cycle: between nothing and the buffer', () => {
    // Reno at one BDP of buffer: the window climbs from P to 2P, so the queue from empty to full.
    const reno = meanQueueBytes({ ...base, congestion: 'reno', bufferBytes: 250_000 });
    expect(reno).toBeGreaterThan(0.4 * 250_000);
    expect(reno).toBeLessThan(0.7 * 250_000);
    // CUBIC backs off less and lingers near its last peak: more queued on average.
    expect(meanQueueBytes({ ...base, congestion: 'cubic', bufferBytes: 250_000 })).toBeGreaterThan(reno);
    // A shallow queue empties for part of each cycle.
    const shallow = meanQueueBytes({ ...base, congestion: 'cubic', bufferBytes: 31_250 });
    expect(shallow).toBeGreaterThan(0);
    expect(shallow).toBeLessThan(31_250 / 2);
  });

  it('bounds BBR by its cwnd gain: a BDP, or the buffer if smaller', () => {
    expect(meanQueueBytes({ ...base, congestion: 'bbr', bufferBytes: 1_000_000 })).toBeCloseTo(250_000, 6);
    expect(meanQueueBytes({ ...base, congestion: 'bbr', bufferBytes: 31_250 })).toBeCloseTo(31_250, 6);
  });
});

describe('expectedCapacity', () => {
  const link155 = { bandwidthBitsPerSecond: 155e6, rttMs: 32 };
  const win7 = CLIENT_PROFILES['win7-smb2'];
  const samba = SERVER_PROFILES.samba;

  it("adds people's rates until the line is full, and never passes it", () => {
    const curve = [1, 2, 4, 8, 16, 32].map((users) =>
      expectedCapacity({ client: CLIENT_PROFILES['xp-smb1'], server: samba, op: 'read', link: link155, users, fileBytes: 64 * 2 ** 20 }),
    );
    const alone = curve[0]?.directions[0]?.aloneBitsPerSecond ?? 0;
    expect(curve[0]?.aggregateBitsPerSecond).toBeCloseTo(alone, 6);
    for (const [index, point] of curve.entries()) {
      expect(point.aggregateBitsPerSecond).toBeLessThanOrEqual(155e6);
      expect(point.perUserBitsPerSecond).toBeCloseTo(point.aggregateBitsPerSecond / point.users, 6);
      if (index > 0) expect(point.aggregateBitsPerSecond).toBeGreaterThanOrEqual((curve[index - 1]?.aggregateBitsPerSecond ?? 0) * 0.999);
    }
    // XP's one 60 KB read at a time cannot fill 155 Mb/s x 32 ms alone (~15 Mb/s); 32 of them do.
    expect(curve[0]?.directions[0]?.limit.kind).toBe('per-user');
    expect(curve[5]?.directions[0]?.limit.kind).not.toBe('per-user');
  });

  it('stands what does not fit in the pipe in the queue, and adds its wait to every round trip', () => {
    // Each reader holds at most a 64 KiB receive window: four hold 262,144 bytes against a 250,000-byte BDP.
    const small = { ...win7, tcp: { ...win7.tcp, receiveWindowBytes: 64 * 1024 } };
    const link = { bandwidthBitsPerSecond: 100e6, rttMs: 20 };
    const three = expectedCapacity({ client: small, server: samba, op: 'read', link, users: 3, fileBytes: 64 * 2 ** 20 });
    expect(three.addedDelayMs).toBe(0);
    const four = expectedCapacity({ client: small, server: samba, op: 'read', link, users: 4, fileBytes: 64 * 2 ** 20 });
    expect(four.directions[0]?.limit).toEqual({ kind: 'line' });
    expect(four.directions[0]?.queueBytes).toBeCloseTo(4 * 65_536 - bdpBytes(link), 6);
    expect(four.addedDelayMs).toBeCloseTo(((4 * 65_536 - 250_000) / 12.5e6) * 1000, 6);
  });

  it('holds loss-based senders below the line at a shallow queue and keeps the queue within the buffer', () => {
    const link = { bandwidthBitsPerSecond: 52e6, rttMs: 75, bufferBytes: bdpBytes({ bandwidthBitsPerSecond: 52e6, rttMs: 75 }) / 4 };
    const one = expectedCapacity({ client: CLIENT_PROFILES['pipefill-max'], server: samba, op: 'read', link, users: 1, fileBytes: 64 * 2 ** 20 });
    const sixteen = expectedCapacity({ client: CLIENT_PROFILES['pipefill-max'], server: samba, op: 'read', link, users: 16, fileBytes: 64 * 2 ** 20 });
    expect(one.directions[0]?.limit).toEqual({ kind: 'bottleneck-queue' });
    // Sixteen flows back off a sixteenth of the aggregate per loss: the line stays fuller than with one.
    expect(sixteen.aggregateBitsPerSecond).toBeGreaterThan(one.aggregateBitsPerSecond);
    expect(sixteen.aggregateBitsPerSecond).toBeLessThanOrEqual(52e6);
    expect(sixteen.addedDelayMs).toBeGreaterThan(one.addedDelayMs);
    expect(sixteen.addedDelayMs).toBeLessThanOrEqual(((link.bufferBytes ?? 0) / 6.5e6) * 1000);
  });

  it('splits mixed load into readers and writers, sums their directions and both queues', () => {
    expect(splitUsers('mixed', 3)).toEqual({ read: 2, write: 1 });
    const mixed = expectedCapacity({ client: win7, server: samba, op: 'mixed', link: link155, users: 3, fileBytes: 64 * 2 ** 20 });
    expect(mixed.directions.map((direction) => [direction.op, direction.users])).toEqual([
      ['read', 2],
      ['write', 1],
    ]);
    expect(mixed.aggregateBitsPerSecond).toBeCloseTo(
      mixed.directions.reduce((sum, direction) => sum + direction.aggregateBitsPerSecond, 0),
      6,
    );
  });

  it('refuses a count of people it cannot run and a file of no size', () => {
    const input = { client: win7, server: samba, op: 'read' as const, link: link155, fileBytes: 1 };
    for (const users of [0, 1.5, 10_001, Number.NaN]) expect(() => expectedCapacity({ ...input, users })).toThrow(/users must be/);
    expect(() => expectedCapacity({ ...input, users: 1, fileBytes: 0 })).toThrow(/fileBytes/);
  });
});

describe("expectedCapacity where people's bursts meet in a shallow queue", () => {
  const samba = SERVER_PROFILES.samba;
  // XP's reads as Pipefill's engine drives them in a capacity run: one 60 KB read, one round trip (XP's own 1.56 is its client's habit).
  const xp = { ...CLIENT_PROFILES['xp-smb1'], roundTripsPerRequest: { read: 1, write: 1 } };
  // The capacity lab's second link: 52 Mb/s, 75 ms, a queue of a quarter BDP (81 packets against XP's 43-segment replies).
  const quarter = { bandwidthBitsPerSecond: 52e6, rttMs: 75, bufferBytes: Math.round((52e6 / 8) * 0.075 * 0.25) };
  const schedule = { steps: [1, 4, 16], warmupSeconds: 5, measureSeconds: 8 };
  const at = (users: number, extra: object = {}) =>
    expectedCapacity({ client: xp, server: samba, op: 'read', link: quarter, users, fileBytes: 8 * 2 ** 20, schedule, ...extra });

  it('gives one person, whose reply fits the queue, what their pipeline allows', () => {
    const one = at(1);
    expect(one.directions[0]?.limit).toEqual({ kind: 'per-user', layer: 'copy-pipeline' });
    expect(one.aggregateBitsPerSecond).toBeCloseTo(one.directions[0]?.aloneBitsPerSecond ?? 0, 6);
  });

  it('gives four people who join together less than four times one: some start in step with a burst and work on with less than a reply of window', () => {
    const one = at(1).aggregateBitsPerSecond;
    const four = at(4);
    expect(four.directions[0]?.limit).toEqual({ kind: 'bursts' });
    // Who lands in step is chance: runs stray from the mean, and the model says by how much.
    expect(four.runToRunBitsPerSecond).toBeGreaterThan(0);
    expect(at(1).runToRunBitsPerSecond).toBe(0);
    expect(four.aggregateBitsPerSecond).toBeLessThan(0.9 * 4 * one);
    expect(four.aggregateBitsPerSecond).toBeGreaterThan(2 * one);
  });

  it('keeps sixteen people under the line, with a typical wait under what the queue holds', () => {
    const sixteen = at(16);
    expect(sixteen.directions[0]?.limit).toEqual({ kind: 'bursts' });
    expect(sixteen.aggregateBitsPerSecond).toBeLessThan(0.9 * 52e6);
    expect(sixteen.addedDelayMs).toBeGreaterThan(0);
    expect(sixteen.addedDelayMs).toBeLessThan((quarter.bufferBytes / (52e6 / 8)) * 1000);
  });

  it('answers the same for the same question, and for a count the schedule lacks brings everyone at once', () => {
    expect(at(4)).toEqual(at(4));
    const alone = at(8);
    expect(alone.users).toBe(8);
    expect(alone.directions[0]?.limit.kind).toBe('bursts');
  });

  it('leaves senders that pace (BBR) and people held by their TCP window to the cycle model', () => {
    const paced = at(16, { server: { ...samba, tcp: { ...samba.tcp, congestion: 'bbr' } } });
    expect(paced.directions[0]?.limit.kind).not.toBe('bursts');
    const win7 = CLIENT_PROFILES['win7-smb2'];
    const windowed = { ...win7, tcp: { ...win7.tcp, receiveWindowBytes: 64 * 1024 } };
    const held = at(16, { client: windowed });
    expect(held.directions[0]?.limit.kind).not.toBe('bursts');
  });

  it("splits a mixed run's steps between readers and writers", () => {
    const mixed = at(16, { op: 'mixed' });
    expect(mixed.directions.map((direction) => [direction.op, direction.users])).toEqual([
      ['read', 8],
      ['write', 8],
    ]);
  });
});
