import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silenceAllowanceMs } from './silence-watchdog.js';
import { SmbError } from './errors.js';
import { SmbSession } from './session.js';

let server: Server | undefined;
afterEach(() => server?.close());

function listen(onConnection: (socket: Socket) => void): Promise<number> {
  server = createServer(onConnection);
  return new Promise((resolve) => server?.listen(0, '127.0.0.1', () => resolve((server?.address() as { port: number }).port)));
}

describe('silenceAllowanceMs', () => {
  it('lets a server stay silent while a large write can still be on its way at 1 Mb/s', () => {
    expect(silenceAllowanceMs(15_000, 0)).toBe(15_000);
    // A 4 MiB write takes 33.6 s to cross a 1 Mb/s link before the server can answer it.
    expect(silenceAllowanceMs(15_000, 4 * 1024 * 1024)).toBeCloseTo(15_000 + 33_554, 0);
  });

  it('on a path that has shown its rate, allows an eighth of that rate, never less than 1 Mb/s', () => {
    // 155 Mb/s seen (19.4 bytes per ms): 2 MiB in flight is ~0.9 s more, not 17 s.
    expect(silenceAllowanceMs(9_000, 2 * 1024 * 1024, 155e6 / 8 / 1000)).toBeCloseTo(9_000 + (2 * 1024 * 1024) / (155e6 / 8 / 1000 / 8), 0);
    // A slow path's own rate never shortens the 1 Mb/s allowance.
    expect(silenceAllowanceMs(9_000, 1024 * 1024, 0.01)).toBeCloseTo(9_000 + (1024 * 1024) / 125, 0);
  });
});

describe('SmbConnection against servers that misbehave', () => {
  it('gives up on a server that accepts and then says nothing', async () => {
    const port = await listen(() => undefined);
    const started = Date.now();
    const error = await SmbSession.open({ host: '127.0.0.1', port, share: 's' }, { user: 'u', password: 'p' }, { silenceTimeoutMs: 600 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SmbError);
    expect((error as SmbError).kind).toBe('timeout');
    expect((error as SmbError).message).toMatch(/made no progress for 0\.[6-9] s/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('refuses a server that is not SMB2', async () => {
    const port = await listen((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const error = await SmbSession.open({ host: '127.0.0.1', port, share: 's' }, { user: 'u', password: 'p' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SmbError);
    expect(['protocol', 'connection-lost']).toContain((error as SmbError).kind);
  });
});
