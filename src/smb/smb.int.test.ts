// The SMB engine against a real smbd (Debian's samba), started by the test on
// a free loopback port with its own smb.conf and state.

import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, SambaServer } from '../lab/samba.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { predict } from '../model/predict.js';
import { runCopyTest } from '../copy/copy-test.js';
import { CreditWindow } from './credits.js';
import { senderAddon } from './frame-writer.js';
import { SmbError } from './errors.js';
import { removeStaleScratch, ScratchFolder } from '../copy/scratch.js';
import { SmbSession } from './session.js';
import { crashRun } from '../test-support/dead-run.js';
import { smbFailure } from '../test-support/smb-failure.js';

const PROFILES: ClientProfileId[] = ['xp-smb1', 'win7-smb1', 'vista-smb2', 'win7-smb2', 'win10-smb3', 'pipefill-max'];
const OPS: Op[] = ['read', 'write'];

async function expectSmbError(run: Promise<unknown>, kind: string, withinMs: number): Promise<SmbError> {
  const started = Date.now();
  const error = await run.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(Date.now() - started).toBeLessThan(withinMs);
  expect(error).toBeInstanceOf(SmbError);
  const smbError = error as SmbError;
  expect(smbError.kind).toBe(kind);
  expect(smbError.message.length).toBeGreaterThan(10);
  expect(smbError.hint.length).toBeGreaterThan(10);
  return smbError;
}

