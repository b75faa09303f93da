// Views of a report that every front end draws the same way (the app's
// Results view, the HTML export): each layer's plain name, the finding a
// report opens on, and the "pipe" (each layer's in-flight limit against the
// path's BDP, from the model, for the generation's own stack on the probed
// path). Pure.

import { PipefillError } from '../model/errors.js';
import { predict } from '../model/predict.js';
import { LAYER_LABELS } from '../model/layer-labels.js';
import { CREDIT_WAITING_LIMITED, creditsSeen } from '../model/credits-seen.js';
import type { CopyTestResult } from '../contract/copy-test.js';
import { observationsOfCopy } from '../contract/copy-test.js';
import type { Finding, Report } from '../contract/report.js';
import { modelLinkOf } from '../contract/report.js';
import { formatDuration, formatRate } from '../model/units.js';
import { testShortLabel } from './test-labels.js';
import { TERMS } from './glossary.js';
import { copyOf, copyRateOf } from '../contract/copy-rate.js';

/**
 * How a test copy's messages were protected, in words: "encrypted with
 * AES-128-GCM (the share requires it)", "signed with AES-128-GMAC (the server
 * requires it)", or "neither signed nor encrypted". Reports from before SMB 3
 * support carry neither field and read as the last.
 */
export function protectionText(
  negotiated: Pick<CopyTestResult['negotiated'], 'signing' | 'encryption' | 'signingRequiredBy' | 'encryptionRequiredBy'>,
): string {
  const by = (who: string | undefined) => (who === 'person' ? ' (as asked)' : who ? ` (the ${who} requires it)` : '');
  if (negotiated.encryption) return `encrypted with ${negotiated.encryption}${by(negotiated.encryptionRequiredBy)}`;
  if (negotiated.signing) return `signed with ${negotiated.signing}${by(negotiated.signingRequiredBy)}`;
  return 'neither signed nor encrypted';
}

/**
 * What of a budgeted copy was measured and what projected: "projected from
 * 12.0 MB in 1.40 s, 1 file (rate settled at 41.2 Mb/s +/- 3%); 5.90-6.60 s at the rate's spread".
 */
export function projectionText(projected: NonNullable<CopyTestResult['projected']>): string {
  const megabytes = (projected.measuredBytes / 1e6).toFixed(projected.measuredBytes < 1e7 ? 2 : 1);
  const spread = projected.rateRelativeHalfWidth === null ? '' : ` ± ${(projected.rateRelativeHalfWidth * 100).toFixed(0)}%`;
  const how =
    projected.rateFrom === 'model-scaled' && projected.modelSeconds !== undefined && projected.modelScale !== undefined
      ? projected.scaledBy === 'file-copy'
        ? `stopped after one file, too few to scale the folder by; the model's ${projected.modelSeconds.toFixed(2)} s for the whole x ${projected.modelScale.toFixed(2)}, the same generation's file copy's time over the model's`
        : `${projected.stoppedBy === 'time' ? 'slot ran out before the rate settled; ' : ''}the model's ${projected.modelSeconds.toFixed(2)} s for the whole x ${projected.modelScale.toFixed(2)}, this copy's time over the model's for what it moved`
      : projected.rateFrom === 'file-copy'
        ? `round trips measured on the first files; data at the file copy's ${formatRate(projected.rateMbps * 1e6)}${spread}`
        : projected.stoppedBy === 'settled'
          ? `rate settled at ${formatRate(projected.rateMbps * 1e6)}${spread}`
          : `slot ran out before the rate settled; ${formatRate(projected.rateMbps * 1e6)} while data moved`;
  const range =
    projected.highSeconds === null ? 'no range can be given' : `${projected.lowSeconds.toFixed(2)}-${projected.highSeconds.toFixed(2)} s at the rate's spread`;
  if (
    projected.stoppedBy === 'not-run' &&
    projected.rateFrom === 'model-scaled' &&
    projected.modelSeconds !== undefined &&
    projected.modelScale !== undefined
  ) {
    const fileRange =
      projected.highSeconds === null
        ? 'no range can be given'
        : `${projected.lowSeconds.toFixed(2)}-${projected.highSeconds.toFixed(2)} s at the file copy's spread`;
    return `projected, not run (quick): the model's ${projected.modelSeconds.toFixed(2)} s for it x ${projected.modelScale.toFixed(2)}, the same generation's file copy's time over the model's; ${fileRange}`;
  }
  if (projected.stoppedBy === 'not-run') {
    // Reports written before the model-scaled projection (their directory sets went at the file copy's rate).
    return `projected, not run (quick): each file's round trips as the file copy measured them, each folder's at the path's RTT, data at the file copy's ${formatRate(projected.rateMbps * 1e6)}${spread}; ${range}`;
  }
  return `projected from ${megabytes} MB in ${projected.measuredSeconds.toFixed(2)} s, ${projected.filesTouched} file${projected.filesTouched === 1 ? '' : 's'} (${how}); ${range}`;
}

