// The verdict: what a person reads first, for their own client. How fast
// their copies ran (once under way), how fast this path allows them (the
// model's time for their client on the server as seen, with every change
// Pipefill names made), the one layer that cost them the most time, and the
// change that helps most with what it buys: the model's time for a copy a
// person knows with only that change made, the same effect every view quotes
// (the recommendation's own). Pure: built from a report and the
// recommendations for it; every view prints `lines`, so the CLI, the report
// and the app say the same thing in the same words.

import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { formatByteRate, formatBytes, formatDuration, formatRate } from '../model/units.js';
import { parseWorkload } from '../model/workloads.js';
import { copyOf, copyRateOf } from '../contract/copy-rate.js';
import type { RecommendResult } from '../contract/recommendation.js';
import { assessedClient, recommendFromInput } from '../contract/recommend.js';
import type { Finding, Report } from '../contract/report.js';
import { modelLinkOf, tunnelMtuOf } from '../contract/report.js';
import { payloadEfficiency } from '../model/link.js';
import { LAYER_LABELS } from '../model/layer-labels.js';
import { BUSY_CALIBRATION_NOISE, crowdedByOthers } from '../model/host-costs.js';
import { retransmissionsOf } from '../contract/retransmissions.js';
import { queueOf } from '../contract/queue-note.js';
import { readinessLine, readinessOf } from '../contract/readiness.js';
import { clientAsNegotiated } from '../contract/client-as-negotiated.js';
import type { PromiseCheck } from '../contract/promise-schema.js';
import type { ServerSource, Verdict, VerdictRate, VerdictRetransmissions } from '../contract/verdict-schema.js';
import type { Kind, Pair } from './verdict-changes.js';
import { bestChange, EFFECT_SPEC, effectTest, everyChange, fixFor, nextChange, nextSentence } from './verdict-changes.js';

/** Within this share of the path's own time, the client runs as fast as the path allows. */
const AS_FAST_AS_PATH = 0.15;

const kindOf = (workload: string): Kind => (workload.startsWith('file:') ? 'file' : 'small-files');
const ORDER: readonly (readonly [Kind, Op])[] = [
  ['file', 'write'],
  ['file', 'read'],
  ['small-files', 'write'],
  ['small-files', 'read'],
];

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/**
 * Whether the retransmissions sentence tells the limit's own cause, for the
 * same copy: packet loss, with the share sent again and whose losses they
 * were. The limit's sentence then said it twice ("TCP retransmitted 1.08% of
 * the bytes. The path itself lost packets: TCP sent 1.1% of the small-files
 * write's bytes again", 2026-11-28).
 */
const toldByRetransmissions = (limit: Verdict['limit'], retransmissions: VerdictRetransmissions | undefined): boolean =>
  retransmissions !== undefined && limit.layer === 'packet-loss' && retransmissions.op === limit.op && retransmissions.workload === limit.workload;

/** The first sentence of a longer text: a verdict line stays a line. */
const firstSentence = (text: string) => {
  const end = text.search(/[.:;](\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1).replace(/[:;]$/, '.');
};

/**
 * A finding's cause without its measurement: `why` where the report has it;
 * in older reports, the sentence less its opening "Measured ..." and "Seen
 * during the copy: ..." parts, which the diagnosis always wrote first.
 */
export function causeOf(finding: Pick<Finding, 'why' | 'sentence'>): string {
  if (finding.why) return finding.why;
  return finding.sentence.replace(/^Measured [^)]*\)[.:,]?\s*/, '').replace(/^Seen during the copy: [^.]*\.\s*/, '');
}

function serverSourceText(source: ServerSource | undefined): string {
  if (!source) return 'the profile the run used';
  if (source.kind === 'assumed') return `assumed: ${source.evidence ? `${source.evidence}; ` : ''}name it with --server if you know`;
  if (source.kind === 'given') return 'as you named it';
  return `recognised${source.evidence ? ` from ${source.evidence}` : ''}`;
}

/** The workload's bytes: what its time (measured, or projected for the whole) is for. */
function bytesOf(report: Report, finding: Finding): number {
  const copy = copyOf(report.copyTests, finding);
  return copy ? copy.bytes : (finding.measuredMbps * 1e6 * finding.measuredSeconds) / 8;
}

