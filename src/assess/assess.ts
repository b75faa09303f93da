// The assessment: probe the path, run every chosen generation's test copies
// (sized by the model to about a minute), set each against the model's
// expectation on the probed path, and put it all in one report.

import { arch, platform, release } from 'node:os';
import type { CallOptions } from '../contract/api.js';
import type { CopyTestResult, ProgressEvent } from '../contract/copy-test.js';
import { RunProgress } from './run-progress.js';
import type { AssessInput, Finding, Report } from '../contract/report.js';
import { assessedClient, assessedProfiles, budgetSecondsOf, REPORT_SCHEMA_VERSION } from '../contract/report.js';
import { dirsetSpec, fileSpec, sizeAssessment } from '../model/assessment.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { asDrivenByPipefill, serverOnThisMachine } from '../model/diagnosis.js';
import { SINGLE_UNPROTECTED } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { predictTransfer } from '../model/predict.js';
import { predictCopy } from '../model/parallel.js';
import { serverAsSeen } from '../model/server-as-seen.js';
import { observationsOfCopy } from '../contract/copy-test.js';
import type { ScaledProjection } from '../model/scaled-projection.js';
import { modelScaledProjection } from '../model/scaled-projection.js';
import type { ServerProfileId } from '../model/server-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import type { Workload } from '../model/workloads.js';
import { leadingPart, parseWorkload } from '../model/workloads.js';
import { recogniseServer } from '../model/server-recognition.js';
import { connectHost, parseHostPort, shareTarget } from '../model/share-path.js';
import { IPERF_DEFAULT_PORT } from '../probe/bandwidth.js';
import { probePath } from '../probe/probe-path.js';
import type { HostCalibration } from '../probe/host-rates.js';
import { FAST_PATH_RTT_MS, measureHostCosts } from '../probe/host-rates.js';
import { credentialsFrom } from '../smb/session.js';
import { withFolderLeft } from '../copy/scratch-end.js';
import { pipefillVersion } from '../platform/package-root.js';
import { measureCryptoRates } from '../smb/security/crypto-rates.js';
import { localEngineStack } from '../apply/engine-stack.js';
import { protectionCheck } from './protection-check.js';
import { BudgetKeeper } from './budget-keeper.js';
import type { PlannedCopy } from './copy-plan.js';
import { planCopies, readsBackLater } from './copy-plan.js';
import { findingOf, pathOfRun, sessionOf, sustainedHostCosts } from './findings.js';
import { AssessmentCopies, readBackKey } from './copy-run.js';
import type { CopyBudgetOptions } from '../copy/copy-budget.js';
import { SETTLE_RULE_TEXT } from '../model/settle.js';
import { cancelledError, SmbError } from '../smb/errors.js';
import { recommendFromInput } from '../contract/recommend.js';
import { adviceOf, buildVerdict } from '../contract/verdict.js';
import { promisesKept } from '../contract/promises.js';
import type { ServerSource } from '../contract/verdict-schema.js';

/** Without a server named or recognised, expectations assume a current Windows file server. */
export { assessedProfiles, DEFAULT_BUDGET_SECONDS } from '../contract/report.js';

export const DEFAULT_ASSESS_SERVER: ServerProfileId = 'win2012plus';
const TARGET_SECONDS = { full: 60, quick: 15 };

/** A share on this machine: its server's crypto shares these cores. */
function isThisMachine(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * Runs one step of the assessment; a typed failure keeps its kind and hint
 * and says which step it ended (a cancel is a cancel, not a step's failure).
 */
async function inStep<T>(step: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SmbError && error.kind !== 'cancelled')
      throw new SmbError(error.kind, `The assessment stopped at ${step}: ${error.message}`, error.hint, error.status, { cause: error });
    throw error;
  }
}

/** Below this, a budget is short: the probe and the crypto benchmark take fewer samples. */
const SHORT_BUDGET_SECONDS = 40;

