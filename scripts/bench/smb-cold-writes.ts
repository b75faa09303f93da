// The CLI's write as a person runs it, against smbclient put, with nothing
// warmed (issue 37): `pipefill copy-test --op write --no-verify` lays down
// its own fresh 256 MiB source in the temp directory and removes what it
// wrote; smbclient put gets a source laid down the same way (one reused
// buffer, flushed to disk, in the same directory) and removes its file. The
// rest of bench:smb warms the allocator before each measurement (see
// warmAllocator); a person's run does not, and neither side is warmed here.
// Plain, and against the servers that require signing and encryption.

import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withAuthenticationFile } from '../../src/lab/smbclient-auth.js';
import type { SambaServer } from '../../src/lab/samba.js';
import { ENGINE_NODE_FLAGS } from '../../src/platform/engine-flags.js';
import { PatternSource } from '../../src/copy/pattern.js';

export type Protection = 'plain' | 'sign' | 'encrypt';
export const PROTECTIONS: readonly Protection[] = ['plain', 'sign', 'encrypt'];

const MB = 1e6;
const LAY_DOWN_PIECE_BYTES = 16 * 2 ** 20;

/** A fresh local file of the test pattern, written as the CLI writes its source (one reused buffer, then fsync). */
function layDown(path: string, bytes: number): void {
  const pattern = new PatternSource('bench-cold', 'source.bin');
  const piece = Buffer.allocUnsafeSlow(LAY_DOWN_PIECE_BYTES);
  const fd = openSync(path, 'w');
  try {
    for (let offset = 0; offset < bytes; offset += piece.length) {
      const part = piece.subarray(0, Math.min(piece.length, bytes - offset));
      pattern.fill(part, offset);
      writeSync(fd, part);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The built CLI run as a person types it (the engine's Node flags, the share's login by --password-env), its --json output parsed. */
export function pipefillJson<T>(root: string, server: SambaServer, command: string, args: readonly string[]): T {
  const run = spawnSync(
    process.execPath,
    [
      ...ENGINE_NODE_FLAGS,
      join(root, 'dist/cli/bin.js'),
      command,
      '--share',
      `//${server.share.host}:${server.share.port}/${server.share.share}`,
      '--user',
      server.credentials.user,
      '--password-env',
      'PIPEFILL_BENCH_PASSWORD',
      ...args,
      '--json',
    ],
    { env: { ...process.env, PIPEFILL_BENCH_PASSWORD: server.credentials.password }, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`pipefill ${command} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** One `pipefill copy-test --no-verify` of `bytes` with Pipefill's best pipeline and no probe first, as a person types it: MB/s. */
export function cliCopyTest(root: string, server: SambaServer, op: 'read' | 'write', bytes: number): number {
  const args = ['--profile', 'pipefill-max', '--op', op, '--workload', `file:${bytes / 2 ** 20}MiB`, '--no-verify'];
  const result = pipefillJson<{ seconds: number; bytes: number }>(root, server, 'copy-test', args);
  return result.bytes / result.seconds / MB;
}

/**
 * One smbclient command against `server` (the password in a 0600 file, not on
 * a command line other users can read): MB/s as smbclient reports it, its
 * 'KiloBytes/sec' (get) and 'kb/s' (put) both KiB/s.
 */
export function smbclientRate(server: SambaServer, protection: Protection, command: string): number {
  const run = withAuthenticationFile(server.credentials, (auth) =>
    spawnSync(
      'smbclient',
      [
        `//${server.share.host}/${server.share.share}`,
        '-p',
        String(server.share.port),
        '-A',
        auth,
        ...(protection === 'plain' ? [] : [`--client-protection=${protection}`]),
        '-c',
        command,
      ],
      { encoding: 'utf8' },
    ),
  );
  const match = /\(average ([\d.]+) (?:KiloBytes\/sec|kb\/s)\)/.exec(run.stdout + run.stderr);
  if (run.status !== 0 || !match?.[1]) throw new Error(`smbclient failed: ${run.stdout}${run.stderr}`);
  return (Number(match[1]) * 1024) / MB;
}

/** smbclient put of a freshly laid-down source, then its file removed on the share and here. */
function smbclientPut(server: SambaServer, protection: Protection, bytes: number): number {
  const folder = mkdtempSync(join(tmpdir(), 'pipefill-bench-put-'));
  try {
    const source = join(folder, 'source.bin');
    layDown(source, bytes);
    return smbclientRate(server, protection, `put ${source} smbclient-cold.bin; del smbclient-cold.bin`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

export interface ColdWrites {
  readonly cli: Record<Protection, number[]>;
  readonly put: Record<Protection, number[]>;
}

/** `rounds` alternating rounds of both, for each protection (the order flips every round). */
export function coldCliWrites(root: string, servers: Record<Protection, SambaServer>, bytes: number, rounds: number): ColdWrites {
  const results: ColdWrites = { cli: { plain: [], sign: [], encrypt: [] }, put: { plain: [], sign: [], encrypt: [] } };
  for (let round = 0; round < rounds; round++) {
    for (const protection of PROTECTIONS) {
      const server = servers[protection];
      const pair = [
        () => results.cli[protection].push(cliCopyTest(root, server, 'write', bytes)),
        () => results.put[protection].push(smbclientPut(server, protection, bytes)),
      ];
      for (const measure of round % 2 === 0 ? pair : pair.reverse()) measure();
    }
  }
  return results;
}
