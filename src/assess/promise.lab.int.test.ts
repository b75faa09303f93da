// Every promise proved by running again (issue 48), across the WAN lab
// (Linux, root): on the demo's branch (100 Mb/s, 40 ms, a Samba granting 16
// credits) the default assessment names its changes, each with the time the
// model gives for a copy a person knows with only that change made; the lab
// is then changed accordingly, one change at a time, and the share assessed
// again with the earlier report (--since): what the new run measured for the
// same copy is within 15% of what was promised, for the folder of small
// files (robocopy /MT:n, copied as robocopy copies) and for the file (the
// server's credits; and, on a server of its own, a fixed 64 KiB receive
// buffer taken out of its socket options). On a share on this machine, where
// signing can be the limit: a Samba that signs with AES-128-CMAC only, given
// AES-128-GMAC first as proposed; that promise rests on the hosts'
// calibration, and is held to 15% and the calibration's own scatter, as the
// product judges it (src/contract/promises.ts promiseScatter). A TUN lab link
// carries 1 Gb/s at most, and signing holds a copy only above about 5 Gb/s.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import type { Report } from '../contract/report.js';
import { ReportSchema } from '../contract/report.js';
import { assessInLab } from '../lab/bench.js';
import { DEMO_BRANCH_LINK } from '../lab/branch-demo.js';
import { DATACENTER_ADDRESS } from '../lab/lab-network.js';
import type { SambaOptions } from '../lab/samba.js';
import { SambaServer, sambaAvailable } from '../lab/samba.js';
import type { LabState } from '../lab/wan-lab.js';
import { labDown, labUp } from '../lab/wan-lab.js';
import type { Observation } from '../test-support/lab-fidelity.js';
import { failures, holdBounds, withinRelative } from '../test-support/lab-fidelity.js';
import { PROMISE_KEPT_WITHIN } from '../contract/promises.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun');
if (!canRunLab) console.warn('SKIPPED: the promise lab tests need Linux, root and /dev/net/tun.');

const PORT = 1445;
const cliEntry = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const SHARE = `//${DATACENTER_ADDRESS}:${PORT}/share`;

/** Whether a run of the experiment measures a change's cells: all of them, or those `only` names (cells are `name, test`). */
const wants = (only: ReadonlySet<string> | undefined, name: string): boolean => !only || [...only].some((cell) => cell.startsWith(name));

/**
 * One cell for each copy a change promised (its own test, and the other copies a person knows that it speeds up:
 * src/contract/promises.ts), each held within PROMISE_KEPT_WITHIN of its promise; one unmeasured cell where the new
 * run checked no promise of that change at all.
 */
function promiseCells(name: string, report: Report, knob: string): Observation[] {
  const checks = report.promises?.filter((check) => check.knob === knob) ?? [];
  if (checks.length === 0) {
    console.log(`  ${name}: no promise checked; the run named ${report.advice?.recommendations.map((r) => r.knob).join(', ')}`);
    return [{ cell: name, measured: NaN, model: NaN, unit: 's', bound: `within ${PROMISE_KEPT_WITHIN * 100}% of the promise`, holds: false }];
  }
  return checks.map((check) => {
    console.log(`  ${name}: ${check.sentence}`);
    // On a share on this machine the promise rests on a calibration of the two machines, and the product judges it
    // with that calibration's own scatter beside the 15% (promiseScatter, the band a copy is judged by); the bound
    // here is stated apart from the product's own verdict: the model's 15% either way, widened by that scatter.
    const scatter = check.scatter ?? 0;
    const ratio = check.measuredSeconds / check.promisedSeconds;
    const holds =
      scatter > 0
        ? ratio <= (1 + scatter) / (1 - PROMISE_KEPT_WITHIN) && ratio >= 1 / ((1 + PROMISE_KEPT_WITHIN) * (1 + scatter))
        : withinRelative(check.measuredSeconds, check.promisedSeconds, PROMISE_KEPT_WITHIN);
    return {
      cell: `${name}, ${check.test}`,
      measured: check.measuredSeconds,
      model: check.promisedSeconds,
      unit: `s (${check.test})`,
      bound: `within ${PROMISE_KEPT_WITHIN * 100}% of the promise${scatter > 0 ? ` and the calibration's ${Math.round(scatter * 100)}% scatter` : ''}`,
      holds,
    };
  });
}

