// The line where the path itself loses packets. One TCP stream through a
// lossy hop is held by the loss (the Mathis bound), and so was the probe's
// one iperf3 stream: on the lab's 50 Mb/s / 40 ms link losing 1% at random,
// iperf3 read 3.1 Mb/s, the model's line rose only to the fastest copy's
// (16.3 Mb/s), and the verdict said the path allowed 15.7 Mb/s beside one
// stream's 3.39 (2026-11-28). Where the run's writes found the path losing
// packets (pathLossOfRun: losses with no queue behind them), the same iperf3
// test runs again after the copies on several streams at once: each is held
// alike, and together they reach the line, or as near as that many can.

import type { CopyTestResult } from '../contract/copy-test.js';
import type { ProbeResult } from '../contract/probe.js';
import { withRunLossReading } from '../copy/loss-evidence.js';
import { PATH_LOSS_NAMED } from '../model/loss-split.js';
import { iperf3Bandwidth } from '../probe/bandwidth.js';
import { steadyTestSeconds } from '../probe/probe-path.js';
import { pathLossOfRun } from './findings.js';
import type { RunSetup } from './run-phases.js';
import { signalOf } from './run-phases.js';

/**
 * Streams of the second test. At 1% loss and 40 ms one CUBIC stream holds
 * about 3.4 Mb/s: sixteen reach 55 Mb/s, a branch line's rate. A faster line
 * behind that loss reads as what sixteen reached, never more than it carries.
 */
export const LINE_STREAMS = 16;

/** Round trips the second test takes to open its connections and end, beside its seconds (the budget's part). */
const SET_UP_ROUND_TRIPS = 8;

/**
 * The seconds the budget holds back for the second test, where the probe's
 * own iperf3 stream lost packets (PATH_LOSS_NAMED or more of its segments):
 * the copies may find the path losing them too. On the lab's 1% link the
 * copies otherwise spent the whole budget, and the test never ran.
 */
export function lineSecondsToHold(probes: ProbeResult): number {
  const { method, lossPercent } = probes.bandwidth;
  if (method !== 'iperf3' || !((lossPercent ?? 0) / 100 >= PATH_LOSS_NAMED)) return 0;
  return steadyTestSeconds(probes.rtt.tcp.medianMs) + (SET_UP_ROUND_TRIPS * probes.rtt.medianMs) / 1000;
}

/** Whether the run's writes found the path itself losing packets (read across the run, as the judge reads them). */
export function pathLostPackets(copies: readonly CopyTestResult[]): boolean {
  return pathLossOfRun(withRunLossReading(copies)) !== undefined;
}

/**
 * Whether the second test may still run, as the copies so far say: until a
 * write has run, or where the writes found the path losing packets. The
 * probe's own stream counts retransmissions a BBR sender causes in a shallow
 * queue too (3.6% on the lab's clean 52 Mb/s, 75 ms link), and the budget
 * then held about 2.3 s back for a test that never ran.
 */
export function lineTestWanted(copies: readonly CopyTestResult[]): boolean {
  return !copies.some((copy) => copy.op === 'write') || pathLostPackets(copies);
}

/**
 * The probe's result with iperf3's test on LINE_STREAMS streams beside its
 * own (`bandwidth.parallel`), where the path lost packets and an iperf3
 * server answered the probe; as it was elsewhere, or where the second test
 * fails (the run goes on with the probe's own figure, as before). It runs
 * even where the copies spent the budget (the budget holds its time back
 * where the probe saw the loss, lineSecondsToHold, but copies through a lossy
 * hop overran a 60 s budget by 20 s in 2 of 2 runs): without it the line is
 * what one loss-held copy moved, and it changed from run to run (19.5 and
 * 10.7 Mb/s on the lab's 50 Mb/s link losing 1%, 2026-11-28).
 */
export async function withLineUnderLoss(setup: RunSetup, probes: ProbeResult, copies: readonly CopyTestResult[]): Promise<ProbeResult> {
  const { iperf } = setup;
  if (!iperf || setup.onThisMachine || probes.bandwidth.method !== 'iperf3' || !pathLostPackets(copies)) return probes;
  const seconds = steadyTestSeconds(probes.rtt.tcp.medianMs);
  try {
    const measured = await iperf3Bandwidth({
      host: iperf.host,
      port: iperf.port,
      seconds,
      estimate: 'steady',
      streams: LINE_STREAMS,
      reverse: true,
      ...signalOf(setup),
    });
    if (!(measured.mbps > 0)) return probes;
    return { ...probes, bandwidth: { ...probes.bandwidth, parallel: { streams: LINE_STREAMS, mbps: measured.mbps, seconds: measured.seconds } } };
  } catch (error) {
    if (setup.signal?.aborted) throw error;
    return probes;
  }
}
