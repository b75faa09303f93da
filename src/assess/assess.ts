// The assessment: probe the path, run every chosen generation's test copies
// (sized by the model to about a minute), set each against the model's
// expectation on the probed path, and put it all in one report.

import { arch, platform, release } from 'node:os';
import type { CallOptions } from '../contract/api.js';
import type { CopyTestResult, ProgressEvent } from '../contract/copy-test.js';
import { RunProgress } from './run-progress.js';
import type { AssessParsedInput, Report } from '../contract/report.js';
import { REPORT_SCHEMA_VERSION } from '../contract/report.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { parseWorkload } from '../model/workloads.js';
import { withFolderLeft } from '../copy/scratch-end.js';
import { pipefillVersion } from '../platform/package-root.js';
import { protectionCheck } from './protection-check.js';
import { BudgetKeeper } from './budget-keeper.js';
import type { PlannedCopy } from './copy-plan.js';
import type { Judgement } from './judge.js';
import { judgeCopies } from './judge.js';
import { readsBackLater } from './copy-plan.js';
import { AssessmentCopies, readBackKey } from './copy-run.js';
import type { CopyBudgetOptions } from '../copy/copy-budget.js';
import { SETTLE_RULE_TEXT } from '../model/settle.js';
import { cancelledError } from '../smb/errors.js';
import { recommendFromInput } from '../contract/recommend.js';
import { adviceOf, buildVerdict } from '../presentation/verdict.js';
import { promisesKept } from '../contract/promises.js';

import type { Probed, RunModel, RunPlan, RunSetup } from './run-phases.js';
import { calibratePhase, inStep, planPhase, probePhase, runModel, setUpRun, signalOf } from './run-phases.js';
import { lineSecondsToHold, lineTestWanted, withLineUnderLoss } from './line-under-loss.js';
import { lineRateOf } from '../model/link.js';

export { assessedProfiles, DEFAULT_BUDGET_SECONDS } from '../contract/report.js';
export { DEFAULT_ASSESS_SERVER } from './run-phases.js';

export async function assess(input: AssessParsedInput, options: CallOptions = {}): Promise<Report> {
  let progress: RunProgress | undefined;
  try {
    const report = await assessWith(input, options, (budget) => (progress = new RunProgress(options.onProgress, budget)));
    progress?.done();
    return report;
  } finally {
    // A failed or cancelled run sends nothing more (and no "done").
    progress?.stop();
  }
}

const READING_BACK = 'reading back what the file copies wrote';

/**
 * The copies, in the plan's order, each within the slot the budget keeper
 * gives it; then the file writes' read-backs, side by side. Each result by
 * its index in the plan, read-backs marked verified.
 */
