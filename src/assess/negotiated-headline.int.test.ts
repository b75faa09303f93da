// The verdict's first line names the client as its copies negotiated it
// (issue 50, item 6): against a Samba that speaks at most SMB 2.0.2, Windows
// 11 24H2's copies ran on SMB 2.0.2, and the line said "SMB 3.1.1 (signing
// required)", the profile's own label.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SambaServer, sambaAvailable } from '../lab/samba.js';
import { assess } from '../test-support/assess-as-sent.js';

describe.skipIf(!sambaAvailable())('the headline on a server that speaks at most SMB 2.0.2', () => {
  let server: SambaServer;
  beforeAll(async () => {
    server = await SambaServer.start({ globals: { 'server max protocol': 'SMB2_02' } });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('says SMB 2.0.2 and how it was protected, as the copies found it', async () => {
    const report = await assess({ share: `//127.0.0.1:${server.port}/share`, ...server.credentials, quick: true, profiles: ['win11-24h2'] });
    const dialects = new Set(report.copyTests.filter((copy) => copy.profile === 'win11-24h2').map((copy) => copy.negotiated.dialect));
    expect([...dialects]).toEqual(['2.0.2']);
    expect(report.verdict?.lines[0]).toMatch(/^Your copies with Windows 11 24H2, SMB 2\.0\.2, (signed \([\w-]+\)|unsigned): /);
    expect(server.shareContents()).toEqual([]);
  }, 120_000);
});
