// Retransmissions a person should read in the verdict: the share of a copy's
// bytes TCP sent again, and where they come from. The kernel counts them for
// the copies Pipefill makes (src/platform/tcp-info.ts); before this they showed
// only on the report's page 5 (10.7% on a small-files write). Pure.

import { MIN_GAIN } from '../advice/recommend.js';
import type { ClientProfileId } from '../model/client-profiles.js';
import { EFFECT_WORKLOADS, effectText } from '../model/effect-workloads.js';
import { PATH_LOSS_NAMED } from '../model/loss-split.js';
import { predict } from '../model/predict.js';
import { formatDuration, formatLossRate } from '../model/units.js';
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

/**
 * What fixing the lossy hop buys the person's client, for a copy a person
 * knows (writing a 1 GB file): the model on the path as it is, and with no
 * loss. Only where the line was measured apart from the loss, by iperf3 on
 * several streams (src/assess/line-under-loss.ts): a line one stream read
 * through the loss would make the loss look as if it cost little. The model's
 * line is then the larger of theirs and the probe's one stream (judge.ts),
 * and where the streams moved no more than that one, the loss did not hold
 * it (a BBR sender): its line is measured apart from the loss too.
 */
function hopFixText(report: Report, client: ClientProfileId): string {
  const link = modelLinkOf(report);
  if (report.probes.bandwidth.parallel === undefined || link.lossRate === undefined) return '';
  const [workload] = EFFECT_WORKLOADS;
  const clean: typeof link = { ...link, lossRate: 0 };
  const secondsOn = (on: typeof link) =>
    predict({ client, server: report.options.server, op: 'write', workload, link: on, observations: observationsFromReport(report, client) }).seconds;
  try {
    const [now, fixed] = [secondsOn(link), secondsOn(clean)];
    if (!(fixed < now * (1 - MIN_GAIN))) return '';
    return ` Fixed, ${effectText(`write ${workload}`) ?? ''} takes ${formatDuration(fixed * 1000)} instead of ${formatDuration(now * 1000)}.`;
  } catch {
    return '';
  }
}

const copyName = (finding: Finding) => `${finding.workload.startsWith('file:') ? 'large-file' : 'small-files'} ${finding.op}`;

interface Candidate {
  readonly finding: Finding;
  readonly fraction: number;
  readonly overSeconds: number;
  readonly source: 'path' | 'own-queue';
  /**
   * Where the copy watched the round trip at each loss: the shares of the
   * bytes sent that went again for each cause. `path` is absent where the
   * queue stood whenever the copy sent, so the path's own rate could not be read.
   */
  readonly split?: { readonly path?: number; readonly queue: number; readonly peakQueueMs?: number };
  /** The path's loss as another watched write read it, where this copy's own could not be. */
  readonly pathElsewhere?: number;
  /** The path's loss as the model took it (the run's writes together: pathModel.lossRate), where it took one. */
  readonly modelLoss?: number;
}

/**
 * The path's own loss rate, where a write that watched the round trip at each
 * loss read one, named-worthy and the larger of its two shares: the path is
 * the same for every copy of the run.
 */
function pathLossOf(report: Report): number | undefined {
  let most: number | undefined;
  for (const test of report.copyTests) {
    const [path, queue] = [test.tcp?.lossOnPathFraction, test.tcp?.lossAtQueueFraction ?? 0];
    if (test.op === 'write' && path !== undefined && path > queue && path >= PATH_LOSS_NAMED && (most === undefined || path > most)) most = path;
  }
  return most;
}

/** A person's write with its retransmissions and whose losses they were, where it is worth naming (see retransmissionsOf). */
function candidateOf(report: Report, finding: Finding, pathLoss: number | undefined): Candidate | undefined {
  const copy = report.copyTests.find((test) => test.profile === finding.profile && test.op === finding.op && test.workload === finding.workload);
  const tcp = copy?.tcp;
  const fraction = tcp?.retransmittedFraction;
  if (fraction === undefined || !Number.isFinite(fraction) || fraction <= 0 || fraction > 1) return undefined;
  const overSeconds = Math.max(0, finding.measuredSeconds - finding.expectedSeconds);
  const [path, queue] = [tcp?.lossOnPathFraction, tcp?.lossAtQueueFraction];
  const split =
    queue !== undefined && queue + (path ?? 0) > 0
      ? { queue, ...(path === undefined ? {} : { path }), ...(tcp?.peakQueueMs === undefined ? {} : { peakQueueMs: tcp.peakQueueMs }) }
      : undefined;
  const base = { finding, fraction, overSeconds, ...(split ? { split } : {}) };
  if (split?.path !== undefined) {
    const source = split.path > split.queue ? 'path' : 'own-queue';
    if (source === 'path') return split.path >= PATH_LOSS_NAMED ? { ...base, source } : undefined;
    return slowerByLoss(finding, overSeconds, fraction) ? { ...base, source } : undefined;
  }
  if (pathLoss !== undefined) return fraction >= PATH_LOSS_NAMED ? { ...base, source: 'path', pathElsewhere: pathLoss } : undefined;
  if (!slowerByLoss(finding, overSeconds, fraction)) return undefined;
  return { ...base, source: split || fillsTheLine(report, finding) ? 'own-queue' : 'path' };
}