/** One line for a table cell: "SMB 3.1.1, signed AES-128-GMAC, 237 credits" (or "16 credits, waited 80% of the time" where the copy waited for grants). */
export function negotiatedText(negotiated: CopyTestResult['negotiated']): string {
  const protection = negotiated.encryption ? `encrypted ${negotiated.encryption}` : negotiated.signing ? `signed ${negotiated.signing}` : undefined;
  const credits = creditsSeen([negotiated]);
  const waited =
    (negotiated.creditWaitingFraction ?? 0) >= CREDIT_WAITING_LIMITED
      ? `, waited for more ${Math.round((negotiated.creditWaitingFraction ?? 0) * 100)}% of the time`
      : '';
  return [`SMB ${negotiated.dialect}`, protection, credits === undefined ? undefined : `${credits} credits${waited}`].filter(Boolean).join(', ');
}

export interface PipeBar {
  readonly layer: string;
  /** Bytes the layer lets the client keep in flight (Infinity: no limit on this path). */
  readonly bytesInFlight: number;
  readonly limiting: boolean;
}

export interface Pipe {
  readonly title: string;
  readonly bdpBytes: number;
  /** Every layer keeps the BDP in flight: the link itself limits. */
  readonly bandwidthLimits: boolean;
  readonly bars: readonly PipeBar[];
  /**
   * The layer the copy's diagnosis names where it is none of bytes in flight (round trips, slow start, outside the
   * model): then no bar is the limit, and the pipe says this one is.
   */
  readonly limitedElsewhere?: string;
}

/**
 * Each layer's in-flight budget for one finding's copy, on the probed path;
 * undefined when the model cannot weigh it (a workload this Pipefill does
 * not know, from a newer one or an edited file): the rest of the report
 * still shows.
 */
export function pipeFor(report: Report, finding: Finding): Pipe | undefined {
  const link = modelLinkOf(report);
  // The copy's own protection, as seen on the wire, so the pipe shows its crypto layer; what the profiles negotiate where that cannot be modelled.
  const copy = copyOf(report.copyTests, finding);
  const seen = copy?.negotiated.encryption ?? copy?.negotiated.signing ?? (copy ? 'none' : undefined);
  // The server as this copy saw it (the credits it granted), as the finding's diagnosis does.
  const scenario = {
    client: finding.profile,
    server: report.options.server,
    op: finding.op,
    workload: finding.workload,
    link,
    // And the server's sender as the run's reads showed it (a BBR server through loss): the findings expect every read so.
    ...(copy
      ? {
          observations: {
            ...observationsOfCopy(copy, report.crypto?.serverOnThisMachine === true),
            ...(report.pathModel?.serverSender ? { serverSender: report.pathModel.serverSender } : {}),
          },
        }
      : {}),
  };
  let prediction;
  try {
    try {
      prediction = predict(seen === undefined ? scenario : { ...scenario, security: seen });
    } catch (error) {
      if (!(error instanceof PipefillError) || seen === undefined) throw error;
      prediction = predict(scenario);
    }
  } catch (error) {
    if (error instanceof PipefillError) return undefined;
    throw error;
  }
  // A copy its diagnosis finds held by its round trips keeps less in flight than every layer allows: orange on the
  // path's BDP read "the link itself limits" beside "Round trips" (the demo's folder write).
  const drawn = finding.limitedBy === 'bandwidth' || prediction.layers.some((layer) => layer.layer === finding.limitedBy);
  const tightest = drawn ? prediction.layers.reduce((best, layer) => (layer.bytesPerSecond < best.bytesPerSecond ? layer : best)) : undefined;
  return {
    title: `${testShortLabel(finding)} at ${link.rttMs.toFixed(1)} ms`,
    bdpBytes: prediction.bdpBytes,
    bandwidthLimits: tightest?.layer === 'bandwidth',
    bars: prediction.layers
      .filter((layer) => layer.layer !== 'bandwidth')
      .map((layer) => ({ layer: LAYER_LABELS[layer.layer], bytesInFlight: layer.bytesInFlight, limiting: layer === tightest })),
    ...(drawn ? {} : { limitedElsewhere: LAYER_LABELS[finding.limitedBy] }),
  };
}