/** One Samba in the lab's datacenter on PORT, started again with other settings as each change is made. */
function datacenterSamba(state: LabState) {
  let server: SambaServer | undefined;
  return {
    get current(): SambaServer | undefined {
      return server;
    },
    async serve(settings: Pick<SambaOptions, 'maxCredits' | 'socketOptions'>): Promise<SambaServer> {
      await server?.stop();
      server = await SambaServer.start({
        address: DATACENTER_ADDRESS,
        port: PORT,
        commandPrefix: ['ip', 'netns', 'exec', state.datacenter],
        bindAll: true,
        ...settings,
      });
      return server;
    },
    async stop(): Promise<void> {
      await server?.stop();
    },
  };
}

describe.skipIf(!canRunLab)('promises proved by running again, across the WAN lab', () => {
  afterAll(async () => {
    await labDown();
  });

  it("the demo branch's changes, each made alone: the new run measures within 15% of the promise, for the folder of small files and for the file", async () => {
    const state = await labUp(DEMO_BRANCH_LINK, { samba: false });
    const folder = mkdtempSync(join(tmpdir(), 'pipefill-promise-'));
    const samba = datacenterSamba(state);
    const serve = (maxCredits: number) => samba.serve({ maxCredits });
    try {
      // The branch as it is: 16 credits, Explorer's one file at a time.
      const before = await serve(16);
      const earlier = assessInLab(state, SHARE, before.password, ['--no-history'], { recognise: true }).report;
      for (const line of earlier.verdict?.lines ?? []) console.log(`  before: ${line}`);
      const named = new Map((earlier.advice?.recommendations ?? []).map((recommendation) => [recommendation.id, recommendation]));
      const robocopy = named.get('copy-tool.robocopy-mt');
      const credits = named.get('samba.smb2-max-credits');
      expect(robocopy?.test).toBe('write tr3869-dirset');
      expect(credits?.test).toMatch(/^(read|write) file:1GB$/);
      const earlierPath = join(folder, 'earlier.json');
      writeFileSync(earlierPath, JSON.stringify(earlier));

      const ROBOCOPY = `robocopy /MT:${String(robocopy?.value)} promise`;
      const CREDITS = `smb2 max credits ${String(credits?.value)} promise`;
      const verdicts = await holdBounds('promises on 100 Mb/s, 40 ms, 16 credits', async (only) => {
        const cells: Observation[] = [];
        // The copy tool changed alone: the same server, the folders copied as robocopy /MT:n copies them.
        if (wants(only, ROBOCOPY)) {
          const on = await serve(16);
          const again = assessInLab(state, SHARE, on.password, ['--no-history', '--threads', String(robocopy?.value), '--since', earlierPath], {
            recognise: true,
          }).report;
          cells.push(...promiseCells(ROBOCOPY, again, 'robocopy /MT:n'));
        }
        // The server changed alone: its credits as proposed, the copies one file at a time again.
        if (wants(only, CREDITS)) {
          const on = await serve(Number(credits?.value));
          const again = assessInLab(state, SHARE, on.password, ['--no-history', '--since', earlierPath], { recognise: true }).report;
          cells.push(...promiseCells(CREDITS, again, 'smb2 max credits'));
        }
        return cells;
      });
      expect(failures(verdicts)).toEqual([]);
      expect(samba.current?.shareContents()).toEqual([]);
    } finally {
      await samba.stop();
      rmSync(folder, { recursive: true, force: true });
      await labDown(state.id);
    }
  }, 1_800_000);

  it("a server's small TCP window (socket options = SO_RCVBUF=65536) on the demo's link: without it, the new run's write measures within 15% of the promise", async () => {
    const state = await labUp(DEMO_BRANCH_LINK, { samba: false });
    const folder = mkdtempSync(join(tmpdir(), 'pipefill-promise-'));
    const samba = datacenterSamba(state);
    const serve = (socketOptions: string) => samba.serve({ socketOptions });
    try {
      // The server as a tuning guide left it: a fixed 64 KiB receive buffer, so writes stop at 64 KiB in flight.
      const before = await serve('TCP_NODELAY SO_RCVBUF=65536');
      const earlier = assessInLab(state, SHARE, before.password, ['--no-history'], { recognise: true }).report;
      for (const line of earlier.verdict?.lines ?? []) console.log(`  before: ${line}`);
      const window = (earlier.advice?.recommendations ?? []).find((recommendation) => recommendation.id === 'samba.socket-options');
      // A write the window holds: the file, or the folder of small files, whichever the change helps most.
      expect(window?.test).toMatch(/^write (file:1GB|tr3869-dirset)$/);
      const earlierPath = join(folder, 'earlier.json');
      writeFileSync(earlierPath, JSON.stringify(earlier));
      const NAME = `socket options = ${String(window?.value)} promise`;
      const verdicts = await holdBounds('promise on 100 Mb/s, 40 ms, a 64 KiB server window', async () => {
        // The server changed alone, as proposed.
        const on = await serve(String(window?.value));
        const again = assessInLab(state, SHARE, on.password, ['--no-history', '--since', earlierPath], { recognise: true }).report;
        return promiseCells(NAME, again, 'socket options');
      });
      expect(failures(verdicts)).toEqual([]);
      expect(samba.current?.shareContents()).toEqual([]);
    } finally {
      await samba.stop();
      rmSync(folder, { recursive: true, force: true });
      await labDown(state.id);
    }
  }, 1_800_000);
});

