// The WAN lab's fidelity (issue 4): real kernel TCP across the emulated link
// sees the configured RTT, rate and loss. Linux and root only.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { failures, holdBounds, withinRelative } from '../test-support/lab-fidelity.js';
import type { LabLink, LabState } from './wan-lab.js';
import { LAB_STATE_DIR, forwarderStats, handshakeTimesMs, inBranch, labDown, labUp, readLabStates } from './wan-lab.js';
import { DATACENTER_ADDRESS, IPERF_PORT } from './lab-network.js';
import { median } from '../model/stats.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun');
if (!canRunLab) console.warn('SKIPPED: the WAN lab tests need Linux, root and /dev/net/tun.');

function iperf(state: LabState, args: string[]): { receivedMbps: number; lostPercent?: number; congestion?: string } {
  const run = inBranch(state, 'iperf3', ['-c', DATACENTER_ADDRESS, '-p', String(IPERF_PORT), '-J', ...args]);
  const result = JSON.parse(run.stdout) as {
    end: { sum_received?: { bits_per_second: number }; sum?: { bits_per_second: number; lost_percent: number }; sender_tcp_congestion?: string };
    error?: string;
  };
  if (result.error) throw new Error(result.error);
  if (result.end.sum) return { receivedMbps: result.end.sum.bits_per_second / 1e6, lostPercent: result.end.sum.lost_percent };
  return {
    receivedMbps: (result.end.sum_received?.bits_per_second ?? 0) / 1e6,
    ...(result.end.sender_tcp_congestion ? { congestion: result.end.sender_tcp_congestion } : {}),
  };
}

async function withLab<T>(link: LabLink, body: (state: LabState) => Promise<T> | T, samba = false): Promise<T> {
  const state = await labUp(link, { samba });
  try {
    return await body(state);
  } finally {
    await labDown(state.id);
  }
}

interface Probed {
  readonly rtt: { readonly medianMs: number; readonly tcp: { readonly timedBy?: string } };
  readonly bandwidth: { readonly mbps: number; readonly method: string };
}

