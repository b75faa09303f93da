// pipefill lab bench: every client generation's test copy over emulated
// branch links, beside iperf3, smbclient and the model's prediction for the
// same link. Each copy runs inside the branch namespace, so it crosses the
// emulated link with real kernel TCP.

import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Report } from '../contract/report.js';
import { CapacityResultSchema } from '../contract/capacity.js';
import type { CapacityResult } from '../contract/capacity.js';
import { ReportSchema } from '../contract/report.js';
import type { ClientProfile, ClientProfileId, Op } from '../model/client-profiles.js';
import { MIB } from '../model/client-profiles.js';
import { fileSpec } from '../model/assessment.js';
import { PipefillError } from '../model/errors.js';
import { asCongestionControl, idleRestartRtts } from '../model/congestion.js';
import type { EngineStack } from '../model/diagnosis.js';
import { asDrivenByPipefill } from '../model/diagnosis.js';
import { clientProfile, predictTransfer, serverProfile } from '../model/predict.js';
import type { ServerProfile } from '../model/server-profiles.js';
import { formatDuration, formatRate } from '../model/units.js';
import { parseWorkload } from '../model/workloads.js';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { freshDirectory } from '../platform/safe-file.js';
import { PatternSource } from '../copy/pattern.js';
import { withAuthenticationFile } from './smbclient-auth.js';
import type { LabLink, LabState } from './wan-lab.js';
import { handshakeTimesMs, inBranch, labDown, labEndpoints, labUp } from './wan-lab.js';
import { DATACENTER_ADDRESS, IPERF_PORT } from './lab-network.js';
import { median } from '../model/stats.js';

export interface LabBenchOptions {
  readonly links: readonly { readonly label: string; readonly link: LabLink }[];
  readonly profiles: readonly ClientProfileId[];
  readonly ops: readonly Op[];
  readonly fileBytes: number;
  /** Also copy the TR-3869 directory set at this scale. */
  readonly dirsetScale?: number;
  readonly iperfSeconds?: number;
  /** Length of the throughput comparison at line rate (default THROUGHPUT_SECONDS). */
  readonly throughputSeconds?: number;
  readonly onProgress?: (line: string) => void;
}

export interface LabBenchCell {
  readonly profile: ClientProfileId;
  readonly op: Op;
  readonly workload: string;
  readonly bytes: number;
  readonly measuredSeconds: number;
  readonly predictedSeconds: number;
  readonly error: number;
  readonly limitedBy: string;
}

export interface LabBenchLink {
  readonly bandwidth: string;
  readonly rtt: string;
  /** Size of the throughput comparison (smbclient and pipefill-max): about 4 s at line rate. */
  readonly throughputBytes: number;
  readonly measuredRttMs: number;
  readonly congestion: string;
  readonly iperf3Mbps: number;
  readonly smbclientReadMbps: number;
  readonly smbclientWriteMbps: number;
  readonly cells: LabBenchCell[];
}

/**
 * TCP as the lab's stack has it, for both ends: Linux, IW 10, timestamps,
 * the 64 MiB buffer maxima the lab sets in its namespaces (about half of a
 * buffer carries payload), and the congestion control the lab ran (BBR's
 * restart of a burst from idle: see ClientTcp.idleRestartRtts).
 *
 * Every generation is driven by Pipefill's engine on this stack, so a
 * profile keeps its I/O pattern (requests, pipeline, metadata round trips)
 * but not the per-request round trips of its own stack (XP's 1.56 / 1.1 were
 * measured on XP's TCP): a request costs the protocol's one round trip.
 */
const LAB_WINDOW_BYTES = 32 * MIB;
export function labStack(congestion: string): EngineStack {
  return { receiveWindowBytes: LAB_WINDOW_BYTES, sendWindowBytes: LAB_WINDOW_BYTES, initialWindowSegments: 10, congestion };
}
export function onLabStack(client: ClientProfile, congestion: string): ClientProfile {
  return asDrivenByPipefill(client, labStack(congestion));
}
export function labSamba(congestion: string): ServerProfile {
  const { receiveWindowBytes, sendWindowBytes, initialWindowSegments } = labStack(congestion);
  return {
    ...serverProfile('samba'),
    tcp: {
      receiveWindowBytes,
      sendWindowBytes,
      initialWindowSegments,
      idleRestartRtts: idleRestartRtts(congestion),
      congestion: asCongestionControl(congestion),
    },
  };
}

export function iperfMbps(state: LabState, seconds: number, extraArgs: readonly string[] = []): number {
  const run = inBranch(state, 'iperf3', ['-c', DATACENTER_ADDRESS, '-p', String(IPERF_PORT), '-t', String(seconds), '-J', ...extraArgs]);
  const result = JSON.parse(run.stdout) as { end: { sum_received: { bits_per_second: number } } };
  return result.end.sum_received.bits_per_second / 1e6;
}

