// The changes a verdict names: the one that speeds up the costliest copy
// most, the next worth making for another layer, and every other the advice
// holds, each with its own effect (the model's time for a copy a person knows
// with only that change made) and who makes it. Pure, like the verdict
// (verdict.ts) that says them.

import type { Op } from '../model/client-profiles.js';
import { formatDuration } from '../model/units.js';
import { EFFECT_WORKLOADS, effectText } from '../model/effect-workloads.js';
import { LAYER_LABELS } from '../model/layer-labels.js';
import type { RecommendationOut, RecommendResult } from '../contract/recommendation.js';
import type { Finding } from '../contract/report.js';
import type { Team, VerdictChange, VerdictFix, VerdictRate } from '../contract/verdict-schema.js';

export type Kind = VerdictRate['workload'];

/** A change that saves less than this share of a copy's time is not worth leading with. */
const WORTH_A_CHANGE = 0.05;
/** The copies a person knows, by kind: what every effect and the path's rates are told for. */
export const EFFECT_SPEC: Readonly<Record<Kind, string>> = { file: EFFECT_WORKLOADS[0], 'small-files': EFFECT_WORKLOADS[1] };
export const effectTest = (op: Op, kind: Kind) => `${op} ${EFFECT_SPEC[kind]}`;

const PLATFORM_WORDS: Readonly<Record<RecommendationOut['platform'], string>> = {
  'windows-client': 'on the Windows clients',
  'windows-server': 'on the Windows file server',
  samba: 'on the Samba server',
  ontap: 'on the NetApp filer',
  linux: 'on the Linux clients',
  macos: 'on the Mac clients',
  'copy-tool': 'in the copy tool',
};

/** Who makes a change on each platform: the person on their PC and copy tool, the server's team on the server. */
const TEAM_OF: Readonly<Record<RecommendationOut['platform'], Team>> = {
  'windows-client': 'pc',
  linux: 'pc',
  macos: 'pc',
  'copy-tool': 'pc',
  'windows-server': 'server',
  samba: 'server',
  ontap: 'server',
};

export interface Pair {
  readonly kind: Kind;
  readonly op: Op;
  readonly yours: Finding;
  /** Pipefill's own pipeline's copy of the same workload, where it ran. */
  readonly best?: Finding;
  readonly bytes: number;
  /** The time the path allows this copy (see VerdictRate.pathSeconds), and the rate it allows a copy a person knows. */
  readonly pathSeconds: number;
  readonly pathBitsPerSecond?: number;
  readonly costSeconds: number;
}

/** The recommendation that speeds up the costliest copy most (by the model, on the copy a person knows of the same kind). */
export function bestChange(advice: RecommendResult | undefined, worst: Pair): { recommendation: RecommendationOut; ratio: number } | undefined {
  if (!advice) return undefined;
  const test = effectTest(worst.op, worst.kind);
  let best: { recommendation: RecommendationOut; ratio: number } | undefined;
  for (const recommendation of advice.recommendations) {
    const effect = recommendation.tests.find((candidate) => candidate.test === test);
    if (!effect || !(effect.before > 0) || !Number.isFinite(effect.after)) continue;
    const ratio = effect.after / effect.before;
    if (ratio <= 1 - WORTH_A_CHANGE && (!best || ratio < best.ratio)) best = { recommendation, ratio };
  }
  return best;
}

const valueText = (value: RecommendationOut['value']) => (typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value));

export function fixFor(worst: Pair | undefined, advice: RecommendResult | undefined, asFast: boolean, pathLimit: Finding | undefined): VerdictFix {
  if (!worst || asFast) {
    const linkLimits = !pathLimit || pathLimit.limitedBy === 'bandwidth';
    return {
      kind: 'none',
      sentence: linkLimits
        ? 'Nothing on this path to fix: the link is the limit.'
        : `Nothing on the client to fix: it runs as fast as Pipefill's best pipeline here. What limits the path itself: ${LAYER_LABELS[pathLimit.limitedBy]}.`,
    };
  }
  const change = bestChange(advice, worst);
  if (!change) {
    const outside = worst.yours.limitedBy === 'unexplained' || worst.yours.limitedBy === 'hosts' || worst.yours.limitedBy === 'packet-loss';
    // The copy named, not "this": a change for another copy may stand in the list below (robocopy /MT:2 for the
    // small-files read, where the loss held the small-files write), and "no setting" read as none at all.
    const copy = `the ${worst.kind === 'file' ? 'large-file' : 'small-files'} ${worst.op}`;
    return {
      kind: 'none',
      sentence: outside
        ? `No setting Pipefill knows would speed up ${copy}: the cause lies outside what SMB, TCP and copy-tool settings change.`
        : `No setting Pipefill knows would speed up ${copy} on this path (${LAYER_LABELS[worst.yours.limitedBy]}).`,
    };
  }
  return changeFix(change.recommendation);
}

/**
 * A change as the verdict says it: the recommendation's own effect (the
 * model's time for the copy a person knows that it helps most, with only
 * this change made), so the headline, What to change, the CLI and the
 * ticket quote one figure for it.
 */
