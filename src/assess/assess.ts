// The assessment: probe the path, run every chosen generation's test copies
// (sized by the model to about a minute), set each against the model's
// expectation on the probed path, and put it all in one report.

import { arch, platform, release } from 'node:os';
import type { CallOptions } from '../contract/api.js';
import type { CopyTestResult } from '../contract/copy-test.js';
import type { AssessInput, Finding, Report } from '../contract/report.js';
import { copyFraction } from '../contract/progress.js';
import { REPORT_SCHEMA_VERSION } from '../contract/report.js';
import { ASSESSMENT_OPS, compareWithModel, dirsetSpec, fileSpec, sizeAssessment } from '../model/assessment.js';
import type { ClientProfileId } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Protection } from '../model/crypto-cost.js';
import type { EngineStack } from '../model/diagnosis.js';
import { asDrivenByPipefill, diagnoseCopy, serverOnThisMachine } from '../model/diagnosis.js';
import type { Session } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { predictTransfer } from '../model/predict.js';
import type { ServerProfile, ServerProfileId } from '../model/server-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { parseWorkload } from '../model/workloads.js';
import { parseHostPort, parseSharePath } from '../model/share-path.js';
import { IPERF_DEFAULT_PORT } from '../probe/bandwidth.js';
import { probePath } from '../probe/probe-path.js';
import type { CopyTestProgress } from '../smb/copy-test.js';
import { runCopyTest } from '../smb/copy-test.js';
import { credentialsFrom } from '../smb/session.js';
import { pipefillVersion } from '../platform/package-root.js';
import { measureCryptoRates } from '../smb/security/crypto-rates.js';
import { localEngineStack } from './engine-stack.js';
import { protectionCheck } from './protection-check.js';
import { cancelledError, SmbError } from '../smb/errors.js';

export const DEFAULT_ASSESS_PROFILES: readonly ClientProfileId[] = ['xp-smb1', 'win7-smb1', 'win7-smb2', 'win10-smb3', 'pipefill-max'];
/** Without a server named, expectations assume a current Windows file server. */
export const DEFAULT_ASSESS_SERVER: ServerProfileId = 'win2012plus';
const TARGET_SECONDS = { full: 60, quick: 15 };

/** The headline: the first copy slower than expected, else the newest generation's write. */
function headline(findings: readonly Finding[], profiles: readonly ClientProfileId[]): string {
  const slow = findings.find((finding) => finding.verdict === 'slower-than-expected');
  if (slow) return `${slow.profile} ${slow.op} of ${slow.workload}: ${slow.sentence}`;
  const modern = [...profiles].reverse().find((profile) => profile !== 'pipefill-max') ?? profiles[0];
  const pick = findings.find((finding) => finding.profile === modern && finding.op === 'write' && finding.workload.startsWith('file:')) ?? findings[0];
  return pick ? `${pick.profile} ${pick.op} of ${pick.workload}: ${pick.sentence}` : 'No copies were run.';
}

/**
 * One copy against the model: expected is the generation's pattern on this
 * machine's TCP stack against the assumed server; the diagnosis reruns the
 * model with what the copy revealed (credits granted, the server's window)
 * and names the layer, or says the cause lies outside the model.
 */
function finding(result: CopyTestResult, server: ServerProfile, link: Link, stack: EngineStack, reference?: CopyTestResult): Finding {
  const client = asDrivenByPipefill(CLIENT_PROFILES[result.profile], stack);
  const workload = parseWorkload(result.workload);
  const session = sessionOf(result);
  const expected = predictTransfer(client, server, result.op, workload, link, session);
  const diagnosis = diagnoseCopy({
    client: CLIENT_PROFILES[result.profile],
    server,
    op: result.op,
    workload,
    link,
    measuredSeconds: result.seconds,
    stack,
    session,
    ...(reference ? { reference: { measuredSeconds: reference.seconds, protection: protectionOf(reference) } } : {}),
    observations: {
      creditsGranted: result.negotiated.creditsGrantedMax,
      ...(result.tcp?.peerWindowBytes === undefined ? {} : { peerWindowBytes: result.tcp.peerWindowBytes }),
      ...(result.tcp?.peerWindowLimitedFraction === undefined ? {} : { peerWindowLimitedFraction: result.tcp.peerWindowLimitedFraction }),
      ...(result.tcp?.retransmittedFraction === undefined ? {} : { retransmittedFraction: result.tcp.retransmittedFraction }),
    },
  });
  return {
    profile: result.profile,
    op: result.op,
    workload: result.workload,
    measuredSeconds: result.seconds,
    expectedSeconds: expected.seconds,
    expectedLimitedBy: expected.limitedBy,
    ...compareWithModel(result.seconds, expected),
    limitedBy: diagnosis.limitedBy,
    explainedSeconds: diagnosis.explainedSeconds,
    measuredMbps: diagnosis.measuredBitsPerSecond / 1e6,
    inFlightBytes: diagnosis.inFlightBytes,
    sentence: diagnosis.sentence,
  };
}