/** The finding a report opens on: the one its verdict names, else the headline's (older reports), else the first. */
export function headlineFinding(report: Report): Finding | undefined {
  const { findings, headline } = report.diagnosis;
  const limit = report.verdict?.limit;
  const client = report.verdict?.client;
  const named =
    limit?.op && limit.workload
      ? findings.find(
          (finding) => finding.profile === client && finding.op === limit.op && finding.workload.startsWith('file:') === (limit.workload === 'file'),
        )
      : undefined;
  if (named) return named;
  return findings.find((finding) => headline.startsWith(`${finding.profile} ${finding.op} of ${finding.workload}:`)) ?? findings[0];
}

/** No bytes for this long, between bytes, is a stall worth naming (a blackhole, a long retransmission wait). */
const STALL_MS = 1_000;
/** A round trip that ends at least this many times its start, and 10 ms apart, changed on the way. */
const RTT_CHANGE_FACTOR = 2;

/**
 * What happened to the path during one copy, in sentences for a person: stalls
 * in the timeline, the kernel's round trip before and after, retransmissions
 * and out-of-order arrivals (loss). Empty for a copy on a healthy path (pure).
 */
export function pathEvents(result: Pick<CopyTestResult, 'timeline' | 'tcp'>): string[] {
  const events: string[] = [];
  const buckets = result.timeline;
  let quietFrom: number | undefined;
  let seenBytes = false;
  for (const point of buckets) {
    if (point.bytes > 0) {
      if (quietFrom !== undefined && seenBytes && point.tMs - quietFrom >= STALL_MS)
        events.push(`The copy stalled for ${((point.tMs - quietFrom) / 1000).toFixed(1)} s at ${(quietFrom / 1000).toFixed(1)} s: no data moved.`);
      quietFrom = undefined;
      seenBytes = true;
    } else if (quietFrom === undefined) quietFrom = point.tMs;
  }
  const tcp = result.tcp;
  if (tcp?.rttStartMs !== undefined && tcp.rttEndMs !== undefined) {
    const [start, end] = [tcp.rttStartMs, tcp.rttEndMs];
    if (Math.abs(end - start) >= 10 && (end >= start * RTT_CHANGE_FACTOR || start >= end * RTT_CHANGE_FACTOR))
      events.push(`The round trip changed during the copy: ${start.toFixed(0)} ms before, ${end.toFixed(0)} ms after.`);
  }
  if ((tcp?.retransmittedFraction ?? 0) >= 0.001) events.push(resentText(tcp ?? {}));
  if ((tcp?.outOfOrderPackets ?? 0) > 0) events.push(`${tcp?.outOfOrderPackets} packets arrived out of order: packets were lost on the way from the server.`);
  return events;
}

