// Each copy of a run against the model: the model's time for it on the path
// as the run found it (the hosts' costs with what Pipefill's own long write
// showed of the storage, the bandwidth any copy proved), and the diagnosis
// with what the copy revealed of the server.

import type { CopyTestResult } from '../contract/copy-test.js';
import { observationsOfCopy } from '../contract/copy-test.js';
import type { Finding } from '../contract/report.js';
import { compareWithModel } from '../model/assessment.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Protection } from '../model/crypto-cost.js';
import type { DiagnoseInput, EngineStack } from '../model/diagnosis.js';
import { asDrivenByPipefill, diagnoseCopy, hostsExpectation } from '../model/diagnosis.js';
import type { HostCosts } from '../model/host-costs.js';
import { withSustainedWrite } from '../model/host-costs.js';
import type { Session } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { lineRateOf } from '../model/link.js';
import { PATH_LOSS_NAMED } from '../model/loss-split.js';
import { predictTransfer } from '../model/predict.js';
import { predictCopy } from '../model/parallel.js';
import { serverAsSeen } from '../model/server-as-seen.js';
import type { ServerProfile } from '../model/server-profiles.js';
import { parseWorkload } from '../model/workloads.js';

/**
 * One copy against the model: expected is the generation's pattern on this
 * machine's TCP stack against the server as the copy saw it, on the path with the hosts' own
 * costs where a calibration measured them (a fast path). Where none did, no
 * generation is expected to beat Pipefill's deepest pipeline on the same
 * data. The diagnosis reruns the model with what the copy revealed (credits
 * granted, the server's window) and names the layer, or says the cause lies
 * outside the model.
 */
export function findingOf(
  result: CopyTestResult,
  server: ServerProfile,
  link: Link,
  stack: EngineStack,
  warmSender: boolean,
  onThisMachine: boolean,
  reference?: CopyTestResult,
): Finding {
  const client = asDrivenByPipefill(CLIENT_PROFILES[result.profile], stack);
  const workload = parseWorkload(result.workload);
  const session = { ...sessionOf(result), warmSender };
  const input: DiagnoseInput = {
    client: CLIENT_PROFILES[result.profile],
    server,
    op: result.op,
    workload,
    link,
    measuredSeconds: result.seconds,
    stack,
    session,
    // With the hosts measured, the model holds what Pipefill's own copy would show; without, that copy is the hosts' bound.
    ...(reference && !link.hosts ? { reference: { measuredSeconds: reference.seconds, protection: protectionOf(reference) } } : {}),
    observations: observationsOfCopy(result, onThisMachine),
  };
  // Expected for the server as this copy found it (the credits it granted, the window it held writes to, the
  // signing it demanded): a default server's expectation called a copy that 16 credits held back "as expected".
  const modelled = predictCopy(client, serverAsSeen(server, result.op, input.observations ?? {}), result.op, workload, link, session);
  const floor = hostsExpectation(input, modelled.seconds);
  const expected = floor ? { seconds: floor.seconds, limitedBy: floor.layer } : { seconds: modelled.seconds, limitedBy: modelled.limitedBy };
  const diagnosis = diagnoseCopy(input);
  return {
    profile: result.profile,
    op: result.op,
    workload: result.workload,
    measuredSeconds: result.seconds,
    ...(result.projected ? { projected: true } : {}),
    expectedSeconds: expected.seconds,
    expectedLimitedBy: expected.limitedBy,
    // On a fast path the expectation rests on the hosts' calibration, and is no surer than its runs agreed.
    ...compareWithModel(result.seconds, expected, link.hosts?.noise),
    limitedBy: diagnosis.limitedBy,
    explainedSeconds: diagnosis.explainedSeconds,
    measuredMbps: diagnosis.measuredBitsPerSecond / 1e6,
    inFlightBytes: diagnosis.inFlightBytes,
    sentence: diagnosis.sentence,
    why: diagnosis.why,
    ...(diagnosis.beyondModel ? { beyondModel: true as const } : {}),
  };
}

/**
 * The hosts' costs with what Pipefill's own whole-file write showed of the
 * server's storage: the calibration's writes last milliseconds, and a
 * server whose page cache must find new pages or whose disk falls behind
 * shows it only on a long write. That copy (the read source, always moved
 * whole) is the measurement; every other write is expected at it.
 */
