// Samba set up the way NAS boxes set it up (issue 37): macOS support and
// streams (vfs fruit, streams_xattr), a recycle bin, unknown users mapped to
// guest (Debian's stock smb.conf), 64 KiB reads and writes, leases off; and
// the settings whose refusals once read as something else (hidden names
// vetoed, one signing algorithm, one cipher). Each copy ends byte-exact or
// in an error that names the real cause.

import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assess } from '../test-support/assess-as-sent.js';
import type { SambaOptions } from '../lab/samba.js';
import { SambaServer } from '../lab/samba.js';
import type { ClientProfileId } from '../model/client-profiles.js';
import { formatSharePath } from '../model/share-path.js';
import { ticketSummary } from '../presentation/summary.js';
import { runCopyTest } from '../copy/copy-test.js';
import { crashRun } from '../test-support/dead-run.js';
import { smbFailure } from '../test-support/smb-failure.js';
import type { SecurityPolicy } from './session.js';

function withServer(options: SambaOptions): () => SambaServer {
  let server: SambaServer | undefined;
  beforeAll(async () => {
    server = await SambaServer.start(options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('smbd did not start');
    return server;
  };
}

/** Every file under `dir` with its size, relative to `root`. */
function filesWithSizes(root: string, dir = root, depth = 0): [string, number][] {
  if (depth > 16) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? filesWithSizes(root, path, depth + 1) : [[path.slice(root.length + 1), stat.size] as [string, number]];
  });
}