/** What protected a copy on the wire, as the engine negotiated it: the model weighs exactly that. */
export function protectionOf(result: CopyTestResult): Protection {
  if (result.negotiated.encryption) return { kind: 'encryption', algorithm: result.negotiated.encryption };
  if (result.negotiated.signing) return { kind: 'signing', algorithm: result.negotiated.signing };
  return { kind: 'none' };
}

const sessionOf = (result: CopyTestResult): Session => ({ protection: protectionOf(result), channels: 1 });

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
    if (error instanceof SmbError && error.kind !== 'cancelled') throw new SmbError(error.kind, `The assessment stopped at ${step}: ${error.message}`, error.hint, error.status, { cause: error });
    throw error;
  }
}

export async function assess(input: AssessInput, options: CallOptions = {}): Promise<Report> {
  const { signal, onProgress } = options;
  const startedAt = new Date().toISOString();
  const share = parseSharePath(input.share);
  const iperf = input.iperf === undefined ? undefined : parseHostPort(input.iperf, IPERF_DEFAULT_PORT);
  const credentials = credentialsFrom(input);
  const profiles = input.profiles ?? DEFAULT_ASSESS_PROFILES;
  const server = input.server ?? DEFAULT_ASSESS_SERVER;
  const quick = input.quick ?? false;

  onProgress?.({ step: 'probe', bytes: 0, totalBytes: 0, fraction: 0 });
  const probes = await inStep('the probe of the path', () =>
    probePath(share, credentials, {
      ...(iperf ? { iperf } : {}),
      seconds: quick ? 2 : 5,
      ...(signal ? { signal } : {}),
    }),
  );
  const link = { bandwidthBitsPerSecond: probes.bandwidth.mbps * 1e6, rttMs: probes.rtt.medianMs };
  // This machine's signing and encryption rates: the model's crypto layer for Pipefill's side (and the server's, on loopback).
  const cryptoRates = measureCryptoRates();
  const stack = { ...localEngineStack(), crypto: cryptoRates };
  const serverOnLoopback = isThisMachine(share.host);
  const serverProfile = serverOnLoopback ? serverOnThisMachine(SERVER_PROFILES[server], cryptoRates) : SERVER_PROFILES[server];
  const driven = (id: ClientProfileId) => asDrivenByPipefill(CLIENT_PROFILES[id], stack);
  const size = sizeAssessment(link, SERVER_PROFILES[server], profiles.map(driven), driven('pipefill-max'), quick ? TARGET_SECONDS.quick : TARGET_SECONDS.full);

  const copyTests: CopyTestResult[] = [];
  const findings: Finding[] = [];
  const workloads = [fileSpec(size.fileBytes), dirsetSpec(size.dirsetScale)];
  const total = workloads.length * profiles.length * ASSESSMENT_OPS.length;
  for (const workload of workloads) {
    for (const profile of profiles) {
      for (const op of ASSESSMENT_OPS) {
        if (signal?.aborted) throw cancelledError();
        const index = copyTests.length;
        const step = `${profile} ${op} ${workload} (${index + 1} of ${total})`;
        const test = { profile, op, workload, index, count: total };
        // The probe counts as one test's worth of the run.
        const fraction = (within: number) => (1 + index + within) / (total + 1);
        const copyOptions = {
          ...(signal ? { signal } : {}),
          onProgress: (progress: CopyTestProgress) =>
            onProgress?.({
              step: `${step}: ${progress.phase}`,
              bytes: progress.bytes,
              totalBytes: progress.totalBytes,
              fraction: fraction(copyFraction(progress.phase, progress.bytes, progress.totalBytes)),
              test,
              ...(progress.live ? { live: progress.live } : {}),
            }),
        };
        const result = await inStep(step, () => runCopyTest({ share, credentials, profile, op, workload, link }, copyOptions));
        copyTests.push(result);
      }
    }
  }
  // Each copy against the model; a protected one also against Pipefill's own copy of the same data, which shows what this CPU path costs without that protection.
  for (const result of copyTests) {
    const reference = copyTests.find((other) => other.profile === 'pipefill-max' && other !== result && other.op === result.op && other.workload === result.workload);
    findings.push(finding(result, serverProfile, link, stack, reference));
  }

  // Signing on, signing off, the same copy: a path that misbehaves slows both; a protocol that costs slows one.
  const check = await inStep('the signing check', () =>
    protectionCheck({ share, credentials, link, stack, server: serverProfile, copyTests, ...(signal ? { signal } : {}) }),
  );

  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    startedAt,
    finishedAt: new Date().toISOString(),
    target: { share: input.share, user: input.user, ...(input.domain === undefined ? {} : { domain: input.domain }) },
    environment: { pipefillVersion: pipefillVersion(), node: process.version, platform: platform(), release: release(), arch: arch() },
    crypto: { rates: cryptoRates, serverOnThisMachine: serverOnLoopback },
    ...(check ? { protectionCheck: check } : {}),
    options: { profiles: [...profiles], server, quick, fileBytes: size.fileBytes, dirsetScale: size.dirsetScale },
    probes,
    copyTests,
    diagnosis: { headline: headline(findings, profiles), findings },
  };
}