/** A stopped copy's result with the model-scaled projection in place of its straight-line one; what it measured is kept. */
function withModelScaledProjection(result: CopyTestResult, modelSeconds: number, projection: ScaledProjection): CopyTestResult {
  if (!result.projected) return result;
  return {
    ...result,
    seconds: projection.seconds,
    throughputMbps: (result.bytes * 8) / projection.seconds / 1e6,
    projected: {
      ...result.projected,
      rateFrom: 'model-scaled',
      modelSeconds,
      modelScale: projection.scale,
      lowSeconds: projection.lowSeconds,
      highSeconds: projection.highSeconds,
    },
  };
}

export async function assess(input: AssessInput, options: CallOptions = {}): Promise<Report> {
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

async function assessWith(input: AssessInput, options: CallOptions, startProgress: (budget: () => ProgressEvent['budget']) => RunProgress): Promise<Report> {
  const { signal } = options;
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  // The budget's clock: from the caller's start when it gave one (the CLI's process start: a person times the command).
  const callerStart = options.startedAtMs;
  const budgetStart = callerStart !== undefined && Number.isFinite(callerStart) && callerStart >= 0 ? Math.min(started, callerStart) : started;
  const spent = () => (performance.now() - budgetStart) / 1000;
  const startedAt = new Date().toISOString();
  const share = shareTarget(input);
  const iperf = input.iperf === undefined ? undefined : parseHostPort(input.iperf, IPERF_DEFAULT_PORT);
  const credentials = credentialsFrom(input);
  const profiles = assessedProfiles(input);
  const client = assessedClient(input);
  let server = input.server ?? DEFAULT_ASSESS_SERVER;
  let serverSource: ServerSource = input.server ? { kind: 'given' } : { kind: 'assumed' };
  const quick = input.quick ?? false;
  const threads = input.threads ?? 1;
  const budgetSeconds = budgetSecondsOf(input);
  const budgetEvent = () => (budgetSeconds === null ? {} : { budget: { seconds: budgetSeconds, elapsedSeconds: spent() } });

  const progress = startProgress(() => budgetEvent().budget);
  progress.report('probe', 0);
  // The sessions open beside the probe: a few round trips each, next to nothing on the link.
  // With them, the signing check's own session, unless there will be no check: no pipefill-max read to compare
  // with, or every session protected already.
  const signedCheck = profiles.includes('pipefill-max') && credentials.security?.signing !== 'required' && credentials.security?.encryption !== 'required';
  const copiesOpening = AssessmentCopies.open(share, credentials, profiles, { ...(signal ? { signal } : {}), signed: signedCheck });
  copiesOpening.catch(() => undefined);
  let probes;
  try {
    probes = await inStep('the probe of the path', () =>
      probePath(share, credentials, {
        ...(iperf ? { iperf } : {}),
        // A budgeted run reads iperf3's steady intervals (24 round trips, 2 s on the lab's paths, within 4% of each link); a
        // mean, 3 s after a second omitted, took 2 s longer (and 1.5 s of mean read 52 Mb/s / 75 ms 17% low). A full run keeps the mean.
        // Without iperf3, the SMB read pipeline runs the seconds given.
        ...(budgetSeconds === null ? { seconds: quick ? 2 : 5 } : { seconds: 3, estimate: 'steady' as const }),
        // A short budget takes six handshakes and six ECHOs, spaced 20 ms apart: a median of six is as steady on a
        // quiet path, and the ECHOs' share of the probe (a session's set-up, then the samples) is 80 ms shorter.
        ...(budgetSeconds !== null && budgetSeconds < SHORT_BUDGET_SECONDS ? { rttSamples: 6 } : {}),
        ...(signal ? { signal } : {}),
      }),
    );
  } catch (error) {
    const closed = await copiesOpening.then(
      (copies) => copies.close(),
      () => undefined,
    );
    throw withFolderLeft(error, [closed?.left]);
  }
  const probeSeconds = elapsed();
  if (!input.server) {
    // The server as it says it is; a server that says nothing Pipefill knows keeps the default, and the report says it was assumed.
    const recognised = recogniseServer(probes.session?.serverSays?.ntlmVersion);
    if (recognised.profile) server = recognised.profile;
    serverSource = { kind: recognised.profile ? 'recognised' : 'assumed', evidence: recognised.evidence };
  }
  // On a fast path the hosts, not the network, may set the pace: measure what they move on their own first.
  // A share on this machine always is one, however slow a busy machine makes its round trips read.
  // The assessed client's protection (24H2 signs) is measured with it: its crypto shares the hosts' CPUs.
  let calibration: HostCalibration | undefined;
  if (isThisMachine(connectHost(share)) || probes.rtt.medianMs < FAST_PATH_RTT_MS) {
    const calibrationOptions = {
      rttMs: probes.rtt.medianMs,
      ...(isThisMachine(connectHost(share)) ? {} : { lineBitsPerSecond: probes.bandwidth.mbps * 1e6 }),
      client,
      ...(signal ? { signal } : {}),
    };
    try {
      progress.report("the hosts' calibration", 0, 0.5);
      calibration = await inStep("the hosts' calibration", () => measureHostCosts(share, credentials, calibrationOptions));
    } catch (error) {
      await copiesOpening.then(
        (copies) => copies.close(),
        () => undefined,
      );
      throw error;
    }
  }
  const copies = await inStep('opening a session per generation', () => copiesOpening);
  try {
    const link: Link = {
      bandwidthBitsPerSecond: probes.bandwidth.mbps * 1e6,
      rttMs: probes.rtt.medianMs,
      ...(calibration ? { hosts: calibration.costs } : {}),
    };
    // This machine's signing and encryption rates: the model's crypto layer for Pipefill's side (and the server's, on loopback).
    const cryptoRates = measureCryptoRates(budgetSeconds !== null && budgetSeconds < SHORT_BUDGET_SECONDS ? { millisecondsEach: 20 } : {});
    const stack = { ...localEngineStack(), crypto: cryptoRates };
    const serverOnLoopback = isThisMachine(connectHost(share));
    const serverProfile = serverOnLoopback ? serverOnThisMachine(SERVER_PROFILES[server], cryptoRates) : SERVER_PROFILES[server];
    const driven = (id: ClientProfileId) => asDrivenByPipefill(CLIENT_PROFILES[id], stack);
    // The person's copy tool: their client's folders of small files copied as robocopy /MT:n copies them.
    const lanesOf = (profile: ClientProfileId, workload: string): { lanes?: number } =>
      threads > 1 && profile === client && parseWorkload(workload).kind === 'dirset' ? { lanes: threads } : {};
    // A quick budgeted run projects its directory sets from the file copies (planCopies' fromFileCopy).
    const projectsFolders = quick && budgetSeconds !== null;
    const sized = sizeAssessment(
      link,
      SERVER_PROFILES[server],
      profiles.map(driven),
      driven('pipefill-max'),
      quick ? TARGET_SECONDS.quick : TARGET_SECONDS.full,
      { dirsetsCopied: !projectsFolders },
    );
    // A quick run projects its folders (it copies none): the folder a default run would copy on this path, so the two
    // runs' small-files rates are of one sample. A rate depends on the folder's mix of sizes: the demo link's quick run
    // projected 15 files (52 Mb/s read) where the default run copied 10 (41 Mb/s).
    const folderScale = projectsFolders
      ? sizeAssessment(link, SERVER_PROFILES[server], profiles.map(driven), driven('pipefill-max'), TARGET_SECONDS.full).dirsetScale
      : sized.dirsetScale;
    const size = { fileBytes: input.fileBytes ?? sized.fileBytes, dirsetScale: input.dirsetScale ?? folderScale };

    // Every copy in report order; Pipefill's own write of a workload runs first, whole: it is the read source of the rest.
    const workloads = [fileSpec(size.fileBytes), dirsetSpec(size.dirsetScale)];
    const warmSender = (workload: string) => workloads.indexOf(workload) > 0;
    const { planned, order, sourceWrites, entries, copiedWorkloads, targetWrites } = planCopies({
      workloads,
      profiles,
      quick,
      budgeted: budgetSeconds !== null,
      rttMs: link.rttMs,
      modelSeconds: (profile, op, workload, warm) =>
        predictCopy(driven(profile), serverProfile, op, workload, link, { ...SINGLE_UNPROTECTED, warmSender: warm, ...lanesOf(profile, workload.spec) })
          .seconds,
    });
    progress.plan(order.length);
    progress.report('making the scratch folders', 0, 0.9);
    await inStep('making the scratch folders', () => copies.prepareFolders(copiedWorkloads, targetWrites));

    const setUpSeconds = elapsed() - probeSeconds;
    // The file writes' read-backs, side by side after the copies: their bytes at Pipefill's read rate, plus an open and a close.
    const readBackBytes = order.filter(readsBackLater).reduce((sum, copy) => sum + parseWorkload(copy.workload).totalBytes, 0);
    const readBackExpected =
      readBackBytes > 0
        ? predictTransfer(driven('pipefill-max'), serverProfile, 'read', parseWorkload(fileSpec(readBackBytes)), link).seconds + (2 * link.rttMs) / 1000
        : 0;
    const checkExpected = predictTransfer(driven('pipefill-max'), serverProfile, 'read', parseWorkload(workloads[0] ?? fileSpec(size.fileBytes)), link).seconds;
    const keeper =
      budgetSeconds === null
        ? undefined
        : new BudgetKeeper({ budgetSeconds, spent, rttMs: link.rttMs, entries, readBackSeconds: readBackExpected, checkSeconds: checkExpected });
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
              ? progress.report('reading back what the file copies wrote', progress.readBackStep, 0, { bytes, totalBytes })
              : progress.report(`${step}: verify`, stepIndex, 0.9, { bytes, totalBytes, test }),
        }),
      );
    };
    for (const copy of order) {
      if (signal?.aborted) throw cancelledError();
      // A workload whose source Pipefill's own write does not lay (pipefill-max not chosen): write it first, unreported.
      if (copy.op === 'read' && !copies.hasSource(copy.workload) && sourceWrites.includes(copy.workload))
        await run(undefined, 'pipefill-max', 'write', copy.workload, undefined);
      let budget: CopyBudgetOptions | undefined;
      // On a fast path a file write moves whole: a server's storage may take its first hundred megabytes at one
      // rate and the rest at another (a page cache finding new pages, a disk falling behind), and a copy stopped once
      // its rate settled would project the first (loopback, 256 MiB: 0.25 s projected, 0.64 s whole). Whole, it
      // costs under a second there.
      const wholeOnFastPath = calibration !== undefined && copy.op === 'write' && parseWorkload(copy.workload).kind === 'file';
      // A copy in lanes moves whole too (a budget's projection assumes one file at a time), and so does the write that
      // lays its read source: a read in lanes reads every file (a stopped source write left dir01/file003.ppt unwritten).
      const inLanes = lanesOf(copy.profile, copy.workload).lanes !== undefined;
      const laysLanesSource = copy.profile === 'pipefill-max' && copy.op === 'write' && lanesOf(client, copy.workload).lanes !== undefined;
      if (keeper && !wholeOnFastPath && !inLanes && !laysLanesSource) budget = keeper.slotFor(copy, order.slice(order.indexOf(copy)));
      progress.report(`${copy.profile} ${copy.op} ${copy.workload} (${done + 1} of ${total})`, 1 + done);
      const copyStarted = elapsed();
      results.set(copy.index, await run(copy, copy.profile, copy.op, copy.workload, budget));
      if (budget) keeper?.ran(copy, budget, elapsed() - copyStarted);
      done += 1;
    }
    // A file copy whose slot ran out before its rate settled moved a shorter file, whole (its closing round trips
    // included): the model's time for the whole file, scaled by that copy's time over the model's for what it moved.
    // Its rate so far is still TCP's ramp and the opening round trips, which the model has and a straight line does not.
    for (const copy of order) {
      const result = results.get(copy.index);
      if (result?.projected?.stoppedBy !== 'time' || parseWorkload(copy.workload).kind !== 'file' || !(result.projected.measuredBytes > 0)) continue;
      const movedSeconds = predictTransfer(driven(copy.profile), serverProfile, copy.op, parseWorkload(fileSpec(result.projected.measuredBytes)), link).seconds;
      results.set(
        copy.index,
        withModelScaledProjection(
          result,
          copy.expectedSeconds,
          modelScaledProjection(copy.expectedSeconds, { seconds: result.projected.measuredSeconds, modelSeconds: movedSeconds }),
        ),
      );
    }
    const readingBack = 'reading back what the file copies wrote';
    progress.report(readingBack, progress.readBackStep);
    readBacksStarted = true;
    const readBack = await inStep(readingBack, () => copies.readBackWrites());
    for (const [index, result] of results) {
      if (readBack.has(readBackKey(result.profile, result.op, result.workload))) results.set(index, { ...result, verified: true });
    }
    // The path the expectations use, with the hosts as the copies found them.
    const copied = [...results.values()];
    const pathModel = pathOfRun(link, copied, calibration?.samples ?? []);
    const calibratedLink: Link = {
      bandwidthBitsPerSecond: pathModel.bandwidthBitsPerSecond,
      rttMs: pathModel.rttMs,
      ...(calibration ? { hosts: calibration.costs } : {}),
    };
    const hostCosts = calibratedLink.hosts ? sustainedHostCosts({ ...calibratedLink, hosts: calibratedLink.hosts }, copied, serverProfile, stack) : undefined;
    const modelLink: Link = { ...calibratedLink, ...(hostCosts ? { hosts: hostCosts } : {}) };
    // The model's time for a workload on that path, with the protection the generation's copy negotiated, against the
    // server as that copy found it (the credits it granted): the findings expect every copy so. Against the profile's
    // 8192 credits, a file read that 16 credits held back scaled the folder projected from it by the credits' cost
    // on a file (1.37x), where a folder of small files pays little of it: the demo's quick run read its small-files
    // write 22% slower than the default run measured it, and named another layer.
    const asSeenBy = (result: CopyTestResult) => serverAsSeen(serverProfile, result.op, observationsOfCopy(result, serverOnLoopback));
    // `moved`: the part of the workload the copy moved, where a budget stopped it (leadingPart).
    const modelSeconds = (result: CopyTestResult, workload: string, moved?: Workload) =>
      predictTransfer(driven(result.profile), asSeenBy(result), result.op, moved ?? parseWorkload(workload), modelLink, {
        ...sessionOf(result),
        warmSender: warmSender(workload),
      }).seconds;
    // A directory set a budget stopped part-way (its read source holds two files; or its slot ran out): the model's
    // time for the whole set, scaled by this copy's time over the model's for the files it moved, as a quick run
    // scales its folders by the file copy. Projecting the rest at the file copy's rate read the demo's Windows 11
    // small-files read at 7.12 s where moving it whole took 5.45-5.53 s: its 4 MB files read at 73 Mb/s on a session
    // whose 15 MiB file, held by 16 credits, read at 58.
    for (const copy of planned) {
      const result = results.get(copy.index);
      const workload = parseWorkload(copy.workload);
      if (!result?.projected || result.projected.stoppedBy === 'not-run' || workload.kind !== 'dirset' || !(result.projected.measuredBytes > 0)) continue;
      const moved = leadingPart(workload, result.projected.filesTouched, result.projected.measuredBytes);
      const whole = modelSeconds(result, copy.workload);
      const projection = modelScaledProjection(whole, { seconds: result.projected.measuredSeconds, modelSeconds: modelSeconds(result, copy.workload, moved) });
      results.set(copy.index, withModelScaledProjection(result, whole, projection));
    }
    for (const copy of planned) {
      if (!copy.fromFileCopy) continue;
      // The same generation's file copy, measured or projected, against the model's time for it on the same path.
      const file = planned.find((other) => other.profile === copy.profile && other.op === copy.op && parseWorkload(other.workload).kind === 'file');
      const fileResult = file ? results.get(file.index) : undefined;
      if (!file || !fileResult)
        throw new Error(`${copy.profile} ${copy.op} ${copy.workload} is projected from the file copy of the same generation, which did not run.`);
      const fileCopy = {
        seconds: fileResult.seconds,
        modelSeconds: modelSeconds(fileResult, file.workload),
        ...(fileResult.projected ? { lowSeconds: fileResult.projected.lowSeconds, highSeconds: fileResult.projected.highSeconds } : {}),
      };
      const lanes = lanesOf(copy.profile, copy.workload).lanes;
      const projectedSeconds = predictCopy(driven(copy.profile), asSeenBy(fileResult), copy.op, parseWorkload(copy.workload), modelLink, {
        ...sessionOf(fileResult),
        warmSender: warmSender(copy.workload),
        ...(lanes ? { lanes } : {}),
      }).seconds;
      results.set(copy.index, copies.projectWithoutCopy(copy.profile, copy.op, copy.workload, projectedSeconds, fileCopy, lanes));
    }
    const copiesSeconds = elapsed() - probeSeconds - setUpSeconds;
    const copyTests = planned.map((copy) => results.get(copy.index)).filter((result): result is CopyTestResult => result !== undefined);
    const findings: Finding[] = [];
    // Each copy against the model; every other generation's also against Pipefill's own copy of the same data, which shows what
    // these hosts take per byte (and, for a protected copy, what this CPU path costs without that protection).
    for (const result of copyTests) {
      const reference = copyTests.find(
        (other) => other.profile === 'pipefill-max' && other !== result && other.op === result.op && other.workload === result.workload,
      );
      findings.push(findingOf(result, serverProfile, modelLink, stack, warmSender(result.workload), serverOnLoopback, reference));
    }

    // Signing on, signing off, the same copy: a path that misbehaves slows both; a protocol that costs slows one.
    const checkBudget = keeper?.checkSlot();
    progress.report('the signing check', progress.checkStep);
    const check = await inStep('the signing check', () =>
      protectionCheck({
        share,
        credentials,
        link,
        stack,
        server: serverProfile,
        copyTests,
        readSigned: (workload) => copies.readSigned(workload, { link, ...(checkBudget ? { budget: checkBudget } : {}) }),
        ...(signal ? { signal } : {}),
      }),
    );

    // The run's times end here; the clean-up follows (a recycle bin that kept the emptied files is reported).
    const finishedAt = new Date().toISOString();
    const timing = {
      probeSeconds,
      setUpSeconds,
      copiesSeconds,
      checkSeconds: elapsed() - probeSeconds - setUpSeconds - copiesSeconds,
      totalSeconds: elapsed(),
    };
    const cleaned = await copies.close();
    const report: Report = {
      schemaVersion: REPORT_SCHEMA_VERSION,
      startedAt,
      finishedAt,
      target: { share: input.share, user: input.user, ...(input.domain === undefined ? {} : { domain: input.domain }) },
      environment: { pipefillVersion: pipefillVersion(), node: process.version, platform: platform(), release: release(), arch: arch() },
      crypto: { rates: cryptoRates, serverOnThisMachine: serverOnLoopback },
      ...(check ? { protectionCheck: check } : {}),
      options: {
        profiles: [...profiles],
        client,
        server,
        serverSource,
        quick,
        ...(threads > 1 ? { threads } : {}),
        fileBytes: size.fileBytes,
        dirsetScale: size.dirsetScale,
        budgetSeconds,
        ...(budgetSeconds === null ? {} : { settleRule: SETTLE_RULE_TEXT }),
      },
      probes,
      pathModel: { ...pathModel, ...(hostCosts ? { hostCosts } : {}) },
      timing,
      ...(cleaned.keptByRecycleBin === undefined ? {} : { keptByRecycleBin: cleaned.keptByRecycleBin }),
      copyTests,
      diagnosis: { headline: '', findings },
    };
    // The answer first: for the person's client, with the change that helps most.
    const advice = recommendFromInput({ report });
    // What the changes an earlier run named promised, and what this run measured (a change made, assessed again).
    const promises = input.since ? promisesKept({ report: input.since, advice: adviceOf(input.since) }, { report, advice }) : [];
    const checked: Report = promises.length > 0 ? { ...report, promises } : report;
    const verdict = buildVerdict(checked, advice);
    return { ...checked, advice, verdict, diagnosis: { headline: verdict.lines.slice(0, 4).join(' '), findings } };
  } catch (error) {
    // The run's folder removed first, so the error can say where it stayed, if it did.
    throw withFolderLeft(error, [(await copies.close()).left]);
  } finally {
    await copies.close();
  }
}