async function copyPhase(
  setup: RunSetup,
  model: RunModel,
  plan: RunPlan,
  copies: AssessmentCopies,
  progress: RunProgress,
  keeper: BudgetKeeper | undefined,
  onFastPath: boolean,
): Promise<Map<number, CopyTestResult>> {
  const { elapsed } = setup;
  const { link, lanesOf } = model;
  const { order } = plan;
  const results = new Map<number, CopyTestResult>();
  const total = order.length;
  let done = 0;
  let readBacksStarted = false;
  const run = async (copy: PlannedCopy | undefined, profile: ClientProfileId, op: Op, workload: string, budget: CopyBudgetOptions | undefined) => {
    const index = copy ? done : -1;
    const step = copy ? `${profile} ${op} ${workload} (${done + 1} of ${total})` : `the read source (${workload})`;
    const test = { profile, op, workload, index: Math.max(0, index), count: total };
    const totalBytes = parseWorkload(workload).totalBytes;
    // Through the copy's step: its bytes, or its time slot where a budget may stop it before its bytes are all moved.
    const copyStarted = elapsed();
    const within = (bytes: number) =>
      Math.min(0.9, Math.max(totalBytes > 0 ? bytes / totalBytes : 0, budget ? (elapsed() - copyStarted) / budget.maxSeconds : 0));
    const stepIndex = 1 + Math.max(0, index);
    return inStep(step, () =>
      copies.copy(profile, op, workload, {
        link,
        readBackLater: readsBackLater({ op, workload }),
        ...(budget ? { budget } : {}),
        ...lanesOf(profile, workload),
        onLive: (live) =>
          progress.report(`${step}: copy`, stepIndex, within(live.bytes), {
            bytes: live.bytes,
            totalBytes,
            test,
            live: { tMs: live.tMs, mbps: live.mbps, opsPerSecond: live.opsPerSecond },
          }),
        // A write's read-back runs with the others after the copies (readBackWrites), under that step's name.
        onVerify: (bytes) =>
          readBacksStarted
            ? progress.report(READING_BACK, progress.readBackStep, 0, { bytes, totalBytes })
            : progress.report(`${step}: verify`, stepIndex, 0.9, { bytes, totalBytes, test }),
      }),
    );
  };
  for (const copy of order) {
    if (setup.signal?.aborted) throw cancelledError();
    // A workload whose source Pipefill's own write does not lay (pipefill-max not chosen): write it first, unreported.
    if (copy.op === 'read' && !copies.hasSource(copy.workload) && plan.sourceWrites.includes(copy.workload))
      await run(undefined, 'pipefill-max', 'write', copy.workload, undefined);
    let budget: CopyBudgetOptions | undefined;
    // On a fast path a file write moves whole: a server's storage may take its first hundred megabytes at one
    // rate and the rest at another (a page cache finding new pages, a disk falling behind), and a copy stopped once
    // its rate settled would project the first (loopback, 256 MiB: 0.25 s projected, 0.64 s whole). Whole, it
    // costs under a second there.
    const wholeOnFastPath = onFastPath && copy.op === 'write' && parseWorkload(copy.workload).kind === 'file';
    // A copy in lanes moves whole too (a budget's projection assumes one file at a time), and so does the write that
    // lays its read source: a read in lanes reads every file (a stopped source write left dir01/file003.ppt unwritten).
    const inLanes = lanesOf(copy.profile, copy.workload).lanes !== undefined;
    const laysLanesSource = copy.profile === 'pipefill-max' && copy.op === 'write' && lanesOf(setup.client, copy.workload).lanes !== undefined;
    if (keeper && !wholeOnFastPath && !inLanes && !laysLanesSource) budget = keeper.slotFor(copy, order.slice(order.indexOf(copy)));
    progress.report(`${copy.profile} ${copy.op} ${copy.workload} (${done + 1} of ${total})`, 1 + done);
    const copyStarted = elapsed();
    results.set(copy.index, await run(copy, copy.profile, copy.op, copy.workload, budget));
    if (budget) keeper?.ran(copy, budget, elapsed() - copyStarted);
    keeper?.holdLine(lineTestWanted([...results.values()]));
    done += 1;
  }
  progress.report(READING_BACK, progress.readBackStep);
  readBacksStarted = true;
  const readBack = await inStep(READING_BACK, () => copies.readBackWrites());
  for (const [index, result] of results) {
    if (readBack.has(readBackKey(result.profile, result.op, result.workload))) results.set(index, { ...result, verified: true });
  }
  return results;
}

/** Everything the report is made of, measured and judged. */
interface RunOutcome {
  readonly setup: RunSetup;
  readonly probed: Probed;
  readonly model: RunModel;
  readonly plan: RunPlan;
  readonly judged: Judgement;
  readonly check: Awaited<ReturnType<typeof protectionCheck>>;
  readonly timing: Report['timing'];
  readonly finishedAt: string;
  readonly keptByRecycleBin: string | undefined;
}

/**
 * The report, and the answer first: the advice for the person's client with
 * the change that helps most, what the changes an earlier run named promised
 * and what this run measured, and the verdict every output opens on.
 */
function reportOf(outcome: RunOutcome): Report {
  const { setup, probed, model, plan, judged, check } = outcome;
  const { input, profiles, client, quick, threads, budgetSeconds } = setup;
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    startedAt: setup.startedAt,
    finishedAt: outcome.finishedAt,
    target: { share: input.share.text, user: input.user, ...(input.domain === undefined ? {} : { domain: input.domain }) },
    environment: { pipefillVersion: pipefillVersion(), node: process.version, platform: platform(), release: release(), arch: arch() },
    crypto: { rates: model.cryptoRates, serverOnThisMachine: setup.onThisMachine },
    ...(check ? { protectionCheck: check } : {}),
    options: {
      profiles: [...profiles],
      client,
      server: probed.server,
      serverSource: probed.serverSource,
      quick,
      ...(threads > 1 ? { threads } : {}),
      fileBytes: plan.size.fileBytes,
      dirsetScale: plan.size.dirsetScale,
      budgetSeconds,
      ...(budgetSeconds === null ? {} : { settleRule: SETTLE_RULE_TEXT }),
    },
    probes: probed.probes,
    pathModel: { ...judged.pathModel, ...(judged.hostCosts ? { hostCosts: judged.hostCosts } : {}) },
    timing: outcome.timing,
    ...(outcome.keptByRecycleBin === undefined ? {} : { keptByRecycleBin: outcome.keptByRecycleBin }),
    copyTests: [...judged.copyTests],
    diagnosis: { headline: '', findings: [...judged.findings] },
  };
  const advice = recommendFromInput({ report });
  const promises = input.since ? promisesKept({ report: input.since, advice: adviceOf(input.since) }, { report, advice }) : [];
  const checked: Report = promises.length > 0 ? { ...report, promises } : report;
  const verdict = buildVerdict(checked, advice);
  return { ...checked, advice, verdict, diagnosis: { headline: verdict.lines.slice(0, 4).join(' '), findings: [...judged.findings] } };
}