/** A copy's bytes sent again, in a sentence, with whose losses they were where the copy watched the round trip at each (src/model/loss-split.ts). */
function resentText(tcp: NonNullable<CopyTestResult['tcp']>): string {
  const share = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;
  const head = `TCP sent ${share(tcp.retransmittedFraction ?? 0)} of its bytes again`;
  const [queue, path] = [tcp.lossAtQueueFraction, tcp.lossOnPathFraction];
  // Watched, but too few losses to say whose (LossSplit.decided).
  if (queue === undefined && tcp.lossUnsplitFraction !== undefined)
    return `${head}: packets were lost on the way to the server, too few to tell whether the path lost them or the copy overflowed the line's queue itself.`;
  if (queue === undefined || queue + (path ?? 0) <= 0) return `${head}: packets were lost on the way to the server.`;
  const peak = tcp.peakQueueMs === undefined ? '' : ` (the round trip then up to ${tcp.peakQueueMs.toFixed(1)} ms above its least)`;
  if (path === undefined) return `${head}, with a queue standing whenever it sent${peak}: whether the path lost any too cannot be read from this copy.`;
  const parts = [
    ...(queue > 0 ? [`${share(queue)} as it overflowed the line's queue itself${peak}`] : []),
    ...(path > 0 ? [`${share(path)} for losses on the path, with no queue behind them`] : []),
  ];
  return `${head}: ${parts.join('; ')}.`;
}

/** This machine's measured per-core signing and encryption rates, as rows: algorithm, protect, check (bytes per second). */
export function cryptoRateRows(report: Report): { readonly algorithm: string; readonly protect: number; readonly check: number }[] {
  return Object.entries(report.crypto?.rates ?? {}).flatMap(([algorithm, rate]) => (rate ? [{ algorithm, protect: rate.protect, check: rate.check }] : []));
}

/** One paragraph on signing and encryption for a report: what the copies carried, and the signing check. */
export function protectionSummary(report: Report): string | undefined {
  const seen = [
    ...new Set(
      report.copyTests
        .map((test) =>
          test.negotiated.encryption
            ? `encrypted with ${test.negotiated.encryption}`
            : test.negotiated.signing
              ? `signed with ${test.negotiated.signing}`
              : undefined,
        )
        .filter((text): text is string => text !== undefined),
    ),
  ];
  const carried = seen.length > 0 ? `Copies were ${seen.join(', ')}.` : 'No copy was signed or encrypted.';
  const check = report.protectionCheck?.sentence;
  if (!report.crypto && !check && seen.length === 0) return undefined;
  return [carried, check].filter(Boolean).join(' ');
}

/**
 * What the rate column means, where a row's rate is a file's once under way (and so not its bytes over
 * the time beside it): none where every rate is over the whole copy.
 */
export function rateNote(report: Pick<Report, 'copyTests' | 'diagnosis'>, lead: string): string[] {
  if (!report.diagnosis.findings.some((finding) => copyRateOf(report.copyTests, finding).underWay)) return [];
  return [`${lead}${TERMS.rate.text.charAt(0).toLowerCase()}${TERMS.rate.text.slice(1)}`];
}

/** A run past its budget by more than this share of it is said to have overrun (the end's own round trips vary by a few percent). */
const OVERRUN_SAID_FROM = 1.1;

/**
 * Where a budgeted run took longer than its budget, how long, and the copy
 * that took longest: a copy stops only once it has shown a rate, and
 * Pipefill's own write of the test file runs whole, the reads' source.
 * Through the lab's 1% lossy hop (a BBR server, CUBIC writes) a quick run's
 * 8 MiB writes took 19-24 s each and the run 47-49 s of its 20
 * (2026-11-29); said, not left for the person to notice. Undefined within the budget, or where the run had none.
 */
export function overBudgetNote(report: Pick<Report, 'options' | 'timing' | 'copyTests'>): string | undefined {
  const budget = report.options.budgetSeconds;
  const total = report.timing?.totalSeconds;
  if (budget === undefined || budget === null || total === undefined || !(total > budget * OVERRUN_SAID_FROM)) return undefined;
  const ranFor = (copy: CopyTestResult) => (copy.projected ? copy.projected.measuredSeconds : copy.seconds);
  const longest = report.copyTests.filter((copy) => copy.projected?.stoppedBy !== 'not-run').sort((a, b) => ranFor(b) - ranFor(a))[0];
  const which = longest ? `; the longest copy, ${testShortLabel(longest)}, ran ${formatDuration(ranFor(longest) * 1000)}` : '';
  return `This run took ${formatDuration(total * 1000)}, past its ${formatDuration(budget * 1000)} budget${which}: a copy stops only once it has shown a rate, and Pipefill's own write of the test file runs whole, as the reads need it.`;
}
