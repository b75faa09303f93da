// The libiperf binding against a real iperf3 server on loopback: a result,
// a clean stdout, cancel, errors, and the fallback when it cannot load.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../lab/samba.js';
import { iperf3Bandwidth } from './bandwidth.js';
import { ADDON_PATH, loadNativeIperf } from './iperf3-native.js';

describe('the libiperf binding', () => {
  let server: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = spawn('iperf3', ['-s', '-B', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 500));
  });
  afterAll(() => {
    server?.kill();
  });

  it('is built by the test set-up and loads', () => {
    const native = loadNativeIperf();
    expect(native.available ? 'loaded' : native.reason).toBe('loaded');
  });

  it('runs a download test off the main thread and returns libiperf JSON', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const result = await iperf3Bandwidth({ host: '127.0.0.1', port, seconds: 1 });
    clearInterval(ticker);
    expect(result.via).toBe('libiperf');
    expect(result.method).toBe('iperf3');
    expect(result.direction).toBe('download');
    expect(result.mbps).toBeGreaterThan(100);
    expect(result.seconds).toBeGreaterThan(0.9);
    // The event loop kept turning while the test ran (20 ticks a second).
    expect(ticks).toBeGreaterThan(10);
  }, 20_000);

  it('keeps stdout clean: libiperf would print its JSON there', () => {
    const script = `import { iperf3Bandwidth } from ${JSON.stringify(join(import.meta.dirname, 'bandwidth.ts'))};
      const r = await iperf3Bandwidth({ host: '127.0.0.1', port: ${port}, seconds: 1, reverse: false });
      process.stderr.write(r.via + ' ' + Math.round(r.mbps));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toMatch(/^libiperf \d+/);
    expect(child.stdout).toBe('');
  }, 30_000);

  it('stops within 2 s when cancelled', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 1_000);
    await expect(iperf3Bandwidth({ host: '127.0.0.1', port, seconds: 30, signal: controller.signal })).rejects.toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(3_000);
    // The server is free again for the next test. iperf3 -s closes its listening socket while it
    // tears down the cancelled test and opens it again after: a connect in between is refused (a
    // fresh clone beside a busy loop hit that once), or says it is still busy with the old test, so the next test may knock a few times.
    let again: Awaited<ReturnType<typeof iperf3Bandwidth>> | undefined;
    for (let attempt = 0; attempt < 10 && !again; attempt++) {
      again = await iperf3Bandwidth({ host: '127.0.0.1', port, seconds: 1 }).catch(async (error: unknown) => {
        // Refused while the listener is closed, or "busy" while the server still tears the cancelled test down (a fresh clone hit each once).
        if (!/unable to connect to server|server is busy running a test/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return undefined;
      });
    }
    expect(again?.mbps).toBeGreaterThan(100);
  }, 30_000);

  it('reports 0.1 s intervals for a steady estimate, through the binding and the executable alike, and refuses a bad interval', async () => {
    const native = loadNativeIperf();
    if (!native.available) throw new Error(native.reason);
    const run = await native.run({
      host: '127.0.0.1',
      port,
      seconds: 1,
      omitSeconds: 0,
      reverse: true,
      streams: 1,
      connectTimeoutMs: 5_000,
      intervalSeconds: 0.1,
    });
    const intervals = (JSON.parse(run.json ?? '{}') as { intervals?: { sum: { seconds: number } }[] }).intervals ?? [];
    expect(intervals.length).toBeGreaterThanOrEqual(9);
    expect(intervals[0]?.sum.seconds).toBeCloseTo(0.1, 1);
    await expect(
      native.run({ host: '127.0.0.1', port, seconds: 1, omitSeconds: 0, reverse: true, streams: 1, connectTimeoutMs: 5_000, intervalSeconds: 0.01 }),
    ).rejects.toThrow(/intervalSeconds/);
    for (const implementation of [native, loadNativeIperf(`${ADDON_PATH}.missing`)]) {
      const result = await iperf3Bandwidth({ host: '127.0.0.1', port, seconds: 2, estimate: 'steady' }, implementation);
      expect(result.estimate).toBe('steady');
      expect(result.mbps).toBeGreaterThan(100);
    }
  }, 30_000);

  it('says clearly when nothing listens', async () => {
    const closed = await freePort();
    await expect(iperf3Bandwidth({ host: '127.0.0.1', port: closed, seconds: 1 })).rejects.toThrow(/unable to connect to server/);
  }, 20_000);

  it('falls back to the executable, and says why, when the binding cannot load', async () => {
    const missing = loadNativeIperf(`${ADDON_PATH}.missing`);
    expect(missing.available).toBe(false);
    const result = await iperf3Bandwidth({ host: '127.0.0.1', port, seconds: 1 }, missing);
    expect(result.via).toBe('iperf3-executable');
    expect(result.fallbackReason).toMatch(/not built/);
    expect(result.mbps).toBeGreaterThan(100);
  }, 20_000);
});
