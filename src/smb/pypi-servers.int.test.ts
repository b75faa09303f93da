// Pipefill against SMB servers nobody on the project wrote (issue 37), each
// for what it supports: impacket's smbserver (NTLM, SMB 2.x and 3.0, no
// share modes) and quicksand-smb (SMB 2.x, every login a guest, no keys).
// Copies end byte-exact, an assessment runs through, nothing is left on
// the share, and what a server cannot do ends in an error that names it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assess } from '../test-support/assess-as-sent.js';
import { PypiServer } from '../lab/pypi-servers.js';
import { formatSharePath } from '../model/share-path.js';
import { runCopyTest } from '../copy/copy-test.js';
import { SmbError } from './errors.js';
import { filetimeSpan } from './messages.js';
import { removeStaleScratch, ScratchFolder, STALE_AFTER_MS } from '../copy/scratch.js';
import { SmbSession } from './session.js';

describe("impacket's smbserver", () => {
  let server: PypiServer;
  beforeAll(async () => {
    server = await PypiServer.impacket();
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it.each([['win10-smb3'], ['win7-smb2'], ['xp-smb1']] as const)(
    '%s copies a file and a directory set byte-exact, nothing left',
    async (profile) => {
      for (const workload of ['file:4MiB', 'tr3869-dirset:0.005'])
        for (const op of ['write', 'read'] as const) {
          const result = await runCopyTest({ share: server.share, credentials: server.credentials, profile, op, workload });
          expect(result.verified).toBe(true);
          expect(result.negotiated.login).toMatchObject({ mechanism: 'ntlmv2' });
        }
      expect(server.shareContents()).toEqual([]);
    },
    120_000,
  );

  it("holds no share modes: a run's lease cannot show it alive, so two live runs leave each other's folders (item 7)", async () => {
    const [first, second] = [await SmbSession.open(server.share, server.credentials), await SmbSession.open(server.share, server.credentials)];
    try {
      const mine = await ScratchFolder.createChecked(first);
      expect(mine.enforcesShareModes).toBe(false);
      const theirs = await ScratchFolder.createChecked(second);
      // The second run's sweep, while the first still runs: by age alone here, so the first's folder stays.
      await theirs.sweepOthersAside(() => SmbSession.open(server.share, server.credentials));
      expect(server.shareContents()).toEqual(expect.arrayContaining([mine.name, theirs.name]));
      await theirs.remove();
      await mine.remove();
      expect(server.shareContents()).toEqual([]);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  }, 30_000);

  it("sweeps a dead run's folder a day old by the server's clock: its marker proves it here too (issue 47)", async () => {
    const dead = await SmbSession.open(server.share, server.credentials);
    const left = await ScratchFolder.createChecked(dead);
    await dead.end();
    const sweeper = await SmbSession.open(server.share, server.credentials);
    try {
      // A day and a minute later by the server's clock: the folder's own times are what the sweep goes by.
      const later = { ...left.sweepRules(false), serverNow: left.serverMadeAt + filetimeSpan(STALE_AFTER_MS + 60_000) };
      expect(await removeStaleScratch(sweeper, left.sweepRules(false))).toEqual([]);
      expect(await removeStaleScratch(sweeper, later)).toEqual([left.name]);
      expect(server.shareContents()).toEqual([]);
    } finally {
      await sweeper.end();
    }
  }, 30_000);

  it('runs a quick assessment through, its own folder kept while it runs and removed after', async () => {
    const report = await assess({ share: formatSharePath(server.share), ...server.credentials, quick: true, client: 'win7-smb2' });
    expect(report.copyTests.length).toBeGreaterThan(0);
    expect(report.probes.session?.login?.mechanism).toBe('ntlmv2');
    expect(server.shareContents()).toEqual([]);
  }, 180_000);
});

describe('quicksand-smb', () => {
  let server: PypiServer;
  beforeAll(async () => {
    server = await PypiServer.quicksand();
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it.each([['win7-smb2'], ['vista-smb2']] as const)(
    '%s copies byte-exact as a guest, and says it was one',
    async (profile) => {
      for (const op of ['write', 'read'] as const) {
        const result = await runCopyTest({ share: server.share, credentials: server.credentials, profile, op, workload: 'file:4MiB' });
        expect(result.verified).toBe(true);
        expect(result.negotiated.login).toMatchObject({ mechanism: 'ntlmv2', guest: true });
      }
      expect(server.shareContents()).toEqual([]);
    },
    60_000,
  );

  it('an SMB 3.1.1 client: the server chooses 3.1.1 without its preauth integrity context, and the error says so', async () => {
    const error = await runCopyTest({ share: server.share, credentials: server.credentials, profile: 'win10-smb3', op: 'write', workload: 'file:1MiB' }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(SmbError);
    expect((error as SmbError).message).toMatch(/3\.1\.1 without SHA-512 preauth integrity/);
    expect((error as SmbError).hint).toMatch(/SMB 2 profile/);
  }, 30_000);
});
