// What a change promised, and what it bought: when a share is assessed again
// after a change Pipefill named, the new report says both ("robocopy /MT:4
// promised 97.4 s for writing the 1 GB folder of 300 small files; this run
// measured 1 min 41 s"). The promise is the earlier run's advice, the one
// every view quoted; the measurement is this run's own copy of the same
// direction and kind, told for the same copy a person knows. Pure.

import { EFFECT_WORKLOADS, effectText } from '../model/effect-workloads.js';
import { copyOf, copyRateOf } from './copy-rate.js';
import { formatDuration } from '../model/units.js';
import { parseWorkload } from '../model/workloads.js';
import { siteOf } from './history.js';
import { MIN_GAIN } from '../advice/recommend.js';
import { AS_EXPECTED_WITHIN, compareWithModel } from '../model/assessment.js';
import type { RecommendationOut, RecommendResult } from './recommendation.js';
import type { Report } from './report.js';
import type { PromiseCheck } from './promise-schema.js';

/** Within this of the promise, the change bought what it promised: what the lab shows the model achieves (AS_EXPECTED_WITHIN). */
export const PROMISE_KEPT_WITHIN = AS_EXPECTED_WITHIN;

/**
 * The hosts' calibrations' own scatter a promise is judged with (HostCosts.noise): the earlier run's, whose
 * calibration the promise rests on, or this run's, in which the copy was measured, whichever strayed more. The
 * same band a copy is judged "as expected" by (compareWithModel): on a share on this machine a promise made from
 * runs that scatter by a fifth about their median cannot be held closer than that. 0 where neither run
 * calibrated the hosts (a WAN path: the model's 15% alone).
 */
export function promiseScatter(earlier: Report, now: Report): number {
  const noiseOf = (report: Report) => {
    const noise = report.pathModel?.hostCosts?.noise;
    return noise !== undefined && Number.isFinite(noise) && noise > 0 ? noise : 0;
  };
  return Math.max(noiseOf(earlier), noiseOf(now));
}

const kindOf = (workload: string) => (workload.startsWith('file:') ? 'file' : 'dirset');

/**
 * This run's time for `test` (an effect workload: a 1 GB file, the 1 GB
 * folder), from the person's own copy of the same direction and kind. A file
 * copy that showed a steady rate: its time plus the rest of the bytes at
 * that rate (the opening and TCP's ramp counted once, as a 1 GB file pays
 * them). Otherwise its time scaled by the model's ratio of the two copies
 * for the path as it is now (`advice.combined`'s before: nothing changed).
 */
function measuredFor(report: Report, advice: RecommendResult, client: string, test: string): number | undefined {
  const [op, spec] = test.split(' ');
  if (op === undefined || spec === undefined) return undefined;
  const effect = parseWorkload(spec);
  const finding = report.diagnosis.findings.find((f) => f.profile === client && f.op === op && kindOf(f.workload) === kindOf(spec));
  if (!finding || !(finding.measuredSeconds > 0)) return undefined;
  const copy = copyOf(report.copyTests, finding);
  // The rate every view quotes for the copy, where it is a file's once under way (src/contract/copy-rate.ts).
  const rate = copy && !copy.projected && effect.kind === 'file' ? copyRateOf(report.copyTests, finding) : undefined;
  const steady = rate?.underWay ? rate.bitsPerSecond / 8 : undefined;
  if (copy && steady !== undefined && effect.totalBytes >= copy.bytes) return finding.measuredSeconds + (effect.totalBytes - copy.bytes) / steady;
  const modelNow = (name: string) => advice.combined.find((entry) => entry.test === name)?.before;
  const whole = modelNow(test);
  const sample = modelNow(`${op} ${finding.workload}`);
  return whole !== undefined && sample !== undefined && sample > 0 ? (finding.measuredSeconds * whole) / sample : undefined;
}

/**
 * The changes the earlier run of the same share named that this run found
 * made (no longer named, or named again from the value proposed then), each
 * with what it promised and what this run measured for the same copy. Empty where the runs are of
 * other shares, or the earlier one is not earlier.
 */