function changeFix(recommendation: RecommendationOut): Extract<VerdictFix, { kind: 'change' }> {
  const { before: beforeSeconds, after: afterSeconds } = recommendation.expectedSeconds;
  const example = effectText(recommendation.test) ?? recommendation.test;
  const where = PLATFORM_WORDS[recommendation.platform];
  return {
    kind: 'change',
    platform: recommendation.platform,
    knob: recommendation.knob,
    current: valueText(recommendation.current),
    value: valueText(recommendation.value),
    command: recommendation.command,
    example,
    beforeSeconds,
    afterSeconds,
    // "Set ... to": the value now may be a default assumed, not read (a server's credits show in what it granted, in the report).
    sentence: `Set ${recommendation.knob} to ${valueText(recommendation.value)} ${where}: then ${example} takes ${formatDuration(afterSeconds * 1000)} instead of ${formatDuration(beforeSeconds * 1000)}.`,
  };
}

/**
 * The next change worth making: the costliest remaining copy that another
 * layer holds back (credits behind a file copy, where round trips hold the
 * small files), with a change other than the first, and worth at least a
 * tenth of that copy's time. Undefined when there is none.
 */
export function nextChange(
  rest: readonly Pair[],
  advice: RecommendResult | undefined,
  worst: Pair | undefined,
  first: Extract<VerdictFix, { kind: 'change' }>,
): { fix: Extract<VerdictFix, { kind: 'change' }>; pair: Pair } | undefined {
  for (const pair of rest) {
    if (!worst || pair.yours.limitedBy === worst.yours.limitedBy || pair.costSeconds < NEXT_WORTH * pair.yours.measuredSeconds) continue;
    // A copy outside the model has no layer to blame: "Next, Outside the model cost the small-files write 424 ms: set
    // robocopy /MT:n to 8" (loopback, a server signing with AES-CMAC). Its change stays in the advice and the ticket.
    if (pair.yours.limitedBy === 'unexplained') continue;
    const others = advice ? { ...advice, recommendations: advice.recommendations.filter((recommendation) => recommendation.knob !== first.knob) } : undefined;
    const fix = fixFor(pair, others, false, undefined);
    if (fix.kind !== 'change') continue;
    // The line names one copy: the one whose effect it quotes, where the same layer cost that copy enough too
    // ("cost the large-file read ...: then reading a 1 GB file takes ..."). A default run said the credits cost the
    // read, a quick run of the same share the write, then both quoted reading: the two costs were a near tie.
    const test = others?.recommendations.find((recommendation) => recommendation.knob === fix.knob)?.test;
    const quoted = rest.find(
      (other) =>
        effectTest(other.op, other.kind) === test &&
        other.yours.limitedBy === pair.yours.limitedBy &&
        other.costSeconds >= NEXT_WORTH * other.yours.measuredSeconds,
    );
    // A change whose effect is for no copy this layer held back tells no story about that layer: "Bandwidth cost
    // the small-files read 1.79 s: set robocopy /MT:n to 2: then writing the 1 GB folder ..." (lab, a 64 KiB server
    // window). It stays in the recommendations and the ticket.
    if (quoted) return { fix, pair: quoted };
  }
  return undefined;
}

/** The next change as the verdict's line says it: which layer cost which copy how much, then the change. */
export function nextSentence({ fix, pair }: { fix: Extract<VerdictFix, { kind: 'change' }>; pair: Pair }): Extract<VerdictFix, { kind: 'change' }> {
  return {
    ...fix,
    sentence: `Next, ${LAYER_LABELS[pair.yours.limitedBy]} cost the ${pair.kind === 'file' ? 'large-file' : 'small-files'} ${pair.op} ${formatDuration(pair.costSeconds * 1000)}: ${fix.sentence.charAt(0).toLowerCase()}${fix.sentence.slice(1)}`,
  };
}

/** A second change is named only where its copy lost at least this share of its time. */
const NEXT_WORTH = 0.1;

/**
 * Every change the advice names: the fix and the next as the verdict says
 * them, then each other one with its own effect, in the advice's order (the
 * largest saving first). Each knob once.
 */
export function everyChange(advice: RecommendResult | undefined, fix: VerdictFix, next: VerdictFix | undefined): VerdictChange[] {
  if (!advice) return [];
  const named = [fix, next].filter((change): change is Extract<VerdictFix, { kind: 'change' }> => change?.kind === 'change');
  const teamOf = (knob: string) => {
    const platform = advice.recommendations.find((recommendation) => recommendation.knob === knob)?.platform;
    return platform ? TEAM_OF[platform] : 'pc';
  };
  const others = advice.recommendations
    .filter((recommendation) => !named.some((change) => change.knob === recommendation.knob))
    .map((recommendation) => ({ ...changeFix(recommendation), team: TEAM_OF[recommendation.platform] }));
  return [...named.map((change) => ({ ...change, team: teamOf(change.knob) })), ...others];
}