function smbclientMbps(state: LabState, localFile: string): { read: number; write: number } {
  const { share, user, password } = labEndpoints(state);
  if (!share || !user || !password) throw new PipefillError('lab-failed', 'The lab has no Samba server.', 'Bring the lab up with Samba.');
  const run = withAuthenticationFile({ user, password }, (auth) =>
    inBranch(state, 'smbclient', [share, '-A', auth, '-c', `put ${localFile} smbclient.bin; get smbclient.bin /dev/null; del smbclient.bin`]),
  );
  const rates = [...(run.stdout + run.stderr).matchAll(/\(average ([\d.]+) (?:KiloBytes\/sec|kb\/s)\)/g)].map((match) => (Number(match[1]) * 1024 * 8) / 1e6);
  if (run.status !== 0 || rates.length < 2)
    throw new PipefillError('lab-failed', `smbclient failed: ${run.stdout}${run.stderr}`, 'Check the lab with `pipefill lab up` by hand.');
  return { write: rates[0] ?? NaN, read: rates[1] ?? NaN };
}

/** The built CLI, which runs inside the branch namespace (the same path from src/lab and dist/lab), started as `pipefill` starts it. */
const cliEntry = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const cli = [...ENGINE_NODE_FLAGS, cliEntry];

/** The generations a readiness check compares (pipefill assess --profiles): what the lab's budget and assessment experiments run. */
export const READINESS_PROFILES = ['xp-smb1', 'win7-smb1', 'win7-smb2', 'win10-smb3', 'pipefill-max'] as const;
export const READINESS_ARGS: readonly string[] = ['--profiles', READINESS_PROFILES.join(',')];

/**
 * The built CLI's `assess` in the branch namespace against a share in the
 * datacenter, with iperf3 there; its report and wall time. The server is
 * named Samba unless `recognise` asks the assessment to tell it, as a person's
 * run without --server does.
 */
export function assessInLab(
  state: LabState,
  share: string,
  password: string,
  extra: readonly string[],
  options: { readonly recognise?: boolean } = {},
): { report: Report; seconds: number } {
  const started = Date.now();
  const run = inBranch(
    state,
    process.execPath,
    [
      ...cli,
      'assess',
      '--share',
      share,
      '--user',
      'pipefill',
      '--password-env',
      'PIPEFILL_LAB_PASSWORD',
      '--iperf',
      `${DATACENTER_ADDRESS}:${IPERF_PORT}`,
      ...(options.recognise ? [] : ['--server', 'samba']),
      '--json',
      ...extra,
    ],
    {
      env: { ...process.env, PIPEFILL_LAB_PASSWORD: password },
      timeoutMs: 400_000,
    },
  );
  const seconds = (Date.now() - started) / 1000;
  if (run.status !== 0) throw new PipefillError('lab-failed', `assess failed: ${run.stderr.trim()}`, 'Run it by hand inside the lab to see more.');
  return { report: ReportSchema.parse(JSON.parse(run.stdout)), seconds };
}

/** The built CLI's `capacity` in the branch namespace against the datacenter's share, iperf3 beside it; its result and wall time. */
export function capacityInLab(state: LabState, extra: readonly string[]): { result: CapacityResult; seconds: number } {
  const { share, user, password } = labEndpoints(state);
  const started = Date.now();
  const run = inBranch(
    state,
    process.execPath,
    [
      ...cli,
      'capacity',
      '--share',
      share ?? '',
      '--user',
      user ?? '',
      '--password-env',
      'PIPEFILL_LAB_PASSWORD',
      '--iperf',
      `${DATACENTER_ADDRESS}:${IPERF_PORT}`,
      '--json',
      ...extra,
    ],
    {
      env: { ...process.env, PIPEFILL_LAB_PASSWORD: password ?? '' },
      timeoutMs: 600_000,
    },
  );
  if (run.status !== 0) throw new PipefillError('lab-failed', `capacity failed: ${run.stderr.trim()}`, 'Run it by hand inside the lab to see more.');
  return { result: CapacityResultSchema.parse(JSON.parse(run.stdout)), seconds: (Date.now() - started) / 1000 };
}

/** One copy-test inside the lab's branch; `extra`: more of its options (`--encrypt`, `--signing required`). */
export function copyTest(
  state: LabState,
  profile: ClientProfileId,
  op: Op,
  workload: string,
  extra: readonly string[] = [],
): { seconds: number; bytes: number } {
  const { share, user, password } = labEndpoints(state);
  const run = inBranch(
    state,
    process.execPath,
    [
      ...cli,
      'copy-test',
      '--share',
      share ?? '',
      '--user',
      user ?? '',
      '--password-env',
      'PIPEFILL_LAB_PASSWORD',
      '--profile',
      profile,
      '--op',
      op,
      '--workload',
      workload,
      ...extra,
      '--json',
    ],
    {
      env: { ...process.env, PIPEFILL_LAB_PASSWORD: password ?? '' },
      timeoutMs: 600_000,
    },
  );
  if (run.status !== 0)
    throw new PipefillError('lab-failed', `copy-test ${profile} ${op} ${workload} failed: ${run.stderr.trim()}`, 'Run it by hand inside the lab to see more.');
  const result = JSON.parse(run.stdout) as { seconds: number; bytes: number };
  return { seconds: result.seconds, bytes: result.bytes };
}

