// The assessment's first phases: what the run was asked, resolved once; the
// probe of the path and the server as it says it is; the hosts' calibration
// on a fast path; the model's view of the run; the plan of its copies. Each
// a named step over the run's setup (assess.ts runs them in order).

import type { CallOptions } from '../contract/api.js';
import type { RunProgress } from './run-progress.js';
import type { AssessParsedInput } from '../contract/report.js';
import { assessedClient, assessedProfiles, budgetSecondsOf, probedLineOf, tunnelMtuOf } from '../contract/report.js';
import { dirsetSpec, fileSpec, sizeAssessment } from '../model/assessment.js';
import type { ClientProfile, ClientProfileId } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { EngineStack } from '../model/diagnosis.js';
import { asDrivenByPipefill, serverOnThisMachine } from '../model/diagnosis.js';
import { SINGLE_UNPROTECTED } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { predictTransfer } from '../model/predict.js';
import { predictCopy } from '../model/parallel.js';
import type { ServerProfile, ServerProfileId } from '../model/server-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { serverRatesHere } from '../model/server-crypto-here.js';
import { parseWorkload } from '../model/workloads.js';
import { recogniseServer } from '../model/server-recognition.js';
import type { SharePath } from '../model/share-path.js';
import { connectHost, parseHostPort } from '../model/share-path.js';
import { shareTargetOf } from '../contract/share-login.js';
import { IPERF_DEFAULT_PORT } from '../probe/bandwidth.js';
import { probePath } from '../probe/probe-path.js';
import type { HostCalibration } from '../probe/host-rates.js';
import { FAST_PATH_RTT_MS } from '../model/host-costs.js';
import { measureHostCosts } from '../probe/host-rates.js';
import { credentialsFrom } from '../smb/session.js';
import { withFolderLeft } from '../copy/scratch-end.js';
import { measureCryptoRates } from '../smb/security/crypto-rates.js';
import { localEngineStack, withKernelCongestion } from '../apply/engine-stack.js';
import type { CopyPlan } from './copy-plan.js';
import type { ProbeResult } from '../contract/probe.js';
import { planCopies, readsBackLater } from './copy-plan.js';
import type { AssessmentCopies } from './copy-run.js';
import { SmbError } from '../smb/errors.js';
import type { ServerSource } from '../contract/verdict-schema.js';

/** Without a server named or recognised, expectations assume a current Windows file server. */
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
export async function inStep<T>(step: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SmbError && error.kind !== 'cancelled')
      throw new SmbError(error.kind, `The assessment stopped at ${step}: ${error.message}`, error.hint, error.status, { cause: error });
    throw error;
  }
}

/** The SMB read test's length on a fast path (probePath's fastPathSeconds). */
const FAST_PATH_PROBE_SECONDS = 1;

/** Below this, a budget is short: the probe and the crypto benchmark take fewer samples. */
const SHORT_BUDGET_SECONDS = 40;

/** What a run was asked, resolved once: the share, the login, the generations, the budget and the run's clocks. */
export interface RunSetup {
  readonly input: AssessParsedInput;
  readonly signal: AbortSignal | undefined;
  readonly share: SharePath;
  readonly iperf: ReturnType<typeof parseHostPort> | undefined;
  readonly credentials: ReturnType<typeof credentialsFrom>;
  readonly profiles: readonly ClientProfileId[];
  readonly client: ClientProfileId;
  readonly quick: boolean;
  readonly threads: number;
  readonly budgetSeconds: number | null;
  readonly startedAt: string;
  /** Seconds since this run started. */
  readonly elapsed: () => number;
  /** Seconds of the budget spent: from the caller's start when it gave one (the CLI's process start: a person times the command). */
  readonly spent: () => number;
  readonly onThisMachine: boolean;
}

export function setUpRun(input: AssessParsedInput, options: CallOptions): RunSetup {
  const started = performance.now();
  const callerStart = options.startedAtMs;
  const budgetStart = callerStart !== undefined && Number.isFinite(callerStart) && callerStart >= 0 ? Math.min(started, callerStart) : started;
  const share = shareTargetOf(input);
  return {
    input,
    signal: options.signal,
    share,
    iperf: input.iperf === undefined ? undefined : parseHostPort(input.iperf, IPERF_DEFAULT_PORT),
    credentials: credentialsFrom(input),
    profiles: assessedProfiles(input),
    client: assessedClient(input),
    quick: input.quick ?? false,
    threads: input.threads ?? 1,
    budgetSeconds: budgetSecondsOf(input),
    startedAt: new Date().toISOString(),
    elapsed: () => (performance.now() - started) / 1000,
    spent: () => (performance.now() - budgetStart) / 1000,
    onThisMachine: isThisMachine(connectHost(share)),
  };
}

