// The contract over lines, both halves joined back to back (as `pipefill ui
// --demo` joins them across a process boundary): results checked against the
// contract, progress in order, cancel reaching the call, errors keeping their
// kind and hint, and lines that are not the protocol ignored.

import { describe, expect, it } from 'vitest';
import { createLocalApi } from '../service/local-api.js';
import { PipefillError, PipefillInputError } from '../model/errors.js';
import type { PipefillApi } from './api.js';
import type { ProgressEvent } from './copy-test.js';
import type { LineClient, LineServer } from './line-transport.js';
import { apiOverLines, MAX_LINE_CHARS, serveApiOverLines } from './line-transport.js';

function joined(api: PipefillApi): { client: LineClient; server: LineServer; toServer: string[]; toClient: string[] } {
  const toServer: string[] = [];
  const toClient: string[] = [];
  // Lines cross asynchronously, as through a pipe (the server exists by the time the first one arrives).
  const serverOf: { server?: LineServer } = {};
  const client = apiOverLines((line) => {
    toServer.push(line);
    queueMicrotask(() => serverOf.server?.receive(line));
  });
  const server = serveApiOverLines(api, (line) => {
    toClient.push(line);
    queueMicrotask(() => client.receive(line));
  });
  serverOf.server = server;
  return { client, server, toServer, toClient };
}

describe('the contract over lines', () => {
  const local = createLocalApi({ shell: 'web' });

  it('answers a call as the local service does, checked against the contract', async () => {
    const { client } = joined(local);
    const input = { client: 'win11-24h2', server: 'samba', op: 'write', workload: 'file:100MB', bandwidth: '100mbit', rtt: '40ms' } as const;
    await expect(client.api.predict(input)).resolves.toEqual(await local.predict(input));
  });

  it("keeps an error's kind, message and hint", async () => {
    const { client } = joined(local);
    const failing: PipefillApi = { ...local, probe: () => Promise.reject(new PipefillInputError('No such share.', 'Check the name.')) };
    const other = joined(failing);
    await expect(other.client.api.probe({ share: '//x/y' } as never)).rejects.toMatchObject({
      kind: 'bad-input',
      message: 'No such share.',
      hint: 'Check the name.',
    });
    // A bad input is refused by the service's own validation, not by the transport.
    await expect(client.api.predict({ client: 'no-such-client' } as never)).rejects.toBeInstanceOf(PipefillError);
  });

  it('refuses apply, which changes the machine the services run on: no page may ask for it, and the service never sees it', async () => {
    let applied = false;
    const spied: PipefillApi = {
      ...local,
      apply: (input) => {
        applied = true;
        return local.apply(input);
      },
    };
    const { client } = joined(spied);
    await expect(client.api.apply({ target: 'linux', action: 'preview' })).rejects.toMatchObject({
      kind: 'bad-input',
      message: expect.stringMatching(/apply changes the machine the services run on, and is not served to pages/),
      hint: expect.stringMatching(/pipefill apply/),
    });
    expect(applied).toBe(false);
  });

  it('streams progress, and a cancel reaches the call in the service', async () => {
    let aborted = false;
    const slow: PipefillApi = {
      ...local,
      probe: (_input, options) =>
        new Promise((_resolve, reject) => {
          options?.onProgress?.({ step: 'probe', bytes: 1, totalBytes: 2 });
          options?.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new PipefillError('cancelled', 'Cancelled.', 'Nothing was left on the share.'));
          });
        }),
    };
    const { client } = joined(slow);
    const controller = new AbortController();
    const events: ProgressEvent[] = [];
    const call = client.api.probe({ share: '//x/y' } as never, { signal: controller.signal, onProgress: (event) => events.push(event) });
    await expect.poll(() => events.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ kind: 'cancelled' });
    expect(aborted).toBe(true);
    expect(events).toEqual([{ step: 'probe', bytes: 1, totalBytes: 2 }]);
  });

  it('fails every waiting call when the service goes away, and every later one', async () => {
    const never: PipefillApi = { ...local, probe: () => new Promise(() => undefined) };
    const { client } = joined(never);
    const call = client.api.probe({ share: '//x/y' } as never);
    const gone = new PipefillError('service-gone', 'The service stopped.', 'Restart Pipefill.');
    client.close(gone);
    await expect(call).rejects.toBe(gone);
    await expect(client.api.catalogue({})).rejects.toBe(gone);
  });

  it('answers a method the contract lacks with an error, and ignores lines that are not the protocol', async () => {
    const replies: string[] = [];
    const server = serveApiOverLines(local, (line) => replies.push(line));
    server.receive(JSON.stringify({ kind: 'call', id: 7, method: 'deleteEverything', input: {} }));
    await expect.poll(() => replies.length).toBe(1);
    expect(JSON.parse(replies[0] ?? '')).toMatchObject({ id: 7, frame: { type: 'error', error: { kind: 'protocol' } } });
    for (const line of [
      'not json',
      '{}',
      JSON.stringify({ kind: 'call', id: -1, method: 'catalogue', input: {} }),
      JSON.stringify({ kind: 'call', id: 1, method: 'catalogue', input: {}, extra: 1 }),
      'x'.repeat(MAX_LINE_CHARS + 1),
    ])
      server.receive(line);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(replies).toHaveLength(1);

    // A client drops replies for calls it never made, and replies that are not frames.
    const { client } = joined(local);
    client.receive(JSON.stringify({ id: 99, frame: { type: 'result', value: 1 } }));
    client.receive(JSON.stringify({ id: 1, frame: { type: 'result' } }));
    client.receive('{');
    await expect(client.api.catalogue({})).resolves.toMatchObject({});
  });

  it('refuses a result that does not match the contract', async () => {
    const lying: PipefillApi = { ...local, hostInfo: () => Promise.resolve({ shell: 'telnet' } as never) };
    const { client } = joined(lying);
    await expect(client.api.hostInfo({})).rejects.toMatchObject({ kind: 'protocol' });
  });
});
