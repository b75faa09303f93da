// The line where the path loses packets (issue 52): after the copies, where
// the run's writes found the path itself losing packets, iperf3's test runs
// again on several streams, against a real iperf3 server on loopback; never
// where they did not, or without iperf3.

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopyTestResult } from '../contract/copy-test.js';
import type { ProbeResult } from '../contract/probe.js';
import { freePort } from '../lab/samba.js';
import { BudgetKeeper } from './budget-keeper.js';
import { LINE_STREAMS, lineSecondsToHold, lineTestWanted, pathLostPackets, withLineUnderLoss } from './line-under-loss.js';
import type { RunSetup } from './run-phases.js';

const write = (tcp: Record<string, number>): CopyTestResult =>
  ({ profile: 'win11-24h2', op: 'write', workload: 'file:8MiB', bytes: 8 * 2 ** 20, seconds: 2, tcp }) as unknown as CopyTestResult;
/** 1% of 8 MiB lost with no queue behind it: 58 packets, the path's. */
const LOSSY = [write({ lossOnPathFraction: 0.01, lossAtQueueFraction: 0, retransmittedFraction: 0.01 })];
/** The same share lost at the copy's own queue: TCP finding the line, not a lossy path. */
const OWN_QUEUE = [write({ lossOnPathFraction: 0, lossAtQueueFraction: 0.01, retransmittedFraction: 0.01, peakQueueMs: 30 })];

const probes = {
  rtt: { medianMs: 0.1, tcp: { medianMs: 0.1 } },
  bandwidth: { mbps: 3.1, method: 'iperf3', direction: 'download', seconds: 2 },
} as unknown as ProbeResult;

describe('the line again on several streams, where the path loses packets', () => {
  let server: ChildProcess | undefined;
  let setup: RunSetup;
  beforeAll(async () => {
    const port = await freePort();
    server = spawn('iperf3', ['-s', '-B', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    setup = { iperf: { host: '127.0.0.1', port }, onThisMachine: false, signal: undefined } as unknown as RunSetup;
  });
  afterAll(() => {
    server?.kill();
  });

  it("holds the second test's time back from the copies only where the probe's own stream lost packets", () => {
    const lossy = { ...probes, rtt: { medianMs: 40, tcp: { medianMs: 40 } }, bandwidth: { ...probes.bandwidth, lossPercent: 0.7 } } as ProbeResult;
    // Two seconds of test (24 round trips of 40 ms, two at least) and eight round trips to open and end it.
    expect(lineSecondsToHold(lossy)).toBeCloseTo(2.32, 9);
    expect(lineSecondsToHold({ ...lossy, bandwidth: { ...lossy.bandwidth, lossPercent: 0.2 } })).toBe(0);
    expect(lineSecondsToHold({ ...lossy, bandwidth: { ...lossy.bandwidth, method: 'smb-read' } })).toBe(0);
    const copy = { index: 0, profile: 'win11-24h2', op: 'read', workload: 'file:8MiB', expectedSeconds: 10, minimumSeconds: 0, fromFileCopy: false } as const;
    const keeper = (lineSeconds: number) =>
      new BudgetKeeper({ budgetSeconds: 20, spent: () => 10, rttMs: 40, entries: 10, readBackSeconds: 0, checkSeconds: 1, lineSeconds });
    expect(keeper(2.32).slotFor(copy, [copy]).maxSeconds).toBeLessThan(keeper(0).slotFor(copy, [copy]).maxSeconds);
    // Released once the writes show the path lost nothing (the test will not run), and held again where one shows loss.
    const released = keeper(2.32);
    released.holdLine(lineTestWanted(OWN_QUEUE));
    expect(released.slotFor(copy, [copy]).maxSeconds).toBe(keeper(0).slotFor(copy, [copy]).maxSeconds);
    released.holdLine(lineTestWanted([...OWN_QUEUE, ...LOSSY]));
    expect(released.slotFor(copy, [copy]).maxSeconds).toBe(keeper(2.32).slotFor(copy, [copy]).maxSeconds);
  });

  it('wants the second test until a write has run, and after that only where the writes found the path losing packets', () => {
    const read = { ...LOSSY[0], op: 'read' } as CopyTestResult;
    expect(lineTestWanted([])).toBe(true);
    expect(lineTestWanted([read])).toBe(true);
    expect(lineTestWanted(OWN_QUEUE)).toBe(false);
    expect(lineTestWanted([read, ...LOSSY])).toBe(true);
  });

  it("reads the path's loss as the judge does: the writes' losses with no queue behind them", () => {
    expect(pathLostPackets(LOSSY)).toBe(true);
    expect(pathLostPackets(OWN_QUEUE)).toBe(false);
    expect(pathLostPackets([])).toBe(false);
  });

  it(`runs iperf3 on ${LINE_STREAMS} streams where the writes found the path losing packets, beside the probe's own figure`, async () => {
    const found = await withLineUnderLoss(setup, probes, LOSSY);
    expect(found.bandwidth.mbps).toBe(3.1);
    expect(found.bandwidth.parallel).toMatchObject({ streams: LINE_STREAMS });
    expect(found.bandwidth.parallel?.mbps).toBeGreaterThan(0);
    expect(found.bandwidth.parallel?.seconds).toBeGreaterThan(1);
  }, 30_000);

  it('leaves the probe as it was where the losses were the copy\u2019s own, on a share on this machine, or without iperf3', async () => {
    expect(await withLineUnderLoss(setup, probes, OWN_QUEUE)).toBe(probes);
    expect(await withLineUnderLoss({ ...setup, onThisMachine: true }, probes, LOSSY)).toBe(probes);
    expect(await withLineUnderLoss({ ...setup, iperf: undefined }, probes, LOSSY)).toBe(probes);
    const smbRead = { ...probes, bandwidth: { ...probes.bandwidth, method: 'smb-read' as const } };
    expect(await withLineUnderLoss(setup, smbRead, LOSSY)).toBe(smbRead);
  });

  it('goes on with the probe\u2019s own figure where the second test fails', async () => {
    const closed = { ...setup, iperf: { host: '127.0.0.1', port: await freePort() } } as RunSetup;
    expect(await withLineUnderLoss(closed, probes, LOSSY)).toBe(probes);
  }, 30_000);
});
