// A failing link (issue 13): in the WAN lab at 155 Mb/s / 32 ms, the link
// blackholes mid-copy for 5 s and for 60 s, loses 1% and 5% of packets, and
// its round trip jumps from 32 to 300 ms mid-copy. Each copy (the built CLI,
// run in the branch namespace as a person runs it) ends with a result that
// says what happened: a finished copy whose result names the stall, the loss
// or the jump, or a typed error within the bound below; the share holds no
// scratch once the link is back. Runs alone (see scripts/test.mjs): its
// timings are the link's, not a busy machine's.

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopyTestResult } from '../contract/copy-test.js';
import { pathEvents } from '../presentation/report-views.js';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { SILENCE_TIMEOUT_MS } from '../smb/silence-watchdog.js';
import type { LabState } from './wan-lab.js';
import { changeLink, labDown, labEndpoints, labUp } from './wan-lab.js';
import { DATACENTER_ADDRESS, IPERF_PORT } from './lab-network.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun') && existsSync('/usr/sbin/smbd');
if (!canRunLab) console.warn('SKIPPED: the failing-link tests need Linux, root, /dev/net/tun and Samba.');

const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
/** A write of this size takes ~5 s at 155 Mb/s: long enough to fail in the middle of. */
const WORKLOAD = 'file:96MiB';
/** After a stall: the silence limit, one clean-up attempt's connect deadline (5 s), and 3 s for the process. */
const FAILED_WITHIN_MS = SILENCE_TIMEOUT_MS + 5_000 + 3_000;

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The built CLI inside the branch namespace, as a person runs it, without waiting for it. */
function pipefill(state: LabState, args: readonly string[]): { child: ChildProcess; done: Promise<Run> } {
  const { password } = labEndpoints(state);
  const started = performance.now();
  const child = spawn('ip', ['netns', 'exec', state.branch, process.execPath, ...ENGINE_NODE_FLAGS, cli, ...args], {
    env: { ...process.env, PIPEFILL_LAB_PASSWORD: password ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Run>((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr, ms: performance.now() - started })));
  return { child, done };
}

const login = (state: LabState) => [
  '--share',
  labEndpoints(state).share ?? '',
  '--user',
  labEndpoints(state).user ?? '',
  '--password-env',
  'PIPEFILL_LAB_PASSWORD',
];

function copyTest(state: LabState, args: readonly string[] = []): { child: ChildProcess; done: Promise<Run> } {
  return pipefill(state, [
    'copy-test',
    ...login(state),
    '--profile',
    'pipefill-max',
    '--op',
    'write',
    '--workload',
    WORKLOAD,
    '--no-verify',
    '--json',
    ...args,
  ]);
}

/** Runs copies until the share holds no scratch (an orphan goes once smbd has dropped its connection); at most 90 s. */
async function sweepUntilClean(state: LabState): Promise<void> {
  const deadline = performance.now() + 90_000;
  while (scratchOnShare(state).length > 0 && performance.now() < deadline) {
    const sweep = copyTest(state, ['--workload', 'file:1MiB']);
    expect((await sweep.done).status).toBe(0);
    if (scratchOnShare(state).length > 0) await sleep(5_000);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until a copy started after `before` (the scratch folders on the share then) has written
 * 16 MiB on the share (the server's own folder, seen from here); at most 20 s.
 */
async function untilCopying(state: LabState, before: readonly string[]): Promise<void> {
  const bytesOnShare = () => {
    let total = 0;
    for (const scratch of scratchOnShare(state).filter((name) => !before.includes(name))) {
      const file = join(state.samba?.sharePath ?? '', scratch, 'target', 'pipefill-test.bin');
      if (existsSync(file)) total += statSync(file).size;
    }
    return total;
  };
  for (let i = 0; i < 200 && bytesOnShare() < 16 * 1024 * 1024; i++) await sleep(100);
}

/** Blackholes the link once `run` is under way, for 60 s; returns how it ended and how long after the cut. */
async function blackholeFor60s(state: LabState, run: { done: Promise<Run> }): Promise<{ outcome: Run; failedAfter: number }> {
  await changeLink(state, { blackhole: true });
  const cut = performance.now();
  try {
    const outcome = await run.done;
    const failedAfter = performance.now() - cut;
    await sleep(Math.max(0, 60_000 - (performance.now() - cut)));
    return { outcome, failedAfter };
  } finally {
    await changeLink(state, { blackhole: false });
  }
}

function scratchOnShare(state: LabState): string[] {
  const path = state.samba?.sharePath ?? '';
  return existsSync(path) ? readdirSync(path).filter((name) => name.startsWith('.pipefill-')) : [];
}

describe.skipIf(!canRunLab)('a failing link', () => {
  let state: LabState;
  beforeAll(async () => {
    state = await labUp({ bandwidthBitsPerSecond: 155e6, rttMs: 32 }, { samba: true });
  }, 60_000);
  afterAll(async () => {
    await labDown(state?.id);
  });

  it('blackholed for 5 s mid-copy: the copy finishes, and its result names the stall', async () => {
    const before = scratchOnShare(state);
    const run = copyTest(state);
    await untilCopying(state, before);
    await changeLink(state, { blackhole: true });
    await sleep(5_000);
    await changeLink(state, { blackhole: false });
    const { status, stdout, stderr } = await run.done;
    expect(status, stderr).toBe(0);
    const result = JSON.parse(stdout) as CopyTestResult;
    const events = pathEvents(result);
    console.log(`5 s blackhole: ${result.seconds.toFixed(1)} s; ${events.join(' ')}`);
    expect(events.some((event) => /stalled for [4-9]\.\d s/.test(event))).toBe(true);
    // A copy that finished leaves nothing of its own (an earlier failure's orphan is not its to judge).
    expect(scratchOnShare(state).filter((name) => !before.includes(name))).toEqual([]);
  }, 90_000);

  it('blackholed for 60 s mid-copy: a one-line typed timeout within the bound, and no scratch once the link is back', async () => {
    const before = scratchOnShare(state);
    const run = copyTest(state);
    await untilCopying(state, before);
    const { outcome, failedAfter } = await blackholeFor60s(state, run);
    const { status, stderr } = outcome;
    console.log(`60 s blackhole: failed ${(failedAfter / 1000).toFixed(1)} s after the cut: ${stderr.trim().split('\n')[0]}`);
    expect(status).toBe(1);
    // The silence it names is the base (9 s) plus what the write bytes outstanding at the cut earn at the path's
    // rate (silenceAllowanceMs): 9.8-10.8 s in most runs, 11.0 s in one of the 2026-11-26 full lab run. What the
    // product promises is the bound on the whole failure, below.
    const silent = /^error: The server [\d.:]+ has made no progress for (\d+(?:\.\d)?) s/m.exec(stderr);
    expect(silent, stderr).not.toBeNull();
    expect(Number(silent?.[1])).toBeGreaterThanOrEqual(SILENCE_TIMEOUT_MS / 1000);
    expect(Number(silent?.[1]) * 1000).toBeLessThan(FAILED_WITHIN_MS);
    expect(failedAfter).toBeLessThan(FAILED_WITHIN_MS);
    expect(stderr).not.toMatch(/\n\s+at /);
    // smbd learns the connection is gone at its next retransmission after the link returns
    // (the client's kernel answers with a reset); the next run then sweeps the orphan.
    await sweepUntilClean(state);
    expect(scratchOnShare(state)).toEqual([]);
  }, 240_000);

  it.each([0.01, 0.05])(
    'losing %d of packets: the copy finishes, and its result names the loss',
    async (lossRate) => {
      const before = scratchOnShare(state);
      await changeLink(state, { lossRate });
      try {
        const { status, stdout, stderr } = await copyTest(state, ['--workload', 'file:32MiB']).done;
        expect(status, stderr).toBe(0);
        const result = JSON.parse(stdout) as CopyTestResult;
        const events = pathEvents(result);
        console.log(`loss ${lossRate}: ${result.throughputMbps.toFixed(1)} Mb/s; ${events.join(' ')}`);
        expect(events.some((event) => /of its bytes again|out of order/.test(event))).toBe(true);
      } finally {
        await changeLink(state, { lossRate: 0 });
      }
      expect(scratchOnShare(state).filter((name) => !before.includes(name))).toEqual([]);
    },
    120_000,
  );

  it('its round trip jumping from 32 to 300 ms mid-copy: the copy finishes, and its result names the jump', async () => {
    const before = scratchOnShare(state);
    const run = copyTest(state);
    await untilCopying(state, before);
    await changeLink(state, { rttMs: 300 });
    try {
      const { status, stdout, stderr } = await run.done;
      expect(status, stderr).toBe(0);
      const result = JSON.parse(stdout) as CopyTestResult;
      const events = pathEvents(result);
      console.log(`RTT jump: ${result.seconds.toFixed(1)} s; ${events.join(' ')}`);
      expect(events.some((event) => /round trip changed during the copy: 3\d ms before, [23]\d\d ms after/.test(event))).toBe(true);
    } finally {
      await changeLink(state, { rttMs: 32 });
    }
    // A copy that finished leaves nothing of its own (an earlier failure's orphan is not its to judge).
    expect(scratchOnShare(state).filter((name) => !before.includes(name))).toEqual([]);
  }, 120_000);

  it('blackholed for 60 s during an assessment: a one-line typed error naming the copy it stopped at, within the bound', async () => {
    const before = scratchOnShare(state);
    const run = pipefill(state, ['assess', ...login(state), '--iperf', `${DATACENTER_ADDRESS}:${IPERF_PORT}`, '--server', 'samba', '--quick', '--json']);
    // The scratch folder appears beside the probe (the sessions open while it runs); the copies have begun
    // once the first one's folder (Pipefill's own write of the file, every read's source) is in it.
    const copying = () => scratchOnShare(state).some((name) => !before.includes(name) && existsSync(join(state.samba?.sharePath ?? '', name, 'source-file')));
    for (let i = 0; i < 600 && !copying(); i++) await sleep(100);
    await sleep(500);
    const { outcome, failedAfter } = await blackholeFor60s(state, run);
    console.log(`assessment, 60 s blackhole: failed ${(failedAfter / 1000).toFixed(1)} s after the cut: ${outcome.stderr.trim().split('\n')[0]}`);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^error: The assessment stopped at [a-z0-9-]+ (read|write) \S+ \(\d+ of \d+\): /m);
    expect(outcome.stderr).not.toMatch(/\n\s+at /);
    expect(failedAfter).toBeLessThan(FAILED_WITHIN_MS);
    await sweepUntilClean(state);
    expect(scratchOnShare(state)).toEqual([]);
  }, 240_000);
});
