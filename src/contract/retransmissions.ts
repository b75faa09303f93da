// Retransmissions a person should read in the verdict: the share of a copy's
// bytes TCP sent again, and where they come from. The kernel counts them for
// the copies Pipefill makes (src/platform/tcp-info.ts); before this they showed
// only on the report's page 5 (10.7% on a small-files write). Pure.

import type { ClientProfileId } from '../model/client-profiles.js';
import { predict } from '../model/predict.js';
import { formatDuration } from '../model/units.js';
import { observationsFromReport } from './recommend.js';
import type { Finding, Report } from './report.js';
import { modelLinkOf } from './report.js';
import type { VerdictRetransmissions } from './verdict-schema.js';

/** A hundredth of a copy's bytes sent again: below it, TCP's own probing of a line, not worth a line. */
export const RETRANSMISSIONS_NAMED = 0.01;

/**
 * Whether the copy, on the server as seen, may keep more in flight than the
 * line holds (the BDP): every layer but the line itself lets it (16 credits
 * of 64 KiB are 1 MiB, twice the 100 Mb/s, 40 ms line's 500 KB).
 */
function fillsTheLine(report: Report, finding: Finding): boolean {
  try {
    const prediction = predict({
      client: finding.profile,
      server: report.options.server,
      op: finding.op,
      workload: finding.workload,
      link: modelLinkOf(report),
      observations: observationsFromReport(report, finding.profile),
    });
    const windows = prediction.layers.filter((layer) => layer.layer !== 'bandwidth');
    return windows.every((layer) => layer.bytesInFlight > prediction.bdpBytes);
  } catch {
    // A workload this Pipefill does not know: no window to weigh, and no claim about where the losses came from.
    return true;
  }
}

const copyName = (finding: Finding) => `${finding.workload.startsWith('file:') ? 'large-file' : 'small-files'} ${finding.op}`;

/**
 * The person's copy that lost the most time to retransmissions, where that
 * is worth naming: a hundredth or more of its bytes sent again, and the copy
 * slower than the model for the server as seen (a copy that kept to the
 * model lost nothing the model does not already count: TCP's ramp, a
 * loss-based search for the line's rate). With the share, where the losses
 * come from, and the time beyond the model's.
 *
 * Where from: a copy every layer lets keep more in flight than the line
 * holds can overflow the bottleneck's queue itself (CUBIC finds the line's
 * rate that way, BBR's start-up overshoots it): the run's own losses. A
 * copy some layer holds below the line never builds a queue, so its losses
 * are on the path itself.
 */
export function retransmissionsOf(report: Report, client: ClientProfileId): VerdictRetransmissions | undefined {
  // A share on this machine has no path to lose packets on (observationsOfCopy leaves them out too).
  if (report.crypto?.serverOnThisMachine) return undefined;
  let worst: { finding: Finding; fraction: number; overSeconds: number } | undefined;
  for (const finding of report.diagnosis.findings) {
    if (finding.profile !== client || finding.verdict !== 'slower-than-expected') continue;
    const copy = report.copyTests.find((test) => test.profile === finding.profile && test.op === finding.op && test.workload === finding.workload);
    const fraction = copy?.tcp?.retransmittedFraction;
    const overSeconds = finding.measuredSeconds - finding.expectedSeconds;
    if (fraction === undefined || !Number.isFinite(fraction) || fraction < RETRANSMISSIONS_NAMED || fraction > 1 || !(overSeconds > 0)) continue;
    if (!worst || overSeconds > worst.overSeconds) worst = { finding, fraction, overSeconds };
  }
  if (!worst) return undefined;
  const { finding, fraction, overSeconds } = worst;
  const source = fillsTheLine(report, finding) ? 'own-queue' : 'path';
  const percent = `${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)}%`;
  const where =
    source === 'path'
      ? 'packets were lost on the path itself (this copy kept less in flight than the line holds: it filled no queue of its own)'
      : "the copy overflowed the line's queue itself (every setting lets it keep more in flight than the line holds)";
  return {
    op: finding.op,
    workload: finding.workload.startsWith('file:') ? 'file' : 'small-files',
    fraction,
    source,
    overSeconds,
    sentence: `TCP sent ${percent} of the ${copyName(finding)}'s bytes again, and the copy took ${formatDuration(overSeconds * 1000)} longer than the model: ${where}.`,
  };
}
