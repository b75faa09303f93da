// The service in a child process (`pipefill service --stdio`, as `ui --demo`
// runs it inside the branch namespace): the same answers as the local
// service, an assessment's cleanup when the front end goes away, and a clear
// error, never a hang, when the child dies.

import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalApi } from '../service/local-api.js';
import type { ProgressEvent } from '../contract/copy-test.js';
import type { LoopbackServers } from '../lab/loopback-servers.js';
import { startLoopbackServers } from '../lab/loopback-servers.js';
import { sambaAvailable } from '../lab/samba.js';
import type { ServiceProcess } from './service-process.js';
import { startServiceProcess } from './service-process.js';

const cliEntry = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const built = existsSync(cliEntry);
if (!built) console.warn('SKIPPED: the service-process tests need a build (npm test builds it).');

describe.skipIf(!built)('the service in a child process', () => {
  let service: ServiceProcess;
  beforeAll(() => {
    service = startServiceProcess({ commandPrefix: [], cliEntry });
  });
  afterAll(async () => {
    await service?.stop(5_000);
  });

  it('answers as the local service does', async () => {
    const input = { client: 'win11-24h2', server: 'samba', op: 'read', workload: 'file:64MiB', bandwidth: '100mbit', rtt: '40ms' } as const;
    await expect(service.api.predict(input)).resolves.toEqual(await createLocalApi({}).predict(input));
    await expect(service.api.predict({ ...input, rtt: 'soon' })).rejects.toMatchObject({ kind: 'bad-input' });
  });

  it('fails a call waiting on a child that died, and every later one, with a clear error', async () => {
    const doomed = startServiceProcess({ commandPrefix: [], cliEntry });
    await doomed.api.catalogue({});
    const waiting = doomed.api.probe({ share: '//192.0.2.1/x', user: 'u', password: 'p' }).catch((error: unknown) => error);
    doomed.killNow();
    await expect(waiting).resolves.toMatchObject({ kind: 'service-gone' });
    await expect(doomed.api.catalogue({})).rejects.toMatchObject({ kind: 'service-gone', message: expect.stringMatching(/was stopped \(SIGKILL\)/) });
  });
});

describe.skipIf(!built || !sambaAvailable())('an assessment in the child, cancelled', () => {
  let servers: LoopbackServers;
  beforeAll(async () => {
    servers = await startLoopbackServers();
  }, 30_000);
  afterAll(async () => {
    await servers?.stop();
  });

  it('streams its progress, and a cancel ends it with the share clean', async () => {
    const service = startServiceProcess({ commandPrefix: [], cliEntry });
    const controller = new AbortController();
    const events: ProgressEvent[] = [];
    const run = service.api.assess(
      { share: `//127.0.0.1:${servers.samba.port}/share`, ...servers.samba.credentials, quick: true },
      {
        signal: controller.signal,
        onProgress: (event) => {
          events.push(event);
          if (event.step.includes('copy')) controller.abort();
        },
      },
    );
    await expect(run).rejects.toMatchObject({ kind: 'cancelled' });
    expect(events.length).toBeGreaterThan(0);
    await service.stop(5_000);
    // Nothing of Pipefill's is left on the share.
    expect(readdirSync(servers.samba.sharePath)).toEqual([]);
  }, 60_000);
});