describe.skipIf(!sambaAvailable())('promises proved by running again, on a share on this machine', () => {
  it('a server that signs with AES-128-CMAC only: with AES-128-GMAC first, as proposed, the new run measures within 15% of the promise', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'pipefill-promise-'));
    let server: SambaServer | undefined;
    const serve = async (algorithms: string) => {
      await server?.stop();
      server = await SambaServer.start({ globals: { 'server smb3 signing algorithms': algorithms } });
      return server;
    };
    const assess = (on: SambaServer, extra: readonly string[]): Report => {
      const run = spawnSync(
        process.execPath,
        [
          cliEntry,
          'assess',
          '--share',
          `//127.0.0.1:${on.port}/share`,
          '--user',
          'pipefill',
          '--password-env',
          'PIPEFILL_TEST_PASSWORD',
          '--json',
          '--no-history',
          ...extra,
        ],
        { encoding: 'utf8', timeout: 400_000, env: { ...process.env, PIPEFILL_TEST_PASSWORD: on.password } },
      );
      expect(run.status, run.stderr).toBe(0);
      return ReportSchema.parse(JSON.parse(run.stdout));
    };
    try {
      const NAME = 'server smb3 signing algorithms promise';
      // Each run is a whole experiment, the earlier assessment included: a share on this machine is measured by a
      // calibration of its own hosts, whose runs differ by 10-20%, so a promise from one earlier run is one sample.
      const verdicts = await holdBounds('promise on loopback, a server signing with AES-128-CMAC', async () => {
        // Windows 11 24H2 signs every message; a server without AES-128-GMAC has it sign with AES-CMAC, about six times the CPU.
        const earlier = assess(await serve('AES-128-CMAC'), []);
        for (const line of earlier.verdict?.lines ?? []) console.log(`  before: ${line}`);
        const algorithms = (earlier.advice?.recommendations ?? []).find((recommendation) => recommendation.id === 'samba.signing-algorithms');
        expect(String(algorithms?.value)).toMatch(/^AES-128-GMAC/);
        const earlierPath = join(folder, 'earlier.json');
        writeFileSync(earlierPath, JSON.stringify(earlier));
        const again = assess(await serve(String(algorithms?.value)), ['--since', earlierPath]);
        return promiseCells(NAME, again, 'server smb3 signing algorithms');
      });
      expect(failures(verdicts)).toEqual([]);
      expect(server?.shareContents()).toEqual([]);
    } finally {
      await server?.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 1_800_000);
});