/**
 * Throughput is compared on a copy of about THROUGHPUT_SECONDS at line rate,
 * as iperf3's own run is: on a 32 MiB copy over 622 Mb/s and 75 ms, TCP's
 * ramp from its initial window alone outlasts the data.
 */
const THROUGHPUT_SECONDS = 4;
const MAX_THROUGHPUT_BYTES = 512 * MIB;

/** smbclient's source file; replaced whole per link (its folder is the bench's own, made fresh). */
function writeLocalFile(path: string, bytes: number): void {
  const pattern = new PatternSource('lab-bench', 'smbclient');
  rmSync(path, { force: true });
  const fd = openSync(path, 'wx', 0o600);
  try {
    for (let offset = 0; offset < bytes; offset += 16 * MIB) writeSync(fd, pattern.bytes(offset, Math.min(16 * MIB, bytes - offset)));
  } finally {
    closeSync(fd);
  }
}

export async function runLabBench(options: LabBenchOptions): Promise<LabBenchLink[]> {
  const say = options.onProgress ?? (() => undefined);
  // An unguessable folder of the bench's own on tmpfs: nothing planted there can catch the writes.
  const localFolder = freshDirectory('/dev/shm', 'pipefill-lab-bench-');
  const localFile = join(localFolder, 'smbclient.bin');
  const workloads = [fileSpec(options.fileBytes), ...(options.dirsetScale ? [`tr3869-dirset:${options.dirsetScale}`] : [])];
  const results: LabBenchLink[] = [];
  try {
    for (const { label, link } of options.links) {
      say(`link ${label}: bringing the lab up`);
      const seconds = options.throughputSeconds ?? THROUGHPUT_SECONDS;
      const throughputBytes = Math.min(MAX_THROUGHPUT_BYTES, Math.max(options.fileBytes, Math.ceil((link.bandwidthBitsPerSecond * seconds) / 8 / MIB) * MIB));
      writeLocalFile(localFile, throughputBytes);
      const state = await labUp(link, { samba: true });
      try {
        const rttMs = median(handshakeTimesMs(state, 9));
        const iperf3Mbps = iperfMbps(state, options.iperfSeconds ?? 5);
        const smbclient = smbclientMbps(state, localFile);
        say(
          `link ${label}: RTT ${rttMs.toFixed(2)} ms, iperf3 ${iperf3Mbps.toFixed(1)} Mb/s, smbclient (${throughputBytes / MIB} MiB) get ${smbclient.read.toFixed(1)} / put ${smbclient.write.toFixed(1)} Mb/s`,
        );
        const measuredLink = { bandwidthBitsPerSecond: link.bandwidthBitsPerSecond, rttMs };
        const cells: LabBenchCell[] = [];
        const runs: { workload: string; profiles: readonly ClientProfileId[] }[] = workloads.map((workload) => ({ workload, profiles: options.profiles }));
        if (throughputBytes > options.fileBytes && options.profiles.includes('pipefill-max'))
          runs.push({ workload: fileSpec(throughputBytes), profiles: ['pipefill-max'] });
        for (const { workload, profiles } of runs) {
          for (const profile of profiles) {
            for (const op of options.ops) {
              const measured = copyTest(state, profile, op, workload);
              // Reads are sent by the datacenter's servers, with their own congestion control (CUBIC unless the lab was told
              // otherwise); a BBR client's restart from idle is not theirs (XP reads at 100 Mb/s / 60 ms: 79.3 s modelled, 55.8 measured).
              const prediction = predictTransfer(
                onLabStack(clientProfile(profile), state.congestion),
                labSamba(state.serverCongestion ?? state.congestion),
                op,
                parseWorkload(workload),
                measuredLink,
              );
              const cell = {
                profile,
                op,
                workload,
                bytes: measured.bytes,
                measuredSeconds: measured.seconds,
                predictedSeconds: prediction.seconds,
                error: (prediction.seconds - measured.seconds) / measured.seconds,
                limitedBy: prediction.limitedBy,
              };
              cells.push(cell);
              say(
                `  ${profile} ${op} ${workload}: measured ${cell.measuredSeconds.toFixed(2)} s, predicted ${cell.predictedSeconds.toFixed(2)} s (${(cell.error * 100).toFixed(0)}%)`,
              );
            }
          }
        }
        results.push({
          bandwidth: formatRate(link.bandwidthBitsPerSecond).replace(' ', ''),
          rtt: formatDuration(link.rttMs).replace(' ', ''),
          throughputBytes,
          measuredRttMs: rttMs,
          congestion: state.congestion,
          iperf3Mbps,
          smbclientReadMbps: smbclient.read,
          smbclientWriteMbps: smbclient.write,
          cells,
        });
      } finally {
        await labDown(state.id);
      }
    }
  } finally {
    rmSync(localFolder, { recursive: true, force: true });
  }
  return results;
}
