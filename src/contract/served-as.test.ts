import { describe, expect, it } from 'vitest';
import type { PipefillApi } from './api.js';
import { apiContract } from './api.js';
import type { HostInfo } from './host-info.js';
import { servedAs } from './served-as.js';

const DEMO: NonNullable<HostInfo['demo']> = { share: '//10.77.0.2/share', user: 'pipefill', password: 'x', path: { kind: 'loopback' } };

/** An API whose every call but hostInfo says who answered it. */
function answering(name: string, info: HostInfo): PipefillApi {
  const calls = Object.fromEntries(
    Object.keys(apiContract).map((method) => [method, () => Promise.resolve(method === 'hostInfo' ? info : `${name}:${method}`)]),
  );
  return calls as unknown as PipefillApi;
}

describe('the contract as a front end serves it', () => {
  it("answers every call through the API it was given, and hostInfo from this process's own, as the shell it is, with its demo", async () => {
    const local = answering('local', { shell: 'cli', version: '1.0.0', kerberos: { principal: 'alice@CORP' } });
    const branch = answering('branch', { shell: 'cli', version: '1.0.0' });
    const served = servedAs(branch, { shell: 'web', demo: DEMO }, local);
    await expect(served.catalogue({})).resolves.toBe('branch:catalogue');
    await expect(served.historyList({})).resolves.toBe('branch:historyList');
    await expect(served.hostInfo({})).resolves.toEqual({ shell: 'web', version: '1.0.0', kerberos: { principal: 'alice@CORP' }, demo: DEMO });
  });

  it('without a demo, says none, even where the API it decorates named one', async () => {
    const local = answering('local', { shell: 'cli', version: '1.0.0', demo: DEMO });
    await expect(servedAs(local, { shell: 'web' }).hostInfo({})).resolves.toEqual({ shell: 'web', version: '1.0.0' });
  });
});
