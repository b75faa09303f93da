// A server that speaks only SMB1 (Samba with server max protocol = NT1, as
// old NAS boxes ship) is named as such, for every client generation (issue
// 50): before, each read "accepted none of the dialects this client offered
// ... check the server's min and max protocol settings".

import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesOfConfig } from '../lab/config-processes.js';
import { SambaServer, sambaAvailable } from '../lab/samba.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { speaksSmb1 } from './smb1-probe.js';
import { SmbSession } from './session.js';
import { smbFailure } from '../test-support/smb-failure.js';

describe.skipIf(!sambaAvailable())('an SMB1-only server', () => {
  let server: SambaServer;
  beforeAll(async () => {
    server = await SambaServer.start({ globals: { 'server min protocol': 'NT1', 'server max protocol': 'NT1' } });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('answers SMB1 (smbclient -m NT1 connects), and the probe hears it', async () => {
    const smbclient = spawnSync(
      'smbclient',
      ['-L', '127.0.0.1', '-p', String(server.port), '-m', 'NT1', '--option=client min protocol=NT1', '-U', `pipefill%${server.password}`],
      {
        encoding: 'utf8',
      },
    );
    expect(smbclient.status, smbclient.stderr).toBe(0);
    await expect(speaksSmb1('127.0.0.1', server.port)).resolves.toBe(true);
  });

  it("leaves none of its processes behind when stopped, the share listing's RPC helper among them", async () => {
    // Listing the shares has smbd start samba-dcerpcd, in a session of its own: one was left after every npm test.
    const other = await SambaServer.start();
    spawnSync('smbclient', ['-L', '127.0.0.1', '-p', String(other.port), '-U', `pipefill%${other.password}`], { encoding: 'utf8' });
    expect(processesOfConfig(other.configFile).length).toBeGreaterThan(0);
    await other.stop();
    expect(processesOfConfig(other.configFile)).toEqual([]);
  });

  it.each(['pipefill-max', 'win11-24h2', 'win7-smb2', 'xp-smb1'] as const)('%s is told the server speaks only SMB1, and what to change', async (profile) => {
    const failure = await smbFailure(SmbSession.open(server.share, server.credentials, { offer: CLIENT_PROFILES[profile].offer }));
    expect(failure.message).toMatch(/speaks only SMB1 \(NT LM 0\.12\).*Windows 10 and 11 speak no other/);
    expect(failure.hint).toMatch(/server max protocol = NT1/);
  });
});

describe.skipIf(!sambaAvailable())('a server that speaks SMB 2 and 3', () => {
  it('is not taken for an SMB1 one', async () => {
    const server = await SambaServer.start();
    try {
      await expect(speaksSmb1('127.0.0.1', server.port)).resolves.toBe(false);
    } finally {
      await server.stop();
    }
  });
});
