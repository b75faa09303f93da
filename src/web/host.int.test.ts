// The web mode's host on loopback: the contract over HTTP with the token,
// progress streamed, cancel on disconnect, and the doors it keeps shut.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipefillApi } from '../contract/api.js';
import type { ProgressEvent } from '../contract/copy-test.js';
import { httpSend } from '../contract/http-send.js';
import { apiOverTransport } from '../contract/transport.js';
import { createLocalApi } from '../service/local-api.js';
import { predictScenario } from '../contract/scenario.js';
import type { WebHost } from './host.js';
import { startWebHost } from './host.js';

function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('web host', () => {
  let host: WebHost;
  let rendererDir: string;
  let cancelled = false;
  beforeAll(async () => {
    rendererDir = mkdtempSync(join(tmpdir(), 'pipefill-renderer-'));
    mkdirSync(join(rendererDir, 'assets'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Pipefill</title>');
    writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(tmpdir(), 'pipefill-secret.txt'), 'secret');
    const local = createLocalApi({ shell: 'web' });
    const api: PipefillApi = {
      ...local,
      // A call that reports progress and runs until cancelled.
      probe: (_input, options) =>
        new Promise((_resolve, reject) => {
          options?.onProgress?.({ step: 'probe', bytes: 1, totalBytes: 2 });
          options?.signal?.addEventListener('abort', () => {
            cancelled = true;
            reject(new Error('cancelled'));
          });
        }),
    };
    host = await startWebHost({ api, rendererDir });
  });
  afterAll(async () => {
    await host?.close();
    rmSync(rendererDir, { recursive: true, force: true });
    rmSync(join(tmpdir(), 'pipefill-secret.txt'), { force: true });
  });

  it('listens on 127.0.0.1 and prints an address with a launch code, not a session, in its fragment', () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#launch=[A-Za-z0-9_-]{20,}$/);
    expect(host.url).not.toContain(host.token);
  });

  it('trades a launch code for a session once, and never again', async () => {
    const url = host.launchUrl();
    const code = new URL(url).hash.replace('#launch=', '');
    const trade = () =>
      raw(`${host.origin}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ launch: code }) });
    const first = await trade();
    expect(first.status).toBe(200);
    const { token } = JSON.parse(first.body) as { token: string };
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(token).not.toBe(code);
    expect((await apiOverTransport(httpSend(host.origin, token, fetch)).hostInfo({})).shell).toBe('web');
    // Spent: whoever read it from the browser's command line or history gets nothing.
    const second = await trade();
    expect(second.status).toBe(403);
    expect(second.body).toMatch(/used already/);
    // The code itself is no session, and nonsense spends nothing.
    expect(
      (
        await raw(`${host.origin}/api/hostInfo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${code}` },
          body: '{}',
        })
      ).status,
    ).toBe(401);
    expect((await raw(`${host.origin}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' })).status).toBe(403);
  });

  it('refuses apply to a page, even with a live session: it changes this machine, and only its CLI asks for it', async () => {
    const refused = await raw(`${host.origin}/api/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${host.token}` },
      body: JSON.stringify({ target: 'linux', action: 'apply' }),
    });
    expect(refused.status).toBe(404);
    expect(refused.body).toMatch(/not served to pages/);
  });

  it('serves the page with a strict CSP, and nothing outside its folder', async () => {
    const page = await raw(`${host.origin}/`, {});
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect((await raw(`${host.origin}/assets/app.js`, {})).status).toBe(200);
    expect((await raw(`${host.origin}/../pipefill-secret.txt`, {})).status).toBe(404);
    expect((await raw(`${host.origin}/%2e%2e/pipefill-secret.txt`, {})).status).toBe(404);
    // A malformed escape is a bad request, not a crash.
    expect((await raw(`${host.origin}/%E0%A4%A`, {})).status).toBe(400);
    expect((await raw(`${host.origin}/`, {})).status).toBe(200);
  });

  it('runs the contract for a client with the token: the same prediction as in-process', async () => {
    const api = apiOverTransport(httpSend(host.origin, host.token, fetch));
    const scenario = {
      client: 'win7-smb2' as const,
      server: 'win2012plus' as const,
      op: 'read' as const,
      workload: 'file:100MB',
      bandwidth: '155mbit',
      rtt: '32ms',
    };
    expect(await api.predict(scenario)).toEqual(predictScenario(scenario));
    expect((await api.hostInfo({})).shell).toBe('web');
  });

  it('keeps typed errors typed across the wire', async () => {
    const api = apiOverTransport(httpSend(host.origin, host.token, fetch));
    await expect(
      api.predict({ client: 'win7-smb2', server: 'win2012plus', op: 'read', workload: 'file:100MB', bandwidth: 'fast', rtt: '32ms' }),
    ).rejects.toMatchObject({ kind: 'bad-input' });
  });

  it('refuses calls without the token, from another Host, or from another origin', async () => {
    const body = JSON.stringify({});
    const json = { 'content-type': 'application/json' };
    expect((await raw(`${host.origin}/api/hostInfo`, { method: 'POST', headers: json, body })).status).toBe(401);
    expect((await raw(`${host.origin}/api/hostInfo`, { method: 'POST', headers: { ...json, authorization: 'Bearer wrong' }, body })).status).toBe(401);
    const authorised = { ...json, authorization: `Bearer ${host.token}` };
    expect((await raw(`${host.origin}/api/hostInfo`, { method: 'POST', headers: { ...authorised, host: 'evil.example' }, body })).status).toBe(421);
    expect((await raw(`${host.origin}/api/hostInfo`, { method: 'POST', headers: { ...authorised, origin: 'https://evil.example' }, body })).status).toBe(403);
    expect((await raw(`${host.origin}/api/hostInfo`, { method: 'POST', headers: authorised, body })).status).toBe(200);
  });

  it('takes a whole report to keep in the history past the 1 MiB other calls get, and refuses anything past what Pipefill opens', async () => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${host.token}` };
    // 2 MiB of padding in a field the schema does not know: read, checked, refused as no report, never stored.
    const big = JSON.stringify({ document: { padding: 'x'.repeat(2 * 1024 * 1024) } });
    const saved = await raw(`${host.origin}/api/historySave`, { method: 'POST', headers, body: big });
    expect(saved.body).toMatch(/not a Pipefill report or capacity run/);
    expect(saved.body).not.toMatch(/over \d+ MiB/);
    const other = await raw(`${host.origin}/api/predict`, { method: 'POST', headers, body: big });
    expect(other.body).toMatch(/The request body is over 1 MiB/);
    const huge = await raw(`${host.origin}/api/historySave`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ document: { padding: 'x'.repeat(17 * 1024 * 1024) } }),
    });
    expect(huge.body).toMatch(/The request body is over 16 MiB/);
  });

  it('streams progress, and cancels the call when the client aborts', async () => {
    const api = apiOverTransport(httpSend(host.origin, host.token, fetch));
    const controller = new AbortController();
    const events: ProgressEvent[] = [];
    const call = api.probe({ share: '//h/s', user: 'u', password: 'p' }, { signal: controller.signal, onProgress: (event) => events.push(event) });
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).toEqual([{ step: 'probe', bytes: 1, totalBytes: 2 }]);
    controller.abort();
    await expect(call).rejects.toMatchObject({ kind: 'cancelled' });
    for (let i = 0; i < 100 && !cancelled; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBe(true);
  });

  it('tells a second use of a launch code from a wrong one, and says so to the shell (issue 35, item 11)', async () => {
    let reused = 0;
    const other = await startWebHost({ api: createLocalApi({ shell: 'web' }), rendererDir, onLaunchCodeReused: () => reused++ });
    try {
      const code = new URL(other.launchUrl()).hash.replace('#launch=', '');
      const trade = (launch: string) =>
        raw(`${other.origin}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ launch }) });
      expect((await trade(code)).status).toBe(200);
      const again = await trade(code);
      expect(again.status).toBe(403);
      expect(again.body).toMatch(/used already, by another page or program\. If you opened it only now, something else on this computer read it/);
      expect(reused).toBe(1);
      const wrong = await trade('not-a-code-of-this-run');
      expect(wrong.body).toMatch(/expired, or is not this run's/);
      expect(reused).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('ends a session nobody used for the idle limit (issue 35, item 11)', async () => {
    // A clock the test steps: the bound is the host's rule, not this machine's scheduling.
    let now = 1_000_000;
    const other = await startWebHost({ api: createLocalApi({ shell: 'web' }), rendererDir, sessionIdleMs: 300, now: () => now });
    try {
      const api = apiOverTransport(httpSend(other.origin, other.token, fetch));
      await expect(api.hostInfo({})).resolves.toMatchObject({ shell: 'web' });
      // Used within the limit, it lives on, and its idle time starts again.
      now += 300;
      await expect(api.hostInfo({})).resolves.toMatchObject({ shell: 'web' });
      now += 300;
      await expect(api.hostInfo({})).resolves.toMatchObject({ shell: 'web' });
      now += 301;
      await expect(api.hostInfo({})).rejects.toThrow(/session has ended/);
    } finally {
      await other.close();
    }
  });
});