/**
 * The assessment's phases, in order: the probe (with every generation's
 * session opening beside it), the hosts' calibration on a fast path, the
 * plan, the copies, the judging (judge.ts, pure), the signing check, the
 * clean-up, the report.
 */
async function assessWith(
  input: AssessParsedInput,
  options: CallOptions,
  startProgress: (budget: () => ProgressEvent['budget']) => RunProgress,
): Promise<Report> {
  const setup = setUpRun(input, options);
  const { budgetSeconds, elapsed, credentials, profiles } = setup;
  const progress = startProgress(() => (budgetSeconds === null ? undefined : { seconds: budgetSeconds, elapsedSeconds: setup.spent() }));
  progress.report('probe', 0);
  // The sessions open beside the probe: a few round trips each, next to nothing on the link.
  // With them, the signing check's own session, unless there will be no check: no pipefill-max read to compare
  // with, or every session protected already.
  const signedCheck = profiles.includes('pipefill-max') && credentials.security?.signing !== 'required' && credentials.security?.encryption !== 'required';
  const copiesOpening = AssessmentCopies.open(setup.share, credentials, profiles, { ...signalOf(setup), signed: signedCheck });
  copiesOpening.catch(() => undefined);
  const probed = await probePhase(setup, copiesOpening);
  const calibration = await calibratePhase(setup, probed.probes, progress, copiesOpening);
  const copies = await inStep('opening a session per generation', () => copiesOpening);
  try {
    const model = runModel(setup, probed.probes, calibration, probed.server);
    const plan = planPhase(setup, model, probed.server);
    progress.plan(plan.order.length);
    progress.report('making the scratch folders', 0, 0.9);
    await inStep('making the scratch folders', () => copies.prepareFolders(plan.copiedWorkloads, plan.targetWrites));
    // Where the hosts were measured, the copies' sessions start as the calibration's did (server-warm-up.ts).
    if (calibration) await inStep("warming the server's connections", () => copies.warmServers());
    const setUpSeconds = elapsed() - probed.probeSeconds;
    const keeper =
      budgetSeconds === null
        ? undefined
        : new BudgetKeeper({
            budgetSeconds,
            spent: setup.spent,
            rttMs: model.link.rttMs,
            entries: plan.entries,
            readBackSeconds: plan.readBackExpected,
            checkSeconds: plan.checkExpected,
            lineSeconds: lineSecondsToHold(probed.probes),
          });
    const results = await copyPhase(setup, model, plan, copies, progress, keeper, calibration !== undefined);
    // Where the copies found the path losing packets, the line again on several streams (line-under-loss.ts).
    const probes = await inStep('the line under loss', () => withLineUnderLoss(setup, probed.probes, [...results.values()]));
    const { parallel } = probes.bandwidth;
    const judged = judgeCopies({
      planned: plan.planned,
      order: plan.order,
      results,
      link: model.link,
      calibrationSamples: calibration?.samples ?? [],
      ...(parallel ? { parallelLineBitsPerSecond: lineRateOf(parallel.mbps * 1e6, model.link.mtuBytes) } : {}),
      server: model.serverProfile,
      serverOnLoopback: setup.onThisMachine,
      stack: model.stack,
      driven: model.driven,
      lanesOf: model.lanesOf,
      warmSender: plan.warmSender,
      projectWithoutCopy: (...args) => copies.projectWithoutCopy(...args),
    });
    const copiesSeconds = elapsed() - probed.probeSeconds - setUpSeconds;
    // Signing on, signing off, the same copy: a path that misbehaves slows both; a protocol that costs slows one.
    const checkBudget = keeper?.checkSlot();
    progress.report('the signing check', progress.checkStep);
    const check = await inStep('the signing check', () =>
      protectionCheck({
        share: setup.share,
        credentials,
        link: model.link,
        stack: model.stack,
        server: model.serverProfile,
        copyTests: judged.copyTests,
        readSigned: (workload) => copies.readSigned(workload, { link: model.link, ...(checkBudget ? { budget: checkBudget } : {}) }),
        ...signalOf(setup),
      }),
    );
    // The run's times end here; the clean-up follows (a recycle bin that kept the emptied files is reported).
    const finishedAt = new Date().toISOString();
    const timing = {
      probeSeconds: probed.probeSeconds,
      setUpSeconds,
      copiesSeconds,
      checkSeconds: elapsed() - probed.probeSeconds - setUpSeconds - copiesSeconds,
      totalSeconds: elapsed(),
    };
    const cleaned = await copies.close();
    return reportOf({ setup, probed: { ...probed, probes }, model, plan, judged, check, timing, finishedAt, keptByRecycleBin: cleaned.keptByRecycleBin });
  } catch (error) {
    // The run's folder removed first, so the error can say where it stayed, if it did.
    throw withFolderLeft(error, [(await copies.close()).left]);
  } finally {
    await copies.close();
  }
}