describe('copy tests against smbd', () => {
  let server: SambaServer;
  beforeAll(async () => {
    server = await SambaServer.start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  describe.each(PROFILES)('%s', (profile) => {
    it.each(OPS)('%s of a file is byte-exact and leaves nothing behind', async (op) => {
      const result = await runCopyTest({ share: server.share, credentials: server.credentials, profile, op, workload: 'file:3MiB' });
      expect(result.verified).toBe(true);
      expect(result.bytes).toBe(3 * 2 ** 20);
      expect(result.seconds).toBeGreaterThan(0);
      expect(result.timeline.reduce((sum, point) => sum + point.bytes, 0)).toBe(result.bytes);
      // Each generation offers its own dialects (a default smbd allows 2.0.2 to 3.1.1): the highest it offers wins.
      expect(result.negotiated.dialect).toBe(CLIENT_PROFILES[profile].offer.dialects.at(-1));
      expect(result.negotiated.signing).toBeNull();
      expect(result.negotiated.encryption).toBeNull();
      expect(server.shareContents()).toEqual([]);
    });

    it.each(OPS)('%s of a directory set makes the round trips the model counts', async (op) => {
      const workload = 'tr3869-dirset:0.02';
      const result = await runCopyTest({ share: server.share, credentials: server.credentials, profile, op, workload });
      const model = predict({ client: profile, server: 'samba', op, workload, link: { bandwidthBitsPerSecond: 1e9, rttMs: 1 } });
      expect(result.metadataRoundTrips).toBe(model.breakdown.metadataRoundTrips);
      expect(result.bytes).toBe(model.totalBytes);
      expect(server.shareContents()).toEqual([]);
    });
  });

  it('times its quickest exchange from the opening ones, before any data: what a pipeline without a probe sizes itself from', async () => {
    const started = performance.now();
    const session = await SmbSession.open(server.share, server.credentials);
    const openingMs = performance.now() - started;
    const fastest = session.connection.fastestExchangeMs;
    await session.end();
    expect(fastest).toBeGreaterThan(0);
    // Negotiate, two session set-ups and a tree connect: the quickest is at most a quarter of them all.
    expect(fastest).toBeLessThanOrEqual(openingMs / 4);
  });

  it('says when a generation is emulated', async () => {
    const xp = await runCopyTest({ share: server.share, credentials: server.credentials, profile: 'xp-smb1', op: 'read', workload: 'file:64KiB' });
    expect(xp.emulation).toMatch(/SMB1 is not spoken.*one 60 KiB read at a time.*emulated over SMB 2\.1/);
    const win7 = await runCopyTest({ share: server.share, credentials: server.credentials, profile: 'win7-smb2', op: 'read', workload: 'file:64KiB' });
    expect(win7.emulation).toBeNull();
  });

  it("sends through the sender addon where it is built, and through Node's socket when told to; both byte-exact", async () => {
    const session = await SmbSession.open(server.share, server.credentials);
    const expected = senderAddon().available ? 'native' : 'socket';
    expect(session.connection.writerKind).toBe(expected);
    expect(session.connection.sendsRanges).toBe(expected === 'native');
    await session.end();
    const asked = await SmbSession.open(server.share, server.credentials, { writer: 'socket' });
    expect(asked.connection.writerKind).toBe('socket');
    await asked.end();
    const saved = process.env['PIPEFILL_NATIVE_SEND'];
    process.env['PIPEFILL_NATIVE_SEND'] = '0';
    try {
      for (const workload of ['file:5MiB', 'tr3869-dirset:0.02']) {
        const result = await runCopyTest({ share: server.share, credentials: server.credentials, profile: 'pipefill-max', op: 'write', workload });
        expect(result.verified).toBe(true);
      }
    } finally {
      if (saved === undefined) delete process.env['PIPEFILL_NATIVE_SEND'];
      else process.env['PIPEFILL_NATIVE_SEND'] = saved;
    }
    expect(server.shareContents()).toEqual([]);
  });

  it('works in a folder below the share where one is named: its scratch folder, its sweep, nothing left (issue 38)', async () => {
    const folder = join(server.sharePath, 'team', 'scratch');
    mkdirSync(folder, { recursive: true });
    // smbd serves the share as its own user, who must be able to write there.
    for (const path of [join(server.sharePath, 'team'), folder]) chmodSync(path, 0o777);
    const share = { ...server.share, folder: 'team/scratch' };
    // A run that died in the same folder: its lease went with its connection.
    const dead = await SmbSession.open(share, server.credentials);
    await crashRun(dead, server.sharePath, (await ScratchFolder.create(dead)).name);
    try {
      for (const op of ['write', 'read'] as const) {
        const result = await runCopyTest({ share, credentials: server.credentials, profile: 'win10-smb3', op, workload: 'tr3869-dirset:0.005' });
        expect(result.verified).toBe(true);
      }
      // Its own folder gone, a dead run's in the same folder swept, nothing made at the share's root.
      expect(server.shareContents()).toEqual(['team', 'team/scratch']);
      const missing = await smbFailure(
        runCopyTest({
          share: { ...server.share, folder: 'team/nowhere' },
          credentials: server.credentials,
          profile: 'win10-smb3',
          op: 'write',
          workload: 'file:1MiB',
        }),
      );
      expect(missing.kind).toBe('not-found');
      expect(missing.message).toMatch(/The folder team\/nowhere is not on the share share/);
      expect(server.shareContents()).toEqual(['team', 'team/scratch']);
    } finally {
      rmSync(join(server.sharePath, 'team'), { recursive: true, force: true });
    }
  }, 60_000);

  it("removes an orphan at once, but not a live one, nor a folder of its name that does not prove it is a run's", async () => {
    const session = await SmbSession.open(server.share, server.credentials);
    try {
      // Someone else's folder of the name, long past a day by its stamp: no marker, so never touched.
      await session.makeDirectory('.pipefill-20200101T000000-deadbeef');
      const live = await ScratchFolder.create(session);
      const other = await SmbSession.open(server.share, server.credentials);
      const orphan = await ScratchFolder.create(other);
      await crashRun(other, server.sharePath, orphan.name); // the run "crashes": its lease goes with its connection
      const sweeper = await SmbSession.open(server.share, server.credentials);
      const removed = await removeStaleScratch(sweeper, live.sweepRules(false));
      expect(removed).toEqual([orphan.name]);
      expect(server.shareContents()).toEqual(['.pipefill-20200101T000000-deadbeef', live.name, `${live.name}/.lease`, `${live.name}/.pipefill-run`].sort());
      // smbd holds share modes: a run's lease shows it alive, and its own sweep (on a connection of its own) leaves the
      // other live run alone and its own folder too.
      const own = await ScratchFolder.createChecked(sweeper);
      expect(own.enforcesShareModes).toBe(true);
      let opened = 0;
      await own.sweepOthersAside(() => {
        opened += 1;
        return SmbSession.open(server.share, server.credentials);
      });
      expect(opened).toBe(1);
      await own.remove();
      await sweeper.end();
      await live.remove();
      expect(server.shareContents()).toEqual(['.pipefill-20200101T000000-deadbeef']);
    } finally {
      await session.end();
      rmSync(join(server.sharePath, '.pipefill-20200101T000000-deadbeef'), { recursive: true, force: true });
    }
  });

  it("never deletes through a link, nor anything it did not make, in a dead run's folder", async () => {
    // A dead run's folder with things planted in it: a symlinked "source" to another folder of the share that
    // holds a file of a name Pipefill uses, a file of a name it never uses, and a folder of its own layout.
    const root = server.sharePath;
    const other = await SmbSession.open(server.share, server.credentials);
    const stale = (await ScratchFolder.create(other)).name;
    await crashRun(other, server.sharePath, stale);
    mkdirSync(join(root, 'victim'));
    writeFileSync(join(root, 'victim', 'pipefill-test.bin'), 'keep me');
    mkdirSync(join(root, stale, 'target'), { recursive: true });
    writeFileSync(join(root, stale, 'target', 'pipefill-test.bin'), 'ours');
    writeFileSync(join(root, stale, 'notes.txt'), 'not ours');
    symlinkSync('../victim', join(root, stale, 'source'));
    // Writable by the share's user, as a colleague's files would be.
    for (const dir of [stale, `${stale}/target`, 'victim']) chmodSync(join(root, dir), 0o777);
    for (const file of [`${stale}/target/pipefill-test.bin`, `${stale}/notes.txt`, 'victim/pipefill-test.bin']) chmodSync(join(root, file), 0o666);
    try {
      const sweeper = await SmbSession.open(server.share, server.credentials);
      const own = await ScratchFolder.create(sweeper);
      const removed = await removeStaleScratch(sweeper, own.sweepRules());
      await own.remove();
      await sweeper.end();
      expect(removed).toEqual([]);
      expect(readFileSync(join(root, 'victim', 'pipefill-test.bin'), 'utf8')).toBe('keep me');
      expect(readFileSync(join(root, stale, 'notes.txt'), 'utf8')).toBe('not ours');
      expect(lstatSync(join(root, stale, 'source')).isSymbolicLink()).toBe(true);
      // What Pipefill did make there is gone; its marker stays with what it could not remove, for a look by hand.
      expect(existsSync(join(root, stale, 'target'))).toBe(false);
      expect(existsSync(join(root, stale, '.pipefill-run'))).toBe(true);
    } finally {
      rmSync(join(root, stale), { recursive: true, force: true });
      rmSync(join(root, 'victim'), { recursive: true, force: true });
    }
    expect(server.shareContents()).toEqual([]);
  });
});

describe('credits', () => {
  let server: SambaServer;
  beforeAll(async () => {
    server = await SambaServer.start({ maxCredits: 16 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('smbd drops a client that numbers requests beyond its grant (so the tests below can fail)', async () => {
    const session = await SmbSession.open(server.share, server.credentials);
    // A deliberately broken window that claims 200 credits against the server's 16.
    Object.assign(session.connection, { credits: new CreditWindow(200) });
    Object.assign(session.connection.credits, { nextMessageId: 100n });
    const results = await Promise.allSettled(Array.from({ length: 60 }, () => session.echo({ timeoutMs: 5_000 })));
    expect(results.some((result) => result.status === 'rejected' && (result.reason as SmbError).kind === 'connection-lost')).toBe(true);
    expect(session.connection.isOpen).toBe(false);
  });

  it.each([
    ['pipefill-max', 'read'],
    ['pipefill-max', 'write'],
    ['win10-smb3', 'write'],
    ['win7-smb2', 'read'],
  ] as const)('%s %s stays within smb2 max credits = 16', async (profile, op) => {
    // smbd drops a client that exceeds its grant (the test above shows it does), so a
    // complete, verified copy is the proof. The high-water mark can pass 16: smbd grants 16 in
    // a reply while requests it has not answered yet still hold credits (see CreditStats.maxHeld).
    const result = await runCopyTest({ share: server.share, credentials: server.credentials, profile, op, workload: 'file:24MiB' });
    expect(result.verified).toBe(true);
    expect(result.negotiated.creditsGrantedMax).toBeGreaterThanOrEqual(16);
    expect(server.shareContents()).toEqual([]);
  });

  it.each(OPS)(
    '%s of a folder of small files as robocopy /MT:4 copies it: four files at once on one session within 16 credits, the round trips the model counts, byte-exact',
    async (op) => {
      const workload = 'tr3869-dirset:0.05';
      const result = await runCopyTest({ share: server.share, credentials: server.credentials, profile: 'win11-24h2', op, workload, lanes: 4 });
      const model = predict({ client: 'win11-24h2', server: 'samba', op, workload, link: { bandwidthBitsPerSecond: 1e9, rttMs: 1 } });
      expect(result.lanes).toBe(4);
      expect(result.verified).toBe(true);
      expect(result.bytes).toBe(model.totalBytes);
      // The walk makes (or lists) each folder once, and every file keeps its own sequence: the same round trips as one at a time.
      expect(result.metadataRoundTrips).toBe(model.breakdown.metadataRoundTrips);
      // smbd drops a client beyond its grant (above): a complete, verified copy kept four lanes within 16 credits.
      expect(server.shareContents()).toEqual([]);
    },
    60_000,
  );

  it('compounds sent side by side each take their credits at once: twelve 3-message deletes at 16 credits all end (taken one message at a time, they wedged the connection)', async () => {
    const session = await SmbSession.open(server.share, server.credentials);
    try {
      const names = Array.from({ length: 12 }, (_, index) => `compound-${index}.bin`);
      for (const name of names) {
        const created = await session.create({ path: name, access: 0x2 | 0x80, disposition: 2, options: 0x40 });
        await session.write(created.fileId, 0, [Buffer.alloc(4096, 1)]);
        await session.close(created.fileId);
      }
      const deleted = Promise.all(names.map((name) => session.deletePath(name, false, { timeoutMs: 5_000 })));
      // Bounded: a wedged connection answers nothing, and this says so instead of waiting for the test's timeout.
      const outcome = await Promise.race([deleted.then(() => 'deleted'), new Promise((resolve) => setTimeout(() => resolve('wedged'), 10_000))]);
      expect(outcome).toBe('deleted');
      expect(server.shareContents()).toEqual([]);
    } finally {
      session.connection.destroy();
    }
  }, 30_000);
});

describe('failures: typed, within 10 s, nothing left behind', () => {
  let server: SambaServer;
  beforeAll(async () => {
    server = await SambaServer.start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const copy = (overrides: Partial<Parameters<typeof runCopyTest>[0]>, signal?: AbortSignal) =>
    runCopyTest(
      { share: server.share, credentials: server.credentials, profile: 'pipefill-max', op: 'write', workload: 'file:8MiB', ...overrides },
      signal ? { signal } : {},
    );

  it('wrong password', async () => {
    await expectSmbError(copy({ credentials: { user: server.credentials.user, password: 'not-the-password' } }), 'auth-failed', 10_000);
    expect(server.shareContents()).toEqual([]);
  });

  it('unknown share', async () => {
    const error = await expectSmbError(copy({ share: { ...server.share, share: 'nosuchshare' } }), 'share-not-found', 10_000);
    expect(error.hint).toMatch(/smbclient -L/);
  });

  it('read-only share', async () => {
    await expectSmbError(copy({ share: server.readOnlyShare }), 'access-denied', 10_000);
  });

  it('host with nothing listening', async () => {
    const port = await freePort();
    const error = await expectSmbError(copy({ share: { host: '127.0.0.1', port, share: 'share' } }), 'unreachable', 10_000);
    expect(error.message).toMatch(/Nothing is listening/);
  });

  it('the password never appears in an error', async () => {
    const secret = 'Sup3r-Secret-Passw0rd';
    const error = await expectSmbError(copy({ credentials: { user: 'pipefill', password: secret } }), 'auth-failed', 10_000);
    expect(JSON.stringify({ message: error.message, hint: error.hint, stack: error.stack })).not.toContain(secret);
  });

  it('cancel stops within 2 s and removes the scratch folder', async () => {
    const controller = new AbortController();
    const run = copy({ profile: 'xp-smb1', workload: 'tr3869-dirset' }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const cancelledAt = Date.now();
    controller.abort();
    await expectSmbError(run, 'cancelled', 10_000);
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    expect(server.shareContents()).toEqual([]);
  });

  it('smbd killed mid-copy: a typed error at once, and the next start removes the orphan', async () => {
    const run = copy({ profile: 'xp-smb1', workload: 'tr3869-dirset' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    server.kill();
    await expectSmbError(run, 'connection-lost', 10_000);
    await server.restart();
    expect(server.shareContents().some((path) => path.startsWith('.pipefill-'))).toBe(true);
    const next = await copy({ workload: 'file:1MiB' });
    expect(next.verified).toBe(true);
    expect(server.shareContents()).toEqual([]);
  });
});