export function promisesKept(
  earlier: { readonly report: Report; readonly advice: RecommendResult },
  now: { readonly report: Report; readonly advice: RecommendResult },
): PromiseCheck[] {
  if (siteOf(earlier.report.target.share) !== siteOf(now.report.target.share)) return [];
  if (!(earlier.report.startedAt < now.report.startedAt) || earlier.advice.client !== now.advice.client) return [];
  const namedNow = new Map(now.advice.recommendations.map((recommendation) => [recommendation.id, recommendation]));
  // Made: no longer named, or named again from the value the earlier run proposed (robocopy at /MT:4 may still gain from 8).
  const made = (recommendation: RecommendationOut) => {
    const again = namedNow.get(recommendation.id);
    return again === undefined || String(again.current) === String(recommendation.value);
  };
  const checks: PromiseCheck[] = [];
  const scatter = promiseScatter(earlier.report, now.report);
  for (const recommendation of earlier.advice.recommendations) {
    if (!made(recommendation)) continue;
    for (const promise of promisesOf(recommendation)) {
      const measuredSeconds = measuredFor(now.report, now.advice, now.advice.client, promise.test);
      if (measuredSeconds === undefined || !(promise.after > 0)) continue;
      checks.push(checkOf(recommendation, { test: promise.test, promisedSeconds: promise.after, measuredSeconds, scatter }, earlier.report.startedAt));
    }
  }
  // Each promise was for its change alone: where several changes were made, say so beside each.
  const knobs = new Set(checks.map((check) => check.knob)).size;
  return checks.map((check) => (knobs > 1 ? withOthers(check, knobs - 1) : check));
}

/**
 * What a change promised for the copies a person knows (a 1 GB file, the 1 GB folder): the copy it helps most,
 * then every other of them it speeds up by as much as the advice weighs (MIN_GAIN), with the time the model gave
 * with that change alone. A change to the server's window promised the file and the folder both.
 */
function promisesOf(recommendation: RecommendationOut): { readonly test: string; readonly after: number }[] {
  const known = (test: string) => (EFFECT_WORKLOADS as readonly string[]).includes(test.split(' ')[1] ?? '');
  const own = known(recommendation.test) ? [{ test: recommendation.test, after: recommendation.expectedSeconds.after }] : [];
  const others = recommendation.tests
    .filter((entry) => entry.test !== recommendation.test && known(entry.test) && entry.before > 0 && (entry.before - entry.after) / entry.before >= MIN_GAIN)
    .map((entry) => ({ test: entry.test, after: entry.after }));
  return [...own, ...others];
}

function withOthers(check: PromiseCheck, others: number): PromiseCheck {
  return {
    ...check,
    alsoMade: others,
    sentence: check.sentence.replace(/\.$/, ` (with ${others} other change made since: the promise was for this one alone).`),
  };
}

interface Measured {
  readonly test: string;
  readonly promisedSeconds: number;
  readonly measuredSeconds: number;
  /** promiseScatter: 0 on a WAN path. */
  readonly scatter: number;
}

function checkOf(recommendation: RecommendationOut, measured: Measured, since: string): PromiseCheck {
  const { test, promisedSeconds, measuredSeconds, scatter } = measured;
  const kept = compareWithModel(measuredSeconds, { seconds: promisedSeconds }, scatter).verdict === 'as-expected';
  const off = Math.abs(measuredSeconds / promisedSeconds - 1);
  const value = typeof recommendation.value === 'boolean' ? (recommendation.value ? 'on' : 'off') : String(recommendation.value);
  const copy = effectText(test) ?? test;
  const direction = measuredSeconds > promisedSeconds ? 'slower' : 'faster';
  // Kept only by the hosts' scatter: said, so that "kept" is not read as closer than the runs could tell.
  const how = !kept
    ? `, ${direction} than promised by ${Math.round(off * 100)}%`
    : off > PROMISE_KEPT_WITHIN
      ? `, ${Math.round(off * 100)}% ${direction}: within what this PC's own speed strayed by as Pipefill measured the two machines (${Math.round(scatter * 100)}%)`
      : '';
  return {
    knob: recommendation.knob,
    value,
    test,
    promisedSeconds,
    measuredSeconds,
    ...(scatter > 0 ? { scatter } : {}),
    since,
    kept,
    alsoMade: 0,
    sentence: `${recommendation.knob} at ${value} promised ${formatDuration(promisedSeconds * 1000)} for ${copy}; this run measured ${formatDuration(measuredSeconds * 1000)}${how}.`,
  };
}