export const signalOf = (setup: RunSetup) => (setup.signal ? { signal: setup.signal } : {});
const shortBudget = (setup: RunSetup) => setup.budgetSeconds !== null && setup.budgetSeconds < SHORT_BUDGET_SECONDS;

/** Closes the sessions still opening beside a step that failed, and says where a folder stayed, if one did. */
async function closeOpening(copiesOpening: Promise<AssessmentCopies>): Promise<string | undefined> {
  const closed = await copiesOpening.then(
    (copies) => copies.close(),
    () => undefined,
  );
  return closed?.left;
}

export interface Probed {
  readonly probes: ProbeResult;
  readonly probeSeconds: number;
  readonly server: ServerProfileId;
  readonly serverSource: ServerSource;
}

/** The path's probe, and the server as it says it is (a server that says nothing Pipefill knows keeps the default, as assumed). */
export async function probePhase(setup: RunSetup, copiesOpening: Promise<AssessmentCopies>): Promise<Probed> {
  const { budgetSeconds, quick, iperf } = setup;
  let probes: ProbeResult;
  try {
    probes = await inStep('the probe of the path', () =>
      probePath(setup.share, setup.credentials, {
        ...(iperf ? { iperf } : {}),
        // A budgeted run reads iperf3's steady intervals (24 round trips, 2 s on the lab's paths, within 4% of each link); a
        // mean, 3 s after a second omitted, took 2 s longer (and 1.5 s of mean read 52 Mb/s / 75 ms 17% low). A full run keeps the mean.
        // Without iperf3, the SMB read pipeline runs the seconds given.
        ...(budgetSeconds === null ? { seconds: quick ? 2 : 5 } : { seconds: 3, estimate: 'steady' as const }),
        // On a fast path (a LAN, this machine) the reads settle at once: a second of them read as a second of three did
        // (lab, 1 Gb/s / 0.5 ms, without iperf3: 577-621 Mb/s over 1 s, 606-641 over 3 s, 2026-11-29).
        fastPathSeconds: FAST_PATH_PROBE_SECONDS,
        // A short budget takes six handshakes and six ECHOs, spaced 20 ms apart: a median of six is as steady on a
        // quiet path, and the ECHOs' share of the probe (a session's set-up, then the samples) is 80 ms shorter.
        ...(shortBudget(setup) ? { rttSamples: 6 } : {}),
        ...signalOf(setup),
      }),
    );
  } catch (error) {
    throw withFolderLeft(error, [await closeOpening(copiesOpening)]);
  }
  const probeSeconds = setup.elapsed();
  if (setup.input.server) return { probes, probeSeconds, server: setup.input.server, serverSource: { kind: 'given' } };
  const recognised = recogniseServer(probes.session?.serverSays?.ntlmVersion);
  return {
    probes,
    probeSeconds,
    server: recognised.profile ?? DEFAULT_ASSESS_SERVER,
    serverSource: { kind: recognised.profile ? 'recognised' : 'assumed', evidence: recognised.evidence },
  };
}

/**
 * On a fast path the hosts, not the network, may set the pace: what they move
 * on their own, measured first. A share on this machine always is one, however
 * slow a busy machine makes its round trips read. The assessed client's
 * protection (24H2 signs) is measured with it: its crypto shares the hosts' CPUs.
 */
export async function calibratePhase(setup: RunSetup, probes: ProbeResult, progress: RunProgress, copiesOpening: Promise<AssessmentCopies>) {
  if (!setup.onThisMachine && probes.rtt.medianMs >= FAST_PATH_RTT_MS) return undefined;
  const calibrationOptions = {
    rttMs: probes.rtt.medianMs,
    ...(setup.onThisMachine ? {} : { lineBitsPerSecond: probedLineOf(probes) }),
    client: setup.client,
    ...signalOf(setup),
  };
  try {
    progress.report("the hosts' calibration", 0, 0.5);
    return await inStep("the hosts' calibration", () => measureHostCosts(setup.share, setup.credentials, calibrationOptions));
  } catch (error) {
    await closeOpening(copiesOpening);
    throw error;
  }
}

/** The model's view of this run: the path, this machine's engine and crypto, the server, each generation as driven here. */
export interface RunModel {
  readonly link: Link;
  readonly cryptoRates: ReturnType<typeof measureCryptoRates>;
  readonly stack: EngineStack;
  readonly serverProfile: ServerProfile;
  readonly driven: (id: ClientProfileId) => ClientProfile;
  /** The person's copy tool: their client's folders of small files copied as robocopy /MT:n copies them. */
  readonly lanesOf: (profile: ClientProfileId, workload: string) => { lanes?: number };
}

