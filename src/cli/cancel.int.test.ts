// The built CLI stopped by SIGTERM (what `timeout`, systemd and fleet tools
// send) in the middle of a write test against smbd on loopback: it cancels as
// for a Ctrl-C, and neither the share nor this machine keeps anything.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopbackServers } from '../lab/loopback-servers.js';
import { startLoopbackServers } from '../lab/loopback-servers.js';

const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

describe('pipefill copy-test under SIGTERM', () => {
  let servers: LoopbackServers;
  let temp: string;
  beforeAll(async () => {
    servers = await startLoopbackServers();
    temp = mkdtempSync(join(tmpdir(), 'pipefill-cancel-test-'));
  });
  afterAll(async () => {
    await servers?.stop();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('cancels, removes its local source and its scratch folder, and says so', async () => {
    const { samba } = servers;
    // Its own temp directory, so the test sees the local source appear and go, and no other run's.
    const child = spawn(
      process.execPath,
      [
        cli,
        'copy-test',
        '--share',
        `//127.0.0.1:${samba.port}/share`,
        '--user',
        samba.credentials.user,
        '--password-env',
        'PIPEFILL_TEST_PASSWORD',
        '--profile',
        'xp-smb1',
        '--op',
        'write',
        '--workload',
        'file:1GiB',
        '--json',
      ],
      { env: { ...process.env, TMPDIR: temp, PIPEFILL_TEST_PASSWORD: samba.credentials.password }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // Signalled while it lays down its 1 GiB source (a second or more): polled every 20 ms for at most 15 s.
      const deadline = Date.now() + 15_000;
      while (readdirSync(temp).length === 0 && Date.now() < deadline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(readdirSync(temp)[0]).toMatch(new RegExp(`^pipefill-source-${child.pid}-`));
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000))]);
      expect(code).toBe(1);
      expect(stderr).toMatch(/Cancelling \(SIGTERM\)/);
      expect(stderr).toMatch(/cancelled/);
      expect(readdirSync(temp)).toEqual([]);
      expect(readdirSync(samba.sharePath).filter((name) => name.includes('pipefill'))).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 40_000);
});
