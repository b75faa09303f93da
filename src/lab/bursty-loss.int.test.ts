// The WAN lab's bursty loss (issue 52), part of `npm test`: the forwarder
// loses packets in runs of the length asked for on average, the average loss
// still the one asked for, as a fading Wi-Fi or DSL hop loses them. Its own
// counters say so: the packets it lost at random, and the runs they came in.
// 20 000 datagrams at 2% in runs of 4 make about 100 runs; the bounds are
// four standard deviations of their means and more, and the forwarder's
// random numbers are seeded, so a run misses them only if the kernel's own
// packets shift the draws that far.

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DATACENTER_ADDRESS } from './lab-network.js';
import { changeLink, forwarderStats, inBranch, labDown, labUp } from './wan-lab.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun');
if (!canRunLab) console.warn('SKIPPED: the bursty-loss test needs Linux, root and /dev/net/tun.');

const DATAGRAMS = 20_000;
const LOSS = 0.02;
const BURST = 4;

interface Direction {
  readonly name: string;
  readonly packetsIn: number;
  readonly dropsLoss: number;
  readonly lossBursts: number;
}

describe.skipIf(!canRunLab)('bursty loss in the WAN lab', () => {
  let labId: string | undefined;
  afterAll(async () => {
    if (labId) await labDown(labId);
  });

  it('loses packets in runs of the length asked for, the average loss the one asked for', async () => {
    const state = await labUp({ bandwidthBitsPerSecond: 100e6, rttMs: 2, lossRate: LOSS, lossBurstPackets: BURST }, { samba: false, iperf: false });
    labId = state.id;
    // Paced, 50 at a time: sent all at once, they overran the TUN device's queue while a busy core kept the forwarder
    // off the CPU, and only 17 097 of 20 000 reached it (npm test on a fresh clone beside a busy loop, 2026-11-28).
    const send = `import socket, time\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nfor i in range(${DATAGRAMS}):\n    s.sendto(b'pipefill', ('${DATACENTER_ADDRESS}', 9))\n    if i % 50 == 49:\n        time.sleep(0.002)\n`;
    const sent = inBranch(state, 'python3', ['-c', send], { timeoutMs: 60_000 });
    expect(sent.status, sent.stderr).toBe(0);
    const stats = (await forwarderStats(state)) as { lossBurst: number; directions: Direction[] };
    const out = stats.directions.find((direction) => direction.name === 'a-to-b');
    expect(stats.lossBurst).toBe(BURST);
    expect(out?.packetsIn).toBeGreaterThan(DATAGRAMS * 0.9);
    const lostShare = (out?.dropsLoss ?? 0) / (out?.packetsIn ?? 1);
    const meanRun = (out?.dropsLoss ?? 0) / (out?.lossBursts ?? 0);
    console.log(
      `  bursty loss: ${out?.dropsLoss} of ${out?.packetsIn} lost (${(lostShare * 100).toFixed(2)}%), in ${out?.lossBursts} runs of ${meanRun.toFixed(2)} on average`,
    );
    expect(lostShare).toBeGreaterThan(LOSS * 0.5);
    expect(lostShare).toBeLessThan(LOSS * 1.75);
    expect(meanRun).toBeGreaterThan(BURST * 0.6);
    expect(meanRun).toBeLessThan(BURST * 1.5);

    // A fade is a stretch of time: packets 15 ms apart (a quiet connection's backed-off retransmissions) each meet
    // a hop that is clear again, whatever the run they follow. At 40% loss, 150 of them start about 25 runs; each
    // ends at once. (Only if the forwarder, held off the CPU, read two of them together would one run take two.)
    await changeLink(state, { lossRate: 0.4 });
    const spaced = `import socket, time\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nfor _ in range(150):\n    s.sendto(b'pipefill', ('${DATACENTER_ADDRESS}', 9))\n    time.sleep(0.015)\n`;
    const before = out as Direction;
    const sentSpaced = inBranch(state, 'python3', ['-c', spaced], { timeoutMs: 60_000 });
    expect(sentSpaced.status, sentSpaced.stderr).toBe(0);
    const after = ((await forwarderStats(state)) as { directions: Direction[] }).directions.find((direction) => direction.name === 'a-to-b');
    const [lost, runs] = [(after?.dropsLoss ?? 0) - before.dropsLoss, (after?.lossBursts ?? 0) - before.lossBursts];
    console.log(`  spaced 15 ms apart: ${lost} lost in ${runs} runs`);
    expect(runs).toBeGreaterThan(5);
    expect(lost / runs).toBeLessThan(1.5);
  }, 120_000);
});