describe('a NAS-style Samba share', () => {
  const server = withServer({
    globals: { 'map to guest': 'Bad User', 'smb2 max read': '65536', 'smb2 max write': '65536', 'smb2 max trans': '65536', 'smb2 leases': 'no' },
    shareOptions: {
      'vfs objects': 'fruit streams_xattr recycle',
      'fruit:metadata': 'stream',
      'recycle:repository': '.recycle',
      'recycle:keeptree': 'yes',
      'guest ok': 'yes',
    },
  });
  const copy = (profile: ClientProfileId, op: 'write' | 'read', workload: string, extra: { user?: string; security?: SecurityPolicy; verify?: boolean } = {}) =>
    runCopyTest({
      share: server().share,
      credentials: { ...server().credentials, ...(extra.user ? { user: extra.user } : {}), ...(extra.security ? { security: extra.security } : {}) },
      profile,
      op,
      workload,
      ...(extra.verify === undefined ? {} : { verify: extra.verify }),
    });

  it.each([['win10-smb3'], ['win7-smb2'], ['linux-cifs']] as const)(
    '%s copies byte-exact in 64 KiB requests; the recycle bin keeps only emptied files, and the result says so',
    async (profile) => {
      for (const workload of ['file:2MiB', 'tr3869-dirset:0.005'])
        for (const op of ['write', 'read'] as const) {
          const result = await copy(profile, op, workload);
          expect(result.verified).toBe(true);
          expect(result.negotiated.maxWriteSize).toBe(65536);
          expect(result.keptByRecycleBin).toBe('.recycle');
        }
      const kept = filesWithSizes(server().sharePath);
      expect(kept.length).toBeGreaterThan(0);
      for (const [path, bytes] of kept) {
        expect(path).toMatch(/^\.recycle\/\.pipefill-/);
        expect(bytes, path).toBe(0);
      }
    },
    120_000,
  );

  it("a quick assessment's report names the recycle bin that kept its emptied files", async () => {
    const report = await assess({ share: formatSharePath(server().share), ...server().credentials, quick: true, client: 'win10-smb3' });
    expect(report.keptByRecycleBin).toBe('.recycle');
    expect(ticketSummary(report)).toContain('recycle bin .recycle kept its files, emptied');
    for (const [path, bytes] of filesWithSizes(server().sharePath)) {
      expect(path).toMatch(/^\.recycle\//);
      expect(bytes, path).toBe(0);
    }
  }, 180_000);

  it('an unverified write still checks that the server holds every byte', async () => {
    const result = await copy('win10-smb3', 'write', 'tr3869-dirset:0.005', { verify: false });
    expect(result.verified).toBe(false);
    expect(result.bytes).toBeGreaterThan(0);
  }, 60_000);

  it('a mistyped user becomes a guest: Windows 10 and 11 refuse it, Pipefill says it was one, and a guest cannot encrypt', async () => {
    const win10 = await smbFailure(copy('win10-smb3', 'write', 'file:1MiB', { user: 'nosuchuser' }));
    expect(win10.kind).toBe('auth-failed');
    expect(win10.message).toMatch(/as a guest.*Windows 10 and 11 refuse guest logons/);
    // Windows 11 24H2's readiness, said as such: it will refuse this share as set up, and what the server should change (issue 50).
    const win11 = await smbFailure(copy('win11-24h2', 'write', 'file:1MiB', { user: 'nosuchuser' }));
    expect(win11.message).toMatch(/guest session cannot sign: Windows 11 24H2 and Windows Server 2025.* will refuse this share as it is set up\.$/);
    expect(win11.hint).toMatch(/map to guest = never/);
    const guest = await copy('pipefill-max', 'write', 'file:1MiB', { user: 'nosuchuser' });
    expect(guest.negotiated.login).toMatchObject({ guest: true });
    const sealed = await smbFailure(copy('pipefill-max', 'write', 'file:1MiB', { user: 'nosuchuser', security: { encryption: 'required' } }));
    expect(sealed.message).toMatch(/guest session has no key to encrypt with/);
  }, 60_000);

  it("a guest share assessed with Windows 7, which takes guests: the verdict, the JSON and the ticket say that 24H2 and Windows 10 will refuse it, with the server's fix (issue 50)", async () => {
    const report = await assess({ share: formatSharePath(server().share), ...server().credentials, user: 'nosuchuser', quick: true, client: 'win7-smb2' });
    expect(report.verdict?.readiness?.map((entry) => [entry.profile, entry.status])).toEqual([
      ['win11-24h2', 'refuses'],
      ['win10-smb3', 'refuses'],
    ]);
    const line = /Windows 11 24H2 and Windows Server 2025 will refuse this share: it logs people on as guests, and a guest session cannot sign/;
    expect(report.verdict?.lines.some((text) => line.test(text))).toBe(true);
    expect(JSON.stringify(report)).toMatch(line);
    expect(ticketSummary(report)).toMatch(/^Readiness: Windows 11 24H2 .*map to guest = never/m);
  }, 180_000);
});

describe('server signing = disabled (issue 50: the readiness of a server set up not to sign)', () => {
  const server = withServer({ globals: { 'server signing': 'disabled' } });
  it("Windows 11 24H2's copies still sign (SMB 2 and 3 sign whenever the client requires it), so the readiness never says it refuses the share", async () => {
    const report = await assess({ share: formatSharePath(server().share), ...server().credentials, quick: true });
    const signed = report.copyTests.filter((copy) => copy.profile === 'win11-24h2');
    expect(signed.length).toBeGreaterThan(0);
    for (const copy of signed) expect(copy.negotiated.signing).not.toBeNull();
    const [newest] = report.verdict?.readiness ?? [];
    expect(newest?.profile).toBe('win11-24h2');
    // Reached by its address, the logon was NTLM: at risk where NTLM is blocked, and nothing about signing.
    expect(newest?.status).toBe('at-risk');
    expect(newest?.sentence).not.toMatch(/sign/);
  }, 180_000);
});

describe('refusals that once read as something else', () => {
  describe('hidden names vetoed (veto files = /.*/)', () => {
    const server = withServer({ shareOptions: { 'veto files': '/.*/' } });
    it('works in a visible scratch folder, with a visible lease and marker, and leaves nothing (issue 50)', async () => {
      // Before, the run stopped: the dotted scratch folder was refused, and so were its lease and marker.
      let seen: string[] = [];
      const result = await runCopyTest(
        { share: server().share, credentials: server().credentials, profile: 'win10-smb3', op: 'write', workload: 'file:1MiB' },
        { onProgress: () => (seen = seen.length > 0 ? seen : server().shareContents()) },
      );
      expect(result.verified).toBe(true);
      expect(seen[0]).toMatch(/^pipefill-scratch-\d{8}T\d{6}-[0-9a-f]{8}$/);
      expect(seen).toEqual(expect.arrayContaining([`${seen[0]}/pipefill-lease`, `${seen[0]}/pipefill-run`]));
      expect(server().shareContents()).toEqual([]);
    }, 30_000);

    it("sweeps a dead run's visible folder by its marker, and never one without it", async () => {
      const { SmbSession } = await import('./session.js');
      const { ScratchFolder, removeStaleScratch } = await import('../copy/scratch.js');
      const session = await SmbSession.open(server().share, server().credentials);
      try {
        // A run that died: its folder made, its session gone (so its lease is no longer held).
        const dead = await SmbSession.open(server().share, server().credentials);
        const left = await ScratchFolder.create(dead);
        await crashRun(dead, server().sharePath, left.name);
        // Someone else's folder of the same look, with no marker: never touched.
        const lookalike = left.name.replace(/[0-9a-f]{8}$/, 'deadbeef');
        mkdirSync(join(server().sharePath, lookalike));
        // Judged by age on the server's clock (two days on), not by its lease.
        await removeStaleScratch(session, { orphansByLease: false, serverNow: left.serverMadeAt + 2n * 864_000_000_000n });
        expect(server().shareContents()).toEqual([lookalike]);
      } finally {
        await session.end();
      }
    }, 30_000);
  });

  describe('SMB 3.1.1 signing with HMAC-SHA256 only', () => {
    const server = withServer({ globals: { 'server smb3 signing algorithms': 'hmac-sha-256', 'server signing': 'mandatory' } });
    it('names the signing algorithms, not the dialects', async () => {
      const error = await smbFailure(
        runCopyTest({ share: server().share, credentials: server().credentials, profile: 'win10-smb3', op: 'write', workload: 'file:1MiB' }),
      );
      expect(error.kind).toBe('negotiation');
      expect(error.message).toMatch(/speaks SMB 3\.1\.1, which this client offers: it allows none of the signing algorithms .*AES-128-GMAC, AES-128-CMAC/);
    }, 30_000);
  });

  describe('encryption required with AES-256-GCM only', () => {
    const server = withServer({ globals: { 'server smb3 encryption algorithms': 'AES-256-GCM', 'server smb encrypt': 'required' } });
    it('Windows 10/11 seal with it; a client without it is told what it offers, not to use AES-256 it lacks', async () => {
      const sealed = await runCopyTest({ share: server().share, credentials: server().credentials, profile: 'win10-smb3', op: 'write', workload: 'file:1MiB' });
      expect(sealed.negotiated.encryption).toBe('AES-256-GCM');
      const error = await smbFailure(
        runCopyTest({ share: server().share, credentials: server().credentials, profile: 'linux-cifs', op: 'write', workload: 'file:1MiB' }),
      );
      expect(error.message).toMatch(/offered: AES-128-GCM, AES-128-CCM/);
      expect(error.hint).not.toMatch(/AES-256/);
    }, 30_000);
  });
});