/** `pipefill probe --json` of the lab's share, run by the built CLI in the branch. */
function probeInBranch(state: LabState, args: readonly string[]): Probed {
  const cli = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
  const run = inBranch(
    state,
    process.execPath,
    [...ENGINE_NODE_FLAGS, cli, 'probe', '--share', `//${DATACENTER_ADDRESS}/share`, '--user', 'pipefill', '--password-env', 'PW', ...args, '--json'],
    { env: { ...process.env, PW: state.samba?.password ?? '' } },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as Probed;
}

describe.skipIf(!canRunLab)('WAN lab fidelity', () => {
  afterAll(async () => {
    await labDown();
  });

  // The lab promises the configured delay as the path's floor: a handshake can never be quicker,
  // and the quickest of 15 is within 1 ms above it. A busy machine only adds to some of them
  // (a fresh clone's run beside other work once saw a median of 76.02 ms for 75), so the
  // minimum, not the median, is what the lab's fidelity is judged by.
  it.each([32, 75])(
    'idle RTT: no handshake under %d ms, the quickest within 1 ms above it',
    async (rttMs) => {
      const verdicts = await holdBounds(`lab RTT ${rttMs} ms`, async () => {
        const samples = await withLab({ bandwidthBitsPerSecond: 155e6, rttMs }, (state) => handshakeTimesMs(state, 15), true);
        const quickest = Math.min(...samples);
        console.log(`lab RTT: configured ${rttMs} ms, TCP handshakes min ${quickest.toFixed(2)} ms, median ${median(samples).toFixed(2)} ms`);
        return [
          {
            cell: 'quickest of 15 handshakes',
            measured: quickest,
            model: rttMs,
            unit: 'ms (configured)',
            bound: 'configured to +1 ms',
            holds: quickest >= rttMs - 0.05 && quickest - rttMs <= 1,
          },
        ];
      });
      expect(failures(verdicts)).toEqual([]);
    },
    120_000,
  );

  it.each([
    [52e6, 32],
    [155e6, 32],
    [52e6, 75],
    [155e6, 75],
  ])(
    'iperf3 reaches 90 percent of %d b/s at %d ms, and reports the congestion control',
    async (bandwidthBitsPerSecond, rttMs) => {
      const lineMbps = bandwidthBitsPerSecond / 1e6;
      const verdicts = await holdBounds(`lab rate ${lineMbps} Mb/s, ${rttMs} ms`, async () => {
        const result = await withLab({ bandwidthBitsPerSecond, rttMs }, (state) => {
          const measured = iperf(state, ['-t', '6', '-O', '1']);
          expect(measured.congestion).toBe(state.congestion);
          return measured;
        });
        console.log(
          `lab rate: configured ${lineMbps} Mb/s at ${rttMs} ms, iperf3 ${result.receivedMbps.toFixed(1)} Mb/s (${((result.receivedMbps / lineMbps) * 100).toFixed(1)}%), ${result.congestion}`,
        );
        return [
          {
            cell: 'iperf3, one TCP stream',
            measured: result.receivedMbps,
            model: lineMbps,
            unit: 'Mb/s (line)',
            bound: '>= 90% of the line',
            holds: result.receivedMbps / lineMbps >= 0.9,
          },
        ];
      });
      expect(failures(verdicts)).toEqual([]);
    },
    300_000,
  );

  it('loses the configured share of packets, within 30% relative', async () => {
    const lossRate = 0.01;
    const verdicts = await holdBounds('lab loss 1%', async () => {
      const { lostPercent, counted } = await withLab({ bandwidthBitsPerSecond: 155e6, rttMs: 32, lossRate }, async (state) => {
        const measured = iperf(state, ['-u', '-b', '20M', '-l', '1400', '-t', '8']);
        const stats = (await forwarderStats(state)) as { directions: { name: string; packetsIn: number; dropsLoss: number }[] };
        const forward = stats.directions.find((direction) => direction.name === 'a-to-b');
        return { lostPercent: measured.lostPercent ?? NaN, counted: (forward?.dropsLoss ?? 0) / (forward?.packetsIn ?? 1) };
      });
      console.log(`lab loss: configured 1%, iperf3 UDP lost ${lostPercent.toFixed(2)}%, forwarder dropped ${(counted * 100).toFixed(2)}%`);
      const bound = 'within 30% of the configured';
      return [
        {
          cell: 'iperf3 UDP loss',
          measured: lostPercent,
          model: lossRate * 100,
          unit: '% (configured)',
          bound,
          holds: withinRelative(lostPercent / 100, lossRate, 0.3),
        },
        {
          cell: "forwarder's drops",
          measured: counted * 100,
          model: lossRate * 100,
          unit: '% (configured)',
          bound,
          holds: withinRelative(counted, lossRate, 0.3),
        },
      ];
    });
    expect(failures(verdicts)).toEqual([]);
  }, 300_000);

  it.each([
    ['iperf3', 155e6, 32],
    ['smb-read', 52e6, 32],
  ] as const)(
    'pipefill probe (%s) agrees with the configured %d b/s and %d ms within 10 percent',
    async (method, bandwidthBitsPerSecond, rttMs) => {
      const lineMbps = bandwidthBitsPerSecond / 1e6;
      const verdicts = await holdBounds(`lab probe (${method}) ${lineMbps} Mb/s, ${rttMs} ms`, async () => {
        const probed = await withLab(
          { bandwidthBitsPerSecond, rttMs },
          (state) => probeInBranch(state, ['--seconds', '4', ...(method === 'iperf3' ? ['--iperf', `${DATACENTER_ADDRESS}:${IPERF_PORT}`] : [])]),
          true,
        );
        console.log(
          `lab probe: configured ${lineMbps} Mb/s ${rttMs} ms, probed ${probed.bandwidth.mbps.toFixed(1)} Mb/s (${probed.bandwidth.method}), RTT ${probed.rtt.medianMs.toFixed(2)} ms`,
        );
        expect(probed.bandwidth.method).toBe(method);
        return [
          {
            cell: 'probed RTT',
            measured: probed.rtt.medianMs,
            model: rttMs,
            unit: 'ms (configured)',
            bound: 'within 10% of the configured',
            holds: withinRelative(probed.rtt.medianMs, rttMs, 0.1),
          },
          {
            cell: 'probed bandwidth',
            measured: probed.bandwidth.mbps,
            model: lineMbps,
            unit: 'Mb/s (line)',
            bound: 'within 10% of the line',
            holds: withinRelative(probed.bandwidth.mbps, lineMbps, 0.1),
          },
        ];
      });
      expect(failures(verdicts)).toEqual([]);
    },
    400_000,
  );

  it.each([1, 2])(
    'with %d busy cores beside it, pipefill probe reads the 100 Mb/s, 60 ms link within 5 percent (the kernel times the handshakes)',
    async (busyCores) => {
      const rttMs = 60;
      const verdicts = await holdBounds(`lab probe RTT, ${busyCores} busy core${busyCores === 1 ? '' : 's'}, 100 Mb/s, ${rttMs} ms`, async () => {
        const probed = await withLab(
          { bandwidthBitsPerSecond: 100e6, rttMs },
          async (state) => {
            // Busy loops, bounded: each in a process group of its own (timeout and its shell), killed whole below, and by
            // timeout itself at worst. (Killing timeout alone leaves its shell spinning: it did, once.)
            const loops = Array.from({ length: busyCores }, () =>
              spawn('timeout', ['120', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore', detached: true }),
            );
            try {
              await new Promise((resolve) => setTimeout(resolve, 500));
              return probeInBranch(state, ['--seconds', '2', '--iperf', `${DATACENTER_ADDRESS}:${IPERF_PORT}`]);
            } finally {
              for (const loop of loops) if (loop.pid !== undefined) process.kill(-loop.pid, 'SIGKILL');
            }
          },
          true,
        );
        console.log(
          `lab probe beside ${busyCores} busy core(s): configured ${rttMs} ms, RTT ${probed.rtt.medianMs.toFixed(2)} ms (${probed.rtt.tcp.timedBy ?? 'process'})`,
        );
        return [
          {
            cell: `probed RTT, ${busyCores} busy core${busyCores === 1 ? '' : 's'}`,
            measured: probed.rtt.medianMs,
            model: rttMs,
            unit: 'ms (configured)',
            bound: 'within 5% of the configured',
            holds: withinRelative(probed.rtt.medianMs, rttMs, 0.05),
          },
        ];
      });
      expect(failures(verdicts)).toEqual([]);
    },
    400_000,
  );

  it('down removes everything and is safe to run twice', async () => {
    const state = await labUp({ bandwidthBitsPerSecond: 10e6, rttMs: 10 }, { samba: true });
    expect(readLabStates().map((s) => s.id)).toContain(state.id);
    // The state holds the Samba password: root's own folder, 0700, files 0600; the share's name is not guessable from the id.
    expect(statSync(LAB_STATE_DIR).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(LAB_STATE_DIR).filter((file) => file.startsWith(state.id)))
      expect(statSync(join(LAB_STATE_DIR, name)).mode & 0o777, name).toBe(0o600);
    expect(state.samba?.sharePath).toMatch(/^\/dev\/shm\/pipefill-lab-[A-Za-z0-9]{6}$/);
    expect(state.samba?.sharePath).not.toContain(state.id);
    expect(await labDown(state.id)).toEqual([state.id]);
    expect(await labDown(state.id)).toEqual([]);
    expect(readLabStates().map((s) => s.id)).not.toContain(state.id);
    for (const pid of [state.forwarderPid, state.iperfPid, state.samba?.pid]) {
      expect(() => process.kill(pid ?? -1, 0)).toThrow();
    }
    expect(existsSync(state.samba?.sharePath ?? '/nonexistent')).toBe(false);
    expect(existsSync(state.samba?.root ?? '/nonexistent')).toBe(false);
  }, 60_000);
});