export function runModel(setup: RunSetup, probes: ProbeResult, calibration: HostCalibration | undefined, server: ServerProfileId): RunModel {
  const link: Link = {
    // The line, not the payload the probe moved: the model takes the headers off it once (probedLineOf).
    bandwidthBitsPerSecond: probedLineOf(probes),
    rttMs: probes.rtt.medianMs,
    ...(calibration ? { hosts: calibration.costs } : {}),
    // A tunnel's smaller packets carry less payload each (src/model/link.ts payloadEfficiency).
    ...tunnelMtuOf(probes),
  };
  // This machine's signing and encryption rates: the model's crypto layer for Pipefill's side (and the server's, on loopback).
  const cryptoRates = measureCryptoRates(shortBudget(setup) ? { millisecondsEach: 20 } : {});
  // The congestion control the kernel ran on the probe's connection to the share, where it said: a route may name
  // its own. The lab's CUBIC route under a BBR default had the model send the writes with BBR, past a 1% loss that
  // held them: 2.2 s expected for an 8 MiB write that took 13.7-20.6 s (2026-11-28).
  const stack = { ...withKernelCongestion(localEngineStack(), probes.path), crypto: cryptoRates };
  return {
    link,
    cryptoRates,
    stack,
    // On a share on this machine, the server signs and seals on these cores, through its own stack: as slow beside
    // these rates as its protected calibration showed it (server-crypto-here.ts).
    serverProfile: setup.onThisMachine
      ? serverOnThisMachine(SERVER_PROFILES[server], serverRatesHere(cryptoRates, calibration?.costs))
      : SERVER_PROFILES[server],
    driven: (id) => asDrivenByPipefill(CLIENT_PROFILES[id], stack),
    lanesOf: (profile, workload) =>
      setup.threads > 1 && profile === setup.client && parseWorkload(workload).kind === 'dirset' ? { lanes: setup.threads } : {},
  };
}

export interface RunPlan extends CopyPlan {
  readonly size: { readonly fileBytes: number; readonly dirsetScale: number };
  readonly warmSender: (workload: string) => boolean;
  readonly checkExpected: number;
  readonly readBackExpected: number;
}

/** The samples sized from the probed path, and the copies in the order they run. */
export function planPhase(setup: RunSetup, model: RunModel, server: ServerProfileId): RunPlan {
  const { link, driven, lanesOf, serverProfile } = model;
  const { quick, profiles, input, budgetSeconds } = setup;
  // A quick budgeted run projects its directory sets from the file copies (planCopies' fromFileCopy).
  const projectsFolders = quick && budgetSeconds !== null;
  const sizeFor = (seconds: number, options?: { dirsetsCopied: boolean }) =>
    sizeAssessment(link, SERVER_PROFILES[server], profiles.map(driven), driven('pipefill-max'), seconds, options);
  const sized = sizeFor(quick ? TARGET_SECONDS.quick : TARGET_SECONDS.full, { dirsetsCopied: !projectsFolders });
  // A quick run projects its folders (it copies none): the folder a default run would copy on this path, so the two
  // runs' small-files rates are of one sample. A rate depends on the folder's mix of sizes: the demo link's quick run
  // projected 15 files (52 Mb/s read) where the default run copied 10 (41 Mb/s).
  const folderScale = projectsFolders ? sizeFor(TARGET_SECONDS.full).dirsetScale : sized.dirsetScale;
  const size = { fileBytes: input.fileBytes ?? sized.fileBytes, dirsetScale: input.dirsetScale ?? folderScale };
  // Every copy in report order; Pipefill's own write of a workload runs first, whole: it is the read source of the rest.
  const workloads = [fileSpec(size.fileBytes), dirsetSpec(size.dirsetScale)];
  const warmSender = (workload: string) => workloads.indexOf(workload) > 0;
  const plan = planCopies({
    workloads,
    profiles,
    quick,
    budgeted: budgetSeconds !== null,
    rttMs: link.rttMs,
    modelSeconds: (profile, op, workload, warm) =>
      predictCopy(driven(profile), serverProfile, op, workload, link, { ...SINGLE_UNPROTECTED, warmSender: warm, ...lanesOf(profile, workload.spec) }).seconds,
  });
  // The file writes' read-backs, side by side after the copies: their bytes at Pipefill's read rate, plus an open and a close.
  const readBackBytes = plan.order.filter(readsBackLater).reduce((sum, copy) => sum + parseWorkload(copy.workload).totalBytes, 0);
  const readBackExpected =
    readBackBytes > 0
      ? predictTransfer(driven('pipefill-max'), serverProfile, 'read', parseWorkload(fileSpec(readBackBytes)), link).seconds + (2 * link.rttMs) / 1000
      : 0;
  const checkExpected = predictTransfer(driven('pipefill-max'), serverProfile, 'read', parseWorkload(workloads[0] ?? fileSpec(size.fileBytes)), link).seconds;
  return { ...plan, size, warmSender, checkExpected, readBackExpected };
}