/** Slower than the model, with a hundredth or more of its bytes sent again. */
const slowerByLoss = (finding: Finding, overSeconds: number, fraction: number) =>
  finding.verdict === 'slower-than-expected' && overSeconds > 0 && fraction >= RETRANSMISSIONS_NAMED;

/**
 * The retransmissions in one short paragraph, its cause first (a helpdesk
 * person reads the first clause): how much went again and what it cost, the
 * evidence, and what the network team can do about it.
 */
function sentenceOf(candidate: Candidate, hopFix: string): string {
  const { finding, fraction, overSeconds, split, source, pathElsewhere } = candidate;
  const resent = `TCP sent ${formatLossRate(fraction)} of the ${copyName(finding)}'s bytes again${
    overSeconds > 0 ? `, and the copy took ${formatDuration(overSeconds * 1000)} longer than the model` : ''
  }`;
  if (source === 'path') {
    // The figure the model took and the loss layer quotes, where it took one: one write's own share beside it read as
    // a second loss rate for the same path.
    const seen =
      candidate.modelLoss !== undefined
        ? `; the run's writes lost ${formatLossRate(candidate.modelLoss)} of what they sent on the path, with no queue behind them`
        : split?.path !== undefined
          ? `, ${formatLossRate(split.path)} for losses with no queue behind them`
          : pathElsewhere !== undefined
            ? `; a write that watched each loss lost ${formatLossRate(pathElsewhere)} with no queue behind them`
            : '; the copy kept less in flight than the line holds, so it filled no queue of its own';
    return `The path itself lost packets: ${resent}${seen}. That is a lossy hop (Wi-Fi, DSL, a faulty cable or port), not congestion, and it holds TCP below the line: the rates here are what TCP reached through it. Fix that hop (look for errors on the interfaces along the way).${hopFix}`;
  }
  if (!split) return `The copy overflowed the line's queue itself: ${resent}; every setting lets it keep more in flight than the line holds.`;
  const peak = split.peakQueueMs === undefined ? '' : `, with the round trip up to ${split.peakQueueMs.toFixed(1)} ms above its least`;
  const alsoPath =
    split.path !== undefined && split.path >= PATH_LOSS_NAMED
      ? candidate.modelLoss !== undefined
        ? ` The path lost packets too: the run's writes lost ${formatLossRate(candidate.modelLoss)} of what they sent there, with no queue behind them.`
        : ` A further ${formatLossRate(split.path)} went again for losses on the path, with no queue behind them.`
      : '';
  return `The copy overflowed the line's queue itself: ${resent}, its losses at the queue's fullest${peak}. That is TCP finding the line's rate, not a fault of the path.${alsoPath}`;
}

/**
 * The person's write that lost the most time to retransmissions, where that
 * is worth naming, with where they came from and the time beyond the model.
 * Only writes: this machine sends their data, so the kernel counts its
 * losses; a read's data is the server's to send again.
 *
 * Where from: where the round trip at each loss was watched (a large-file
 * write on Linux, src/model/loss-split.ts), losses with no queue behind them
 * are the path's and those with the queue at its fullest the copy's own;
 * the larger share names the source. A copy that could not read the path's
 * rate itself (many small files, or a queue standing whenever it sent) takes
 * the path's from another write that did. The path's is named from a quarter
 * of a percent, whether or not the copy kept to the model (which took the
 * probe's rate, held by the same loss, for the line); the copy's own only
 * from a hundredth, and where the copy was slower than the model (below that
 * it is TCP finding the line's rate). With nothing watched, a copy every
 * layer lets keep more in flight than the line holds can overflow the queue
 * itself; one some layer holds below the line never builds one, so its
 * losses are on the path.
 */
export function retransmissionsOf(report: Report, client: ClientProfileId): VerdictRetransmissions | undefined {
  // A share on this machine has no path to lose packets on (observationsOfCopy leaves them out too).
  if (report.crypto?.serverOnThisMachine) return undefined;
  const pathLoss = pathLossOf(report);
  let worst: Candidate | undefined;
  for (const finding of report.diagnosis.findings) {
    if (finding.profile !== client || finding.op !== 'write') continue;
    const candidate = candidateOf(report, finding, pathLoss);
    if (!candidate) continue;
    if (!worst || candidate.overSeconds > worst.overSeconds || (candidate.overSeconds === worst.overSeconds && candidate.fraction > worst.fraction))
      worst = candidate;
  }
  if (!worst) return undefined;
  const { finding, fraction, overSeconds, split, source } = worst;
  const modelLoss = report.pathModel?.lossRate;
  const told = modelLoss !== undefined && modelLoss > 0 ? { ...worst, modelLoss } : worst;
  return {
    op: finding.op,
    workload: finding.workload.startsWith('file:') ? 'file' : 'small-files',
    fraction,
    source,
    ...(split ? { queueFraction: split.queue, ...(split.path === undefined ? {} : { pathFraction: split.path }) } : {}),
    overSeconds,
    sentence: sentenceOf(told, source === 'path' ? hopFixText(report, client) : ''),
  };
}