/** A file copy's rate once under way, as every view reads it (src/contract/copy-rate.ts); a folder's is read whole. */
function steadyOf(report: Report, finding: Finding): number | undefined {
  const rate = copyRateOf(report.copyTests, finding);
  return rate.underWay ? rate.bitsPerSecond : undefined;
}

const modelSeconds = (advice: RecommendResult | undefined, test: string) => {
  const seconds = advice?.combined.find((entry) => entry.test === test)?.after;
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
};

function pairs(report: Report, client: ClientProfileId, advice: RecommendResult | undefined): Pair[] {
  const { findings } = report.diagnosis;
  const lineBytesPerSecond = modelLinkOf(report).bandwidthBitsPerSecond / 8;
  const out: Pair[] = [];
  for (const [kind, op] of ORDER) {
    const yours = findings.find((finding) => finding.profile === client && finding.op === op && kindOf(finding.workload) === kind);
    if (!yours || !(yours.measuredSeconds > 0)) continue;
    const best = findings.find((finding) => finding.profile === 'pipefill-max' && finding.op === op && finding.workload === yours.workload);
    const bytes = bytesOf(report, yours);
    // The path: the model's time for this very copy with every change made. Without advice (a report that carries
    // none and cannot be advised), Pipefill's own copy, else the line's time; and the path allowed at least what the
    // client itself moved.
    const fallback = best && best.measuredSeconds > 0 ? best.measuredSeconds : lineBytesPerSecond > 0 ? bytes / lineBytesPerSecond : yours.measuredSeconds;
    const pathSeconds = Math.min(modelSeconds(advice, `${op} ${yours.workload}`) ?? fallback, yours.measuredSeconds);
    const known = modelSeconds(advice, effectTest(op, kind));
    const pathBitsPerSecond = known === undefined ? undefined : (parseWorkload(EFFECT_SPEC[kind]).totalBytes * 8) / known;
    const pair: Pair = {
      kind,
      op,
      yours,
      ...(best && best.measuredSeconds > 0 ? { best } : {}),
      bytes,
      pathSeconds,
      ...(pathBitsPerSecond === undefined ? {} : { pathBitsPerSecond }),
      costSeconds: Math.max(0, yours.measuredSeconds - pathSeconds),
    };
    out.push(heldByThePath(pair, advice) ? { ...pair, costSeconds: 0 } : pair);
  }
  return out;
}

/** How far a copy ran behind the path's time for it, whoever held it. */
const behindModel = (pair: Pair) => pair.yours.measuredSeconds - pair.pathSeconds;

/** The layers of the path itself: what no setting of the client, the server or the copy tool changes. */
const PATH_LAYERS: ReadonlySet<Finding['limitedBy']> = new Set(['bandwidth', 'packet-loss']);

/**
 * Whether the path itself holds a copy (the line, or its loss) and no change
 * Pipefill names speeds it: the model finds the client's own pipeline keeps
 * more in flight than the path lets through, so what the copy took beyond
 * the model is the path's (or the measurement's), never the client's. Where
 * it was charged, the noise of short copies through a lossy hop decided the
 * story (lab, 50 Mb/s / 40 ms / 1%, a minute apart: "Packet loss, costing
 * 9.88 s on the small-files write", then "as fast as this path allows"; both
 * pipelines' folder writes ran 1.29x and 1.31x the model in one run, 1.08x
 * and 1.21x in the next, and a third run's Windows 11 file write 1.28x beside
 * Pipefill's own 1.09x). A copy the diagnosis found beyond the model, loss
 * or not, is charged.
 */
function heldByThePath(pair: Pair, advice: RecommendResult | undefined): boolean {
  return PATH_LAYERS.has(pair.yours.limitedBy) && pair.yours.beyondModel !== true && bestChange(advice, pair) === undefined;
}

/** A server profile's name without its settings: what the person knows it as (the settings seen are in the report). */
const familyOf = (label: string) => label.split(' (')[0] ?? label;

