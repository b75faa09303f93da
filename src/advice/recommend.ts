// From a path (measured or planned), a client and a server to settings that
// make copies faster: each knob's value comes from the path's BDP, the model
// weighs it on the two copies a person recognises (a 1 GB file, and
// TR-3869's 1 GiB folder of 300 office files), read and written, and only
// what the model says helps is kept, with the time before and after for the
// copy it helps most: the one effect every view quotes for the change.

import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Observations } from '../model/server-as-seen.js';
import { clientAsSeen, serverAsSeen } from '../model/server-as-seen.js';
import { requestBytes } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { bdpBytes } from '../model/link.js';
import type { Session } from '../model/in-flight.js';
import type { ProtectionRequest } from '../model/negotiation.js';
import { negotiate } from '../model/negotiation.js';
import { parallelSeconds } from '../model/parallel.js';
import type { ServerProfileId } from '../model/server-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { formatBytes, formatDuration, formatRate } from '../model/units.js';
import type { Workload } from '../model/workloads.js';
import { parseWorkload } from '../model/workloads.js';
import { EFFECT_WORKLOADS } from '../model/effect-workloads.js';
import { PipefillInputError } from '../model/errors.js';
import type { Knob, KnobValue, Platform, Setup } from './knobs.js';
import { clientPlatform, KNOBS, serverPlatform } from './knobs.js';

export interface RecommendInput {
  readonly link: Link;
  readonly client: ClientProfileId;
  readonly server: ServerProfileId;
  /** Values read from the systems (a Samba smb.conf through testparm, this machine's sysctls), by knob id. */
  readonly current?: Readonly<Record<string, KnobValue>>;
  /** What an assessment's copies revealed about the server. */
  readonly observations?: Observations;
  /** What protects the data (default: what the pair negotiates), and the session's connections (default 1). */
  readonly security?: ProtectionRequest;
  readonly channels?: number;
  /**
   * More workloads to weigh every change on (an assessment's own copies, a
   * readiness target's 100 MB file): in each recommendation's `tests` and in
   * `combined`, never what a change is chosen or headlined by.
   */
  readonly workloads?: readonly string[];
}

export interface Recommendation {
  readonly id: string;
  readonly knob: string;
  readonly platform: Platform;
  readonly value: KnobValue;
  readonly current: KnobValue;
  /** `current` is what the copies showed (credits granted), not a setting read or a default. */
  readonly currentFrom?: 'observed';
  readonly default: KnobValue;
  readonly range?: readonly [number, number];
  readonly command: string;
  /** The test this helps most, and its time before and after (model seconds). */
  readonly test: string;
  readonly expectedSeconds: { readonly before: number; readonly after: number };
  /** Every test's time with this change alone. */
  readonly tests: readonly { readonly test: string; readonly before: number; readonly after: number }[];
  readonly why: string;
  readonly caution?: string;
  readonly source: string;
}

export interface RecommendResult {
  readonly recommendations: readonly Recommendation[];
  /**
   * Settings that protect the data, not yet at their strongest, with what
   * each would cost: for a person to weigh, never a speed recommendation.
   */
  readonly protections: readonly Recommendation[];
  /** Every test with all the recommendations applied together. */
  readonly combined: readonly { readonly test: string; readonly before: number; readonly after: number }[];
}

interface Test {
  readonly label: string;
  readonly op: Op;
  readonly workload: Workload;
}

const testsOf = (specs: readonly string[]): Test[] =>
  specs.flatMap((spec) => (['read', 'write'] as const).map((op) => ({ label: `${op} ${spec}`, op, workload: parseWorkload(spec) })));

const TESTS: readonly Test[] = testsOf(EFFECT_WORKLOADS);

/** A workload this Pipefill can weigh (a report from a newer one may name another): weighed if so, else left out. */
function knownWorkload(spec: unknown): spec is string {
  if (typeof spec !== 'string') return false;
  try {
    parseWorkload(spec);
    return true;
  } catch (error) {
    if (error instanceof PipefillInputError) return false;
    throw error;
  }
}

/** A change must save at least this share of a test's time to be worth a recommendation. */
export const MIN_GAIN = 0.05;
const ROBOCOPY_LANES = [2, 4, 8, 16, 32, 64, 128];

