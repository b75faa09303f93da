// A refusal names whose offer it refused (issue 50, item 7): against a Samba
// that takes SMB 3.1.1 only and signs with HMAC-SHA256 only, Windows 7's
// copy (moved up to SMB 3 by Pipefill) was told the server speaks "SMB 3.1.1,
// which this client offers", and the Linux client, which sends no list of
// signing algorithms, "none of the signing algorithms this client offers for
// SMB 3.1.1 (none)".

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SambaServer, sambaAvailable } from '../lab/samba.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { smbFailure } from '../test-support/smb-failure.js';
import { SmbSession } from './session.js';

describe.skipIf(!sambaAvailable())('refusals that name whose offer was refused', () => {
  let server: SambaServer;
  beforeAll(async () => {
    server = await SambaServer.start({ globals: { 'server min protocol': 'SMB3_11', 'server smb3 signing algorithms': 'HMAC-SHA256' } });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("a generation moved up to SMB 3 is told the offer was Pipefill's, in its place", async () => {
    const failure = await smbFailure(SmbSession.open(server.share, server.credentials, { offer: CLIENT_PROFILES['win7-smb2'].offer }));
    expect(failure.message).toMatch(
      /though it speaks SMB 3\.1\.1, which Pipefill offered in this client's place once the server refused its own SMB 2\.0\.2, SMB 2\.1: it allows none of the signing algorithms offered for SMB 3\.1\.1 \(AES-128-GMAC, AES-128-CMAC\)\.$/,
    );
  });

  it('a client that sends no list of signing algorithms is told what that leaves it', async () => {
    const failure = await smbFailure(SmbSession.open(server.share, server.credentials, { offer: CLIENT_PROFILES['linux-cifs'].offer }));
    expect(failure.message).toMatch(/which this client offers: it does not allow AES-128-CMAC, SMB 3\.1\.1's signing where the client sends no list/);
    expect(failure.message).not.toMatch(/\(none\)/);
    expect(failure.hint).toMatch(/^Let the server allow AES-128-CMAC \(Samba: server smb3 signing algorithms\)/);
  });
});