/** A rate as every view prints it, from bits per second. */
export function bitRateText(bitsPerSecond: number): string {
  return `${formatByteRate(bitsPerSecond / 8)} (${formatRate(bitsPerSecond)})`;
}

/** The rate a person reads for their own copy: a file's once under way, else the copy's whole (a folder's opening is every file's). */
export const yourBitsPerSecond = (rate: VerdictRate): number => rate.steadyBitsPerSecond ?? (rate.bytes * 8) / rate.yoursSeconds;

/** The rate the path allows: on the copy a person knows (reports from before: the same copy's). */
export const pathBitsPerSecondOf = (rate: VerdictRate): number | undefined =>
  rate.pathBitsPerSecond ?? (rate.pathSeconds ? (rate.bytes * 8) / rate.pathSeconds : undefined);

/** The round trips a file copy's opening and TCP's ramp take at most: its create and close, and a dozen doublings of the window. */
const OPENING_AND_RAMP_RTTS = 16;
/** Below this share of a copy's time, its opening and ramp do not change the rate a person reads. */
const RAMP_SHARE_WORTH_SAYING = 0.05;

/**
 * Where a file test was too short to show the rate a file holds once under
 * way, the rate quoted is its whole copy's, opening and TCP's ramp included:
 * said plainly, so it is not read against what the path allows a 1 GB file.
 */
function shortSampleNote(rates: readonly VerdictRate[], rttMs: number): string {
  // Where those round trips are a small part of the copy (a LAN, a share on this machine: a 268 MB file in 0.76 s at
  // 0.15 ms a round trip), its whole rate is the rate under way, and there is nothing to say.
  const rampMatters = (rate: VerdictRate) => (OPENING_AND_RAMP_RTTS * rttMs) / 1000 >= RAMP_SHARE_WORTH_SAYING * rate.yoursSeconds;
  const short = rates.filter((rate) => rate.workload === 'file' && rate.steadyBitsPerSecond === undefined && rampMatters(rate));
  const [first] = short;
  if (!first) return '';
  // Which copies: beside a write read once under way, "the test file was too short" alone reads as both.
  const ops = ['read', 'write'].filter((op) => short.some((rate) => rate.op === op));
  const which = ops.length === 2 ? 'read and written' : ops[0] === 'read' ? 'read' : 'written';
  const its = short.length > 1 ? 'its rates include' : 'its rate includes';
  return ` The test file (${formatBytes(first.bytes)}) was too short to reach the rate a large file holds once under way, ${which}: ${its} the opening round trips and TCP's ramp.`;
}

function ratesLine(label: string, rates: readonly VerdictRate[], pick: (rate: VerdictRate) => number | undefined): string {
  const parts: string[] = [];
  for (const kind of ['file', 'small-files'] as const) {
    const ops = rates.filter((rate) => rate.workload === kind && pick(rate) !== undefined);
    if (ops.length === 0) continue;
    const text = ops.map((rate) => `${rate.op === 'write' ? 'writes' : 'reads'} at ${bitRateText(pick(rate) ?? 0)}`).join(', ');
    parts.push(`${kind === 'file' ? 'a large file' : 'many small files'} ${text}`);
  }
  return `${label}: ${parts.join('; ')}.`;
}

/** Where this machine was too busy to measure the two machines well: said, with how far its runs differed. */
function busyNote(report: Report): string {
  const hosts = report.pathModel?.hostCosts;
  if (hosts?.load && crowdedByOthers(hosts)) {
    return ` This PC was busy: other programs kept ${hosts.load.otherCores.toFixed(1)} of its ${hosts.load.cores} cores busy as Pipefill measured the two machines, so a copy ran on whatever they left. What the two machines allow is less sure, and no copy is called outside the model; run again with them closed for a surer answer.`;
  }
  const noise = hosts?.noise;
  if (noise === undefined || !(noise >= BUSY_CALIBRATION_NOISE)) return '';
  return ` This PC was busy while Pipefill measured the two machines (its repeated runs strayed ${Math.round(noise * 100)}% from their median): what they allow is that much less sure, and no copy within it is called outside the model.`;
}

