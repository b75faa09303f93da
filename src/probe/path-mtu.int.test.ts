// A path MTU black hole (issue 52), in `npm test`: three namespaces of the
// test's own, a 1400-byte hop between two routers, ICMP dropped on the
// way back (src/lab/mtu-hole.ts). The assessment must end within its budget
// naming the black hole, the MTU within 8 bytes and the fix, not time out;
// and the share keeps nothing of the run.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MtuHole } from '../lab/mtu-hole.js';
import { canMakeMtuHole, mtuHoleUp } from '../lab/mtu-hole.js';
import { SambaServer, sambaAvailable } from '../lab/samba.js';

const cliEntry = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const HOP_MTU = 1400;
const BUDGET_SECONDS = 60;

const runnable = canMakeMtuHole() && sambaAvailable();
if (!runnable) console.warn('SKIPPED: the path MTU test needs Linux, root, iproute2 (ip) and Samba.');

describe.skipIf(!runnable)('a path MTU black hole: a 1400-byte hop, ICMP dropped', () => {
  let hole: MtuHole | undefined;
  let server: SambaServer | undefined;
  beforeAll(async () => {
    hole = mtuHoleUp(HOP_MTU);
    server = await SambaServer.start({ address: hole.serverAddress, commandPrefix: ['ip', 'netns', 'exec', hole.server], bindAll: true });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    hole?.down();
  });

  it('the assessment ends within its budget naming the black hole, the MTU within 8 bytes and the fix; nothing stays on the share', () => {
    const started = Date.now();
    const run = spawnSync(
      'ip',
      [
        'netns',
        'exec',
        hole?.client ?? '',
        process.execPath,
        cliEntry,
        'assess',
        '--share',
        `//${hole?.serverAddress ?? ''}/share`,
        '--user',
        'pipefill',
        '--password-env',
        'PIPEFILL_TEST_PASSWORD',
        '--no-history',
        '--yes',
      ],
      { encoding: 'utf8', timeout: 4 * BUDGET_SECONDS * 1000, env: { ...process.env, PIPEFILL_TEST_PASSWORD: server?.password ?? '', NO_COLOR: '1' } },
    );
    const seconds = (Date.now() - started) / 1000;
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.status, said).not.toBe(0);
    expect(seconds, said).toBeLessThan(BUDGET_SECONDS);
    expect(said).toMatch(/Path MTU black hole/);
    expect(said).not.toMatch(/did not answer|timed out/i);
    const found = Number(/packets larger than (\d+) bytes vanish/.exec(said)?.[1]);
    expect(found).toBeLessThanOrEqual(HOP_MTU);
    expect(found).toBeGreaterThan(HOP_MTU - 8);
    expect(said).toMatch(new RegExp(`mtu ${found}`));
    expect(said).toMatch(/clamp-mss-to-pmtu/);
    expect(server?.shareContents()).toEqual([]);
  }, 300_000);
});
