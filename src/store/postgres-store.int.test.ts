// The history store's suite on a PostgreSQL server the test starts itself
// (Debian's binaries, a private data directory, a free port), a new database
// per case; and what only a server can do: hold a lock, be away.

import { spawnSync } from 'node:child_process';
import type { Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../lab/samba.js';
import { PostgresServer, postgresBinDir } from '../lab/postgres.js';
import { openPostgresStore, postgresSql, redactedAddress } from './postgres-store.js';
import { fixtureReport, historyStoreSuite } from '../test-support/store-suite.js';
import { siteTrend } from '../presentation/site-trend.js';

const available = postgresBinDir() !== undefined;
if (!available) console.warn("SKIPPED: the PostgreSQL store tests need Debian's postgresql package.");

let server: PostgresServer | undefined;
let databases = 0;
beforeAll(async () => {
  if (available) server = await PostgresServer.start();
}, 120_000);
afterAll(async () => {
  await server?.stop();
}, 60_000);

/** A relay to the test server that, on cue, stops passing bytes either way while keeping every connection open (a stalled server, a VPN gone quiet). */
async function stallingRelay(port: number): Promise<{ port: number; stall: () => void; close: () => Promise<void> }> {
  let stalled = false;
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => stalled || upstream.write(chunk));
    upstream.on('data', (chunk) => stalled || client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    stall: () => {
      stalled = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}

function newDatabase(): { url: string; name: string } {
  if (!server) throw new Error('no PostgreSQL server');
  const name = `history_${++databases}`;
  return { url: server.createDatabase(name), name };
}

describe.skipIf(!available)('PostgreSQL', () => {
  historyStoreSuite({
    name: 'PostgreSQL',
    fresh: async () => {
      const { url, name } = newDatabase();
      return {
        store: () => openPostgresStore(url),
        raw: async () => postgresSql(url),
        everything: async () => {
          const bin = postgresBinDir() ?? '';
          const dump = spawnSync(join(bin, 'pg_dump'), ['--data-only', '-h', '127.0.0.1', '-p', String(server?.port), '-U', 'pipefill', name], {
            encoding: 'utf8',
            timeout: 60_000,
          });
          if (dump.status !== 0) throw new Error(dump.stderr);
          return dump.stdout;
        },
      };
    },
  });

  const by = { ranBy: 'ann', machine: 'helpdesk-07' };

  it('a server that stalls after the store opened fails each history call as unreachable within the query timeout, and closing does not hang (issue 35, item 5)', async () => {
    const { url } = newDatabase();
    const relay = await stallingRelay(server?.port ?? 0);
    try {
      const store = await openPostgresStore(url.replace(`:${server?.port}/`, `:${relay.port}/`), { queryTimeoutMs: 1_500 });
      await store.save({ kind: 'assessment', report: fixtureReport('lab-52mbit-75ms') }, by);
      relay.stall();
      for (const call of [
        () => store.list(),
        () => store.siteTrendData('//10.77.0.2/share').then(siteTrend),
        () => store.save({ kind: 'assessment', report: fixtureReport('lab-155mbit-32ms') }, by),
      ]) {
        const started = performance.now();
        await expect(call()).rejects.toMatchObject({ storeKind: 'store-unreachable' });
        expect(performance.now() - started).toBeLessThan(5_000);
      }
      const closing = performance.now();
      await store.close();
      expect(performance.now() - closing).toBeLessThan(3_000);
    } finally {
      await relay.close();
    }
  }, 30_000);

  it('a save that cannot get the lock another session holds fails clearly after the wait; what is stored stays', async () => {
    const { url } = newDatabase();
    const store = await openPostgresStore(url, { lockTimeoutMs: 300 });
    const { id } = await store.save({ kind: 'assessment', report: fixtureReport('lab-52mbit-75ms') }, by);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
      await expect(store.save({ kind: 'assessment', report: fixtureReport('lab-155mbit-32ms') }, by)).rejects.toMatchObject({ storeKind: 'store-locked' });
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    expect((await store.list()).map((run) => run.id)).toEqual([id]);
    await store.close();
  });

  const canMount = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/unshare') && existsSync('/usr/bin/setpriv');
  it.skipIf(!canMount)(
    'a store whose disk is full refuses the run that does not fit, clearly, and keeps every run before it',
    async () => {
      // Its tables live in a tablespace on a 512 KiB tmpfs that only this server sees.
      const small = await PostgresServer.start({ smallDiskBytes: 512 * 1024 });
      try {
        small.psql('postgres', `CREATE TABLESPACE small LOCATION '${small.smallDisk}'`);
        const url = small.createDatabase('full_disk');
        small.psql('full_disk', 'ALTER DATABASE full_disk SET default_tablespace = small');
        const store = await openPostgresStore(url);
        const base = fixtureReport('lab-52mbit-75ms');
        const saved: number[] = [];
        let refused: unknown;
        try {
          // Bounded: at most 400 runs (each takes tens of KiB of the 512).
          for (let index = 0; index < 400 && refused === undefined; index++) {
            const report = { ...base, startedAt: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString() };
            await store.save({ kind: 'assessment', report }, by).then(
              (result) => saved.push(result.id),
              (error: unknown) => (refused = error),
            );
          }
          expect(refused).toMatchObject({ storeKind: 'store-full', hint: expect.stringMatching(/^Nothing stored was changed/) });
          expect(saved.length).toBeGreaterThan(0);
          expect((await store.list()).map((run) => run.id).sort((a, b) => a - b)).toEqual(saved);
          expect((await store.get(saved[0] ?? 0))?.report?.probes).toEqual(base.probes);
        } finally {
          await store.close();
        }
      } finally {
        await small.stop();
      }
    },
    120_000,
  );

  it('a server that is not there is named without the password in the address', async () => {
    const port = await freePort();
    const url = `postgres://team:s3cret-pass@127.0.0.1:${port}/history`;
    const error = await openPostgresStore(url).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error).toMatchObject({ storeKind: 'store-unreachable' });
    expect(`${error?.message} ${(error as { hint?: string })?.hint}`).not.toContain('s3cret');
    expect(redactedAddress(url)).toBe(`postgres://team:***@127.0.0.1:${port}/history`);
    expect(redactedAddress('postgres://team@db.example/history?password=s3cret&sslmode=require')).toBe(
      'postgres://team@db.example/history?password=***&sslmode=require',
    );
  });
});
