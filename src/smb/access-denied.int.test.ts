// Each "access denied" a person meets on a share, told apart (issue 50, item
// 4): a share that refuses the account (valid users), a share read-only for
// it, and a share writable only in a folder, where the fix is that folder in
// the share path. Before, all three read "Pipefill needs to create a scratch
// folder on the share: use a share and an account that may write."

import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SambaServer, sambaAvailable } from '../lab/samba.js';
import { smbFailure } from '../test-support/smb-failure.js';
import { ScratchFolder } from '../copy/scratch.js';
import { SmbSession } from './session.js';

describe.skipIf(!sambaAvailable())('access denied, told apart', () => {
  let server: SambaServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  /** Opens the share (or the folder below it) and makes a scratch folder there, removing it again where that worked. */
  async function makeScratch(
    share: { host: string; port: number; share: string; folder?: string },
    credentials: { user: string; password: string },
  ): Promise<void> {
    const session = await SmbSession.open(share, credentials);
    try {
      const scratch = await ScratchFolder.create(session);
      await scratch.remove();
    } finally {
      await session.end();
    }
  }

  it('a share that lets other accounts in, not this one', async () => {
    // The login maps onto nobody (or the person running the tests); only root may use this share.
    server = await SambaServer.start({ shareOptions: { 'valid users': 'root' } });
    const failure = await smbFailure(makeScratch(server.share, server.credentials));
    expect(failure.message).toMatch(/^The share share refuses pipefill: the server took the logon, then denied this account the share\.$/);
    expect(failure.hint).toMatch(/valid users/);
  });

  it('a share read-only for this account', async () => {
    server = await SambaServer.start();
    const failure = await smbFailure(makeScratch(server.readOnlyShare, server.credentials));
    expect(failure.message).toMatch(/^The share readonly is read-only for this account/);
    expect(failure.hint).toMatch(/read only = no/);
  });

  it('a share writable only in a folder: the folder is the fix, and it works', async () => {
    server = await SambaServer.start();
    mkdirSync(join(server.sharePath, 'team'));
    chmodSync(join(server.sharePath, 'team'), 0o777);
    // The top of the share no longer takes new folders from the account smbd serves it as.
    chmodSync(server.sharePath, 0o555);
    try {
      const failure = await smbFailure(makeScratch(server.share, server.credentials));
      expect(failure.message).toMatch(/^The top of the share share refuses new folders to this account, though the share lets it write\.$/);
      expect(failure.hint).toContain('/share/FOLDER');
      await makeScratch({ ...server.share, folder: 'team' }, server.credentials);
      expect(server.shareContents()).toEqual(['team']);
    } finally {
      chmodSync(server.sharePath, 0o777);
    }
  });
});