/** A path MTU below Ethernet's, as the path line says it: the packets' size and what it takes from each (the model's payload limit takes it too). */
function tunnelNote(report: Report): string {
  const { mtuBytes } = tunnelMtuOf(report.probes);
  if (mtuBytes === undefined) return '';
  const less = 1 - payloadEfficiency(true, mtuBytes) / payloadEfficiency(true);
  return `, ${mtuBytes}-byte packets (a tunnel or PPPoE: ${(less * 100).toFixed(1)}% less data a packet than Ethernet's)`;
}

/** Where the line came from iperf3 on several streams at once (the path lost packets, and one stream is held by the loss). */
function lineUnderLossNote(report: Report): string {
  const parallel = report.probes.bandwidth.parallel;
  return report.pathModel?.bandwidthFrom === 'streams' && parallel ? ` (iperf3 on ${parallel.streams} streams at once: the loss holds each one back)` : '';
}

/** The verdict for a report, from the recommendations for its client and server (`advice`; absent: none). */
export function buildVerdict(report: Report, advice: RecommendResult | undefined): Verdict {
  const client = assessedClient(report);
  const server = SERVER_PROFILES[report.options.server];
  const source = report.options.serverSource;
  const { bandwidthBitsPerSecond: lineBitsPerSecond, rttMs } = modelLinkOf(report);
  const measured = pairs(report, client, advice);
  const rates: VerdictRate[] = measured.map((pair) => {
    const steady = steadyOf(report, pair.yours);
    return {
      workload: pair.kind,
      op: pair.op,
      spec: pair.yours.workload.slice(0, 100),
      bytes: pair.bytes,
      yoursSeconds: pair.yours.measuredSeconds,
      projected: pair.yours.projected === true,
      ...(steady === undefined ? {} : { steadyBitsPerSecond: steady }),
      pathSeconds: pair.pathSeconds,
      ...(pair.pathBitsPerSecond === undefined ? {} : { pathBitsPerSecond: pair.pathBitsPerSecond }),
      // Read as the person's own copy is (a file's rate once under way), so the two columns compare like with like.
      ...(pair.best ? { bestPipelineBitsPerSecond: steadyOf(report, pair.best) ?? (pair.bytes * 8) / pair.best.measuredSeconds } : {}),
    };
  });
  const ranked = [...measured].sort((a, b) => b.costSeconds - a.costSeconds);
  // The costliest copy that lost more than its share against the path: the client runs as fast as the path allows
  // only where every copy does (a quick run's 1.73 s on a 20 s write hid 1.52 s lost on a 3.47 s read, which the
  // default run of the same share named).
  const beyond = ranked.find((pair) => pair.costSeconds > AS_FAST_AS_PATH * pair.pathSeconds);
  const asFast = beyond === undefined;
  // Where none did, the copy that ran furthest behind the model: what limits the path itself is Pipefill's own copy of it.
  const worst = beyond ?? [...measured].sort((a, b) => behindModel(b) - behindModel(a))[0];
  const pathLimit = worst?.best;
  const limit: Verdict['limit'] =
    worst && !asFast
      ? {
          layer: worst.yours.limitedBy,
          label: LAYER_LABELS[worst.yours.limitedBy],
          sentence: capitalise(firstSentence(causeOf(worst.yours))),
          op: worst.op,
          workload: worst.kind,
          costSeconds: worst.costSeconds,
        }
      : {
          layer: 'none',
          label: 'Nothing on the client',
          sentence:
            pathLimit && pathLimit.limitedBy !== 'bandwidth'
              ? `Your client runs as fast as this path allows; the path is held by ${LAYER_LABELS[pathLimit.limitedBy]}.`
              : 'Your client runs as fast as this path allows: the link is full.',
          costSeconds: worst?.costSeconds ?? 0,
        };
  const fix = fixFor(worst, advice, asFast, pathLimit);
  const nextFound =
    fix.kind === 'change'
      ? nextChange(
          ranked.filter((pair) => pair !== worst),
          advice,
          worst,
          fix,
        )
      : undefined;
  const next = nextFound ? nextSentence(nextFound) : undefined;
  // Where the client runs as fast as the path allows, nothing is worth changing: no list of changes either.
  const changes = worst && !asFast ? everyChange(advice, fix, nextFound?.fix) : [];
  const heldBack = measured.flatMap((pair) => {
    const change = bestChange(advice, pair);
    return change ? [{ op: pair.op, workload: pair.kind, knob: change.recommendation.knob }] : [];
  });
  // As the copies negotiated it (the dialect, the signing or sealing), not the profile's nominal security.
  const clientLabel = clientAsNegotiated(CLIENT_PROFILES[client], report.copyTests.find((copy) => copy.profile === client)?.negotiated);
  const retransmissions = retransmissionsOf(report, client);
  // A queue on the path that grows under load: said with the path, where the network team reads it.
  const queue = queueOf(report, client);
  const readiness = readinessOf(report, client);
  const readyLine = readinessLine(readiness);
  const lines = [
    `${ratesLine(`Your copies with ${clientLabel}${report.options.threads ? `, small files by robocopy /MT:${report.options.threads}` : ''}`, rates, yourBitsPerSecond)}${shortSampleNote(rates, rttMs)}`,
    `${ratesLine(advice && advice.recommendations.length > 0 ? 'This path allows, with the changes below' : 'This path allows', rates, pathBitsPerSecondOf).replace(/\.$/, '')} — ${
      report.crypto?.serverOnThisMachine
        ? `the share is on this machine: no network between, ${formatDuration(rttMs)} a round trip`
        : `the line is ${formatRate(lineBitsPerSecond)}${lineUnderLossNote(report)}, ${formatDuration(rttMs)} round trip${tunnelNote(report)}`
    }; the server is ${familyOf(server.label)} (${serverSourceText(source)}).${busyNote(report)}${queue ? ` ${queue.sentence}` : ''}`,
    `${
      limit.layer === 'none'
        ? limit.sentence
        : `What holds them back: ${limit.label}, costing ${formatDuration(limit.costSeconds * 1000)} on the ${limit.workload === 'file' ? 'large-file' : 'small-files'} ${limit.op}.${
            toldByRetransmissions(limit, retransmissions) ? '' : ` ${limit.sentence}`
          }`
    }${retransmissions ? ` ${retransmissions.sentence}` : ''}`,
    fix.sentence,
    ...(next ? [next.sentence] : []),
    // Will Windows 11 24H2 and Server 2025 open this share as it is set up (issue 50).
    ...(readyLine ? [readyLine] : []),
    // A change made since an earlier run of the share: what it promised, and what this run measured.
    ...(report.promises && report.promises.length > 0 ? [promisesLine(report.promises)] : []),
  ];
  return {
    client,
    clientLabel,
    server: { profile: server.id, label: server.label, source: source ?? { kind: 'given' } },
    rates,
    lineBitsPerSecond,
    rttMs,
    limit,
    fix,
    ...(next ? { next } : {}),
    changes,
    heldBack,
    ...(retransmissions ? { retransmissions } : {}),
    ...(readiness.length > 0 ? { readiness } : {}),
    ranked: ranked.map((pair) => ({
      op: pair.op,
      workload: pair.kind,
      costSeconds: pair.costSeconds,
      layer: pair.yours.limitedBy,
      sentence: causeOf(pair.yours),
    })),
    lines,
  };
}

/** The verdict's line for the changes made since the share's earlier run: what each promised, and what this run measured. */
export function promisesLine(promises: readonly PromiseCheck[]): string {
  return `Since the run of ${(promises[0]?.since ?? '').slice(0, 16).replace('T', ' ')} UTC: ${promises.map((check) => check.sentence).join(' ')}`;
}

/** A report's verdict: the one it carries, else built now (reports from before verdicts) from its advice (adviceOf). */
export function verdictOf(report: Report, advice: RecommendResult = adviceOf(report)): Verdict {
  return report.verdict ?? buildVerdict(report, advice);
}

/** What the verdict's rate rows are called in the report and the app. */
export const WORKLOAD_LABELS: Readonly<Record<Kind, string>> = { file: 'Large file', 'small-files': 'Many small files' };

/** A report's recommendations: the ones it carries, else made now for its client and server. */
export function adviceOf(report: Report): RecommendResult {
  return report.advice ?? recommendFromInput({ report });
}