export function sustainedHostCosts(
  link: Link & { readonly hosts: HostCosts },
  copies: readonly CopyTestResult[],
  server: ServerProfile,
  stack: EngineStack,
): HostCosts {
  const source = copies.find((copy) => copy.profile === 'pipefill-max' && copy.op === 'write' && copy.workload.startsWith('file:') && !copy.projected);
  if (!source) return link.hosts;
  const modelled = predictTransfer(
    asDrivenByPipefill(CLIENT_PROFILES['pipefill-max'], stack),
    server,
    'write',
    parseWorkload(source.workload),
    link,
    sessionOf(source),
  );
  return withSustainedWrite(link.hosts, { bytes: source.bytes, measuredSeconds: source.seconds, modelSeconds: modelled.seconds });
}

/** What protected a copy on the wire, as the engine negotiated it: the model weighs exactly that. */
export function protectionOf(result: CopyTestResult): Protection {
  if (result.negotiated.encryption) return { kind: 'encryption', algorithm: result.negotiated.encryption };
  if (result.negotiated.signing) return { kind: 'signing', algorithm: result.negotiated.signing };
  return { kind: 'none' };
}

export const sessionOf = (result: CopyTestResult): Session => ({
  protection: protectionOf(result),
  channels: 1,
  ...(result.lanes ? { lanes: result.lanes } : {}),
});

/**
 * The path the expectations use: the probe's, with its line raised to the
 * one under the fastest payload rate a file copy of the run moved over what it really
 * moved (a copy proves the path carries that; a short probe on a fast path
 * is paced by the hosts and reads low, and a copy faster than "the line" is
 * then called faster than expected for no reason), and the path's own loss
 * where the run's writes read one (pathLossOfRun).
 */
export function pathOfRun(
  link: Link,
  copies: readonly CopyTestResult[],
  calibration: readonly { readonly bytes: number; readonly seconds: number }[] = [],
): { bandwidthBitsPerSecond: number; rttMs: number; bandwidthFrom: 'probe' | 'copy' | 'streams'; lossRate?: number } {
  // The hosts' calibration transfers crossed the same path: what they moved, it carries.
  let best = Math.max(0, ...calibration.filter((sample) => sample.seconds > 0).map((sample) => (sample.bytes * 8) / sample.seconds));
  for (const copy of copies) {
    if (!copy.workload.startsWith('file:')) continue;
    const bytes = copy.projected ? copy.projected.measuredBytes : copy.bytes;
    const seconds = copy.projected ? copy.projected.measuredSeconds : copy.seconds;
    if (copy.projected?.stoppedBy === 'not-run' || !(bytes > 0 && seconds > 0)) continue;
    best = Math.max(best, (bytes * 8) / seconds);
  }
  // What they moved is payload; the line that carried it, in the path's packets (lineRateOf), is what the model takes.
  const line = best > 0 ? lineRateOf(best, link.mtuBytes) : 0;
  const fromCopy = line > link.bandwidthBitsPerSecond;
  const lossRate = pathLossOfRun(copies);
  return {
    bandwidthBitsPerSecond: fromCopy ? line : link.bandwidthBitsPerSecond,
    rttMs: link.rttMs,
    bandwidthFrom: fromCopy ? 'copy' : 'probe',
    ...(lossRate === undefined ? {} : { lossRate }),
  };
}

/** The fewest packets the run's writes must have lost on the path for its rate to be the model's: one or two are chance. */
export const LEAST_PATH_LOSSES = 5;

/**
 * The path's own loss rate, as the run's writes that watched the round trip
 * at each loss read it (src/model/loss-split.ts): the bytes they sent again
 * for losses with no queue behind them over the bytes they wrote. The model
 * takes it as a layer (the Mathis bound on each TCP connection), so a copy
 * held by a lossy hop is expected at what TCP reaches through it and the
 * verdict names the loss, not a window or signing. Only from a quarter of a
 * percent (PATH_LOSS_NAMED) and LEAST_PATH_LOSSES packets; a copy's own
 * queue overflowing is TCP finding the line's rate, not a layer.
 */
export function pathLossOfRun(copies: readonly CopyTestResult[]): number | undefined {
  let [lostBytes, sentBytes] = [0, 0];
  for (const copy of copies) {
    const fraction = copy.tcp?.lossOnPathFraction;
    if (copy.op !== 'write' || fraction === undefined || !(copy.bytes > 0)) continue;
    lostBytes += fraction * copy.bytes;
    sentBytes += copy.bytes;
  }
  if (!(sentBytes > 0)) return undefined;
  const rate = lostBytes / sentBytes;
  return rate >= PATH_LOSS_NAMED && lostBytes >= LEAST_PATH_LOSSES * FULL_SEGMENT_BYTES && rate < 1 ? rate : undefined;
}

/** A full segment on an Ethernet path with timestamps: what a lost packet cost in bytes sent again. */
const FULL_SEGMENT_BYTES = 1448;