/** The session a setup negotiates; undefined when the pair could not connect at all with these settings. */
function sessionOf(setup: Setup, request: ProtectionRequest): Session | undefined {
  try {
    return { protection: negotiate(setup.client, setup.server, request).protection, channels: setup.channels };
  } catch {
    return undefined;
  }
}

const seconds = (setup: Setup, test: Test, link: Link) => {
  const session = sessionOf(setup, setup.request);
  return session ? parallelSeconds(setup.client, setup.server, test.op, test.workload, link, setup.lanes, session) : Infinity;
};

/** What the copies showed of a knob's value, where it was not read. */
function observedValue(knob: Knob, input: RecommendInput): KnobValue | undefined {
  return input.current?.[knob.id] === undefined && input.observations ? knob.observed?.(input.observations) : undefined;
}

/** What the copies showed of a setting: the credits the server granted, or the receive buffer its window gave away. */
function observedWords(current: KnobValue): string {
  return typeof current === 'number' ? `(the server granted at most ${current})` : `(${String(current)}, as the copies saw it)`;
}

/** What is set today: read (input.current), else what the copies showed (the credits the server granted), else the default. */
function currentValue(knob: Knob, input: RecommendInput): KnobValue {
  return input.current?.[knob.id] ?? observedValue(knob, input) ?? knob.defaultValue;
}

function bestTest(before: Setup, after: Setup, link: Link): { test: Test; before: number; after: number } | undefined {
  let best: { test: Test; before: number; after: number } | undefined;
  for (const test of TESTS) {
    const b = seconds(before, test, link);
    const a = seconds(after, test, link);
    if (!Number.isFinite(b) || !Number.isFinite(a)) continue;
    if ((b - a) / b >= MIN_GAIN && (!best || b - a > best.before - best.after)) best = { test, before: b, after: a };
  }
  return best;
}

/** robocopy /MT: the fewest threads that get 90% of what 128 would save on the directory set. */
function proposeLanes(setup: Setup, link: Link): number | undefined {
  const dirTests = TESTS.filter((test) => test.workload.kind === 'dirset');
  const saved = (lanes: number) => Math.max(...dirTests.map((test) => seconds(setup, test, link) - seconds({ ...setup, lanes }, test, link)));
  const most = saved(ROBOCOPY_LANES[ROBOCOPY_LANES.length - 1] ?? 128);
  if (most <= 0) return undefined;
  return ROBOCOPY_LANES.find((lanes) => saved(lanes) >= 0.9 * most);
}

function platformsFor(input: RecommendInput): Set<Platform> {
  const platforms = new Set<Platform>([serverPlatform(input.server)]);
  const client = clientPlatform(input.client);
  if (client) platforms.add(client);
  if (client === 'windows-client' && CLIENT_PROFILES[input.client].protocol === 'smb2') platforms.add('copy-tool');
  return platforms;
}

function recommendation(
  knob: Knob,
  value: KnobValue,
  current: KnobValue,
  base: Setup,
  after: Setup,
  link: Link,
  best: { test: Test; before: number; after: number },
  why: string,
  weighed: readonly Test[],
  observed = false,
): Recommendation {
  return {
    id: knob.id,
    knob: knob.name,
    platform: knob.platform,
    value,
    current,
    ...(observed ? { currentFrom: 'observed' as const } : {}),
    default: knob.defaultValue,
    ...(knob.range ? { range: knob.range } : {}),
    command: knob.command(value),
    test: best.test.label,
    expectedSeconds: { before: best.before, after: best.after },
    tests: weighed.map((test) => ({ test: test.label, before: seconds(base, test, link), after: seconds(after, test, link) })),
    why,
    ...(knob.caution ? { caution: knob.caution } : {}),
    source: knob.source,
  };
}

const pathText = (link: Link) => `${formatRate(link.bandwidthBitsPerSecond)}, ${formatDuration(link.rttMs)} (BDP ${formatBytes(bdpBytes(link))})`;

/** The test a protection setting costs most, by share of its time. */
function costliest(before: Setup, after: Setup, link: Link): { test: Test; before: number; after: number } | undefined {
  let worst: { test: Test; before: number; after: number } | undefined;
  for (const test of TESTS) {
    const b = seconds(before, test, link);
    const a = seconds(after, test, link);
    if (!Number.isFinite(b) || !Number.isFinite(a)) continue;
    if (!worst || a / b > worst.after / worst.before) worst = { test, before: b, after: a };
  }
  return worst;
}

