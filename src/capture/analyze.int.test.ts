// `pipefill analyze` on captures tcpdump made of real copies (issue 53):
// Samba's smbclient putting and getting a file, and Pipefill's own Windows 10
// client writing and reading one, plain and sealed, against smbd on loopback
// set to `smb2 max credits = 16`. The analysis must find each copy with the
// bytes that moved, the requests as each client issued them, and the credits
// the server held the clients to where encryption does not hide them.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptureAnalysisSchema } from '../contract/capture.js';
import type { CaptureAnalysis } from '../contract/capture.js';
import { sambaAvailable, SambaServer } from '../lab/samba.js';
import { startCapture, stopCapture } from '../test-support/tcpdump-capture.js';

const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const tcpdumpAvailable = spawnSync('tcpdump', ['--version']).status === 0;
const FILE_BYTES = 6 * 2 ** 20;

function analyze(path: string): CaptureAnalysis {
  const run = spawnSync(process.execPath, [cli, 'analyze', path, '--json'], { encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  return CaptureAnalysisSchema.parse(JSON.parse(run.stdout));
}

describe.skipIf(!sambaAvailable() || !tcpdumpAvailable)('pipefill analyze, on captures of real copies', () => {
  let server: SambaServer;
  let temp: string;
  beforeAll(async () => {
    server = await SambaServer.start({ maxCredits: 16 });
    temp = mkdtempSync(join(tmpdir(), 'pipefill-analyze-test-'));
    writeFileSync(join(temp, 'source.bin'), Buffer.alloc(FILE_BYTES, 0x61));
  });
  afterAll(async () => {
    await server?.stop();
    if (temp && !process.env.PIPEFILL_KEEP_CAPTURES) rmSync(temp, { recursive: true, force: true });
  });

  it("finds smbclient's put and get: the bytes, its requests and the 16 credits the server held it to", async () => {
    const capture = join(temp, 'smbclient.pcap');
    const tcpdump = await startCapture({ device: 'lo', port: server.port }, capture);
    const { user, password } = server.credentials;
    const copied = spawnSync(
      'smbclient',
      [
        `//127.0.0.1/share`,
        '-p',
        String(server.port),
        '-U',
        `${user}%${password}`,
        '-m',
        'SMB3',
        '-c',
        `put ${join(temp, 'source.bin')} smbclient.bin; get smbclient.bin ${join(temp, 'back.bin')}; del smbclient.bin`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    await stopCapture(tcpdump, capture);
    expect(copied.status, copied.stderr + copied.stdout).toBe(0);
    const analysis = analyze(capture);
    expect(analysis.connections).toHaveLength(1);
    const [connection] = analysis.connections;
    expect(connection?.dialect).toBe('3.1.1');
    // As Pipefill's own copies read it (src/model/credits-seen.ts): smbd lets a connection hold up to twice its
    // setting for a moment, and the window its copies waited at is the setting.
    expect(connection?.credits.seen).toBeGreaterThanOrEqual(16);
    expect(connection?.credits.seen).toBeLessThanOrEqual(32);
    const copies = connection?.copies ?? [];
    expect(copies.map((copy) => [copy.op, copy.bytes])).toEqual([
      ['write', FILE_BYTES],
      ['read', FILE_BYTES],
    ]);
    for (const copy of copies) {
      // Each request within what 16 credits buy (16 x 64 KiB), and the file in as many as that size takes.
      expect(copy.largestRequestBytes).toBeLessThanOrEqual(16 * 65_536);
      expect(copy.requests).toBe(Math.ceil(FILE_BYTES / copy.requestBytes));
      expect(copy.maxInFlight * Math.ceil(copy.requestBytes / 65_536)).toBeLessThanOrEqual(16);
      expect(copy.unanswered).toBe(0);
      expect(copy.model?.expectedSeconds).toBeGreaterThan(0);
    }
    expect(connection?.tcp.client.unframedBytes).toBe(0);
    expect(connection?.tcp.server.unframedBytes).toBe(0);
    expect(server.shareContents()).toEqual([]);
  }, 120_000);

  /** Pipefill's own Windows 10 client writing and reading 8 MiB, captured; `extra` options to copy-test (`--encrypt`). */
  async function capturePipefillCopies(name: string, ...extra: string[]): Promise<CaptureAnalysis> {
    const capture = join(temp, name);
    const tcpdump = await startCapture({ device: 'lo', port: server.port }, capture);
    const { user, password } = server.credentials;
    for (const op of ['write', 'read']) {
      const run = spawnSync(
        process.execPath,
        [
          cli,
          'copy-test',
          '--share',
          `//127.0.0.1:${server.port}/share`,
          '--user',
          user,
          '--password-env',
          'PIPEFILL_TEST_PASSWORD',
          '--profile',
          'win10-smb3',
          '--op',
          op,
          '--workload',
          'file:8MiB',
          '--json',
          ...extra,
        ],
        { encoding: 'utf8', timeout: 120_000, env: { ...process.env, PIPEFILL_TEST_PASSWORD: password } },
      );
      expect(run.status, run.stderr).toBe(0);
    }
    await stopCapture(tcpdump, capture);
    return analyze(capture);
  }

  it("finds Pipefill's own Windows 10 copies, each whole, in requests of its profile's size or the credits' less", async () => {
    const analysis = await capturePipefillCopies('pipefill.pcap');
    const copies = analysis.connections.flatMap((connection) => connection.copies.filter((copy) => copy.bytes === 8 * 2 ** 20));
    // The read test writes its file first, with the same client: both directions are there, each file whole.
    expect(new Set(copies.map((copy) => copy.op))).toEqual(new Set(['read', 'write']));
    for (const copy of copies) {
      // Windows 10 asks for at most 1 MiB (its profile's largest request), fewer where 16 credits do not cover it.
      expect(copy.largestRequestBytes).toBeLessThanOrEqual(2 ** 20);
      expect(copy.requests).toBe(Math.ceil((8 * 2 ** 20) / copy.requestBytes));
      expect(copy.unanswered).toBe(0);
    }
    for (const connection of analysis.connections) {
      expect(connection.tcp.client.missedBytes + connection.tcp.server.missedBytes).toBe(0);
      expect(connection.credits.seen).toBeLessThanOrEqual(64);
    }
  }, 180_000);

  it('finds them sealed too, from the sizes of the encrypted messages alone: each copy whole, its requests as issued', async () => {
    const analysis = await capturePipefillCopies('pipefill-sealed.pcap', '--encrypt');
    const copies = analysis.connections.flatMap((connection) => connection.copies.filter((copy) => copy.bytes === 8 * 2 ** 20));
    expect(new Set(copies.map((copy) => copy.op))).toEqual(new Set(['read', 'write']));
    for (const copy of copies) {
      expect(copy.sealed).toBe(true);
      // The same requests the unsealed copies were seen to issue: 1 MiB at most, or what 16 credits buy.
      expect(copy.largestRequestBytes).toBeLessThanOrEqual(2 ** 20);
      expect(copy.requests).toBe(Math.ceil((8 * 2 ** 20) / copy.requestBytes));
      // How many were out at once is the server's to decide, not a bound: an interim answer grants credits back while
      // its write is still out (MS-SMB2 3.3.4.2), and a busy smbd sends more of them (2-7 writes of 512 KiB seen out).
      expect(copy.maxInFlight).toBeGreaterThanOrEqual(1);
      expect(copy.meanInFlight).toBeLessThanOrEqual(copy.maxInFlight);
      expect(copy.model?.expectedSeconds).toBeGreaterThan(0);
    }
    for (const connection of analysis.connections.filter((each) => each.messages.sealed > 0)) {
      // What a sealed message spends and grants is hidden: no credit count is made up.
      expect(connection.credits.windowMax).toBeUndefined();
      expect(connection.credits.seen).toBeUndefined();
    }
    expect(analysis.notes.join(' ')).toMatch(/encrypted: \d+ messages show only their size, so its copies are read from those sizes/);
  }, 180_000);
});