export function recommend(input: RecommendInput): RecommendResult {
  const { link } = input;
  const platforms = platformsFor(input);
  const extra = (input.workloads ?? []).filter((spec) => !(EFFECT_WORKLOADS as readonly string[]).includes(spec) && knownWorkload(spec));
  const weighed = [...TESTS, ...testsOf([...new Set(extra)])];
  let base: Setup = {
    client: CLIENT_PROFILES[input.client],
    server: SERVER_PROFILES[input.server],
    lanes: 1,
    channels: input.channels ?? 1,
    request: input.security ?? 'auto',
  };
  // What is set today, where it could be read, then what the copies revealed.
  for (const knob of KNOBS) {
    const value = input.current?.[knob.id];
    if (value !== undefined && knob.effect) base = knob.effect(base, value);
  }
  if (input.observations) {
    base = { ...base, client: clientAsSeen(base.client, input.observations), server: serverAsSeen(base.server, 'write', input.observations) };
  }

  const recommendations: Recommendation[] = [];
  const protections: Recommendation[] = [];
  let all = base;
  for (const knob of KNOBS) {
    if (!platforms.has(knob.platform) || !knob.effect) continue;
    const current = currentValue(knob, input);
    if (knob.protection) {
      // Protection is never traded for speed: only its strongest value is ever put forward, with its cost.
      const strongest = knob.protection.strongest;
      const after = knob.effect(base, strongest);
      if (knob.propose?.(contextFor(base, link)) === strongest) {
        const best = bestTest(base, after, link);
        if (best) {
          all = knob.effect(all, strongest);
          recommendations.push(
            recommendation(
              knob,
              strongest,
              current,
              base,
              after,
              link,
              best,
              `${knob.name} ${observedValue(knob, input) !== undefined ? observedWords(current) : String(current)} -> ${String(strongest)}: ${best.test.label} from ${formatDuration(best.before * 1000)} to ${formatDuration(best.after * 1000)} on ${pathText(link)}, with the data as protected as before.`,
              weighed,
              observedValue(knob, input) !== undefined,
            ),
          );
          continue;
        }
      }
      // A list of algorithms is a preference, not more protection: it is only ever put forward above, for speed.
      if (current === strongest || knob.type === 'text') continue;
      const cost = costliest(base, after, link);
      if (!cost) continue;
      const percent = Math.round((cost.after / cost.before - 1) * 100);
      protections.push(
        recommendation(
          knob,
          strongest,
          current,
          base,
          after,
          link,
          cost,
          `${knob.name} ${String(current)} -> ${String(strongest)} protects ${knob.protection.protects}; on ${pathText(link)} it costs ${percent <= 0 ? 'nothing the model can see' : `${percent}% (${cost.test.label}: ${formatDuration(cost.before * 1000)} -> ${formatDuration(cost.after * 1000)})`}. Yours to decide; Pipefill never proposes weaker protection.`,
          weighed,
        ),
      );
      continue;
    }
    const value = knob.id === 'copy-tool.robocopy-mt' ? proposeLanes(base, link) : knob.propose?.(contextFor(base, link));
    if (value === undefined || value === current) continue;
    if (knob.range && typeof value === 'number' && (value < knob.range[0] || value > knob.range[1])) continue;
    const after = knob.effect(base, value);
    const best = bestTest(base, after, link);
    if (!best) continue;
    all = knob.effect(all, value);
    const observed = observedValue(knob, input) !== undefined;
    recommendations.push(
      recommendation(
        knob,
        value,
        current,
        base,
        after,
        link,
        best,
        `${knob.name} ${observed ? observedWords(current) : String(current)} -> ${String(value)}: ${best.test.label} from ${formatDuration(best.before * 1000)} to ${formatDuration(best.after * 1000)} on ${pathText(link)}.`,
        weighed,
        observed,
      ),
    );
  }
  recommendations.sort((a, b) => b.expectedSeconds.before - b.expectedSeconds.after - (a.expectedSeconds.before - a.expectedSeconds.after));
  return {
    recommendations,
    protections,
    combined: weighed.map((test) => ({ test: test.label, before: seconds(base, test, link), after: seconds(all, test, link) })),
  };
}

function contextFor(setup: Setup, link: Link) {
  return {
    link,
    bdpBytes: bdpBytes(link),
    setup,
    requestBytes: Math.max(requestBytes(setup.client, setup.server, 'read'), requestBytes(setup.client, setup.server, 'write')),
  };
}
