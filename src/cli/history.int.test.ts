// `pipefill history` end to end: two real assessments against a private smbd
// are kept on their own and listed with their site; earlier reports import
// once however often they are given; two Pipefill processes importing at once
// into one store both land, on SQLite and on PostgreSQL.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCliCaptured } from '../test-support/cli-run.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSummarySchema, SiteTrendSchema } from '../contract/history.js';
import { PostgresServer, postgresBinDir } from '../lab/postgres.js';
import { SambaServer } from '../lab/samba.js';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { createLocalApi } from '../service/local-api.js';

const run = runCliCaptured;

const scratch = mkdtempSync(join(tmpdir(), 'pipefill-history-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const fixture = (name: string) => fileURLToPath(new URL(`../report/fixtures/${name}.json`, import.meta.url));
const FIXTURES = [fixture('lab-52mbit-75ms'), fixture('lab-155mbit-32ms')];

describe('pipefill history', () => {
  it('imports saved reports once however often they are given, lists, shows, trends, exports and deletes them', async () => {
    const store = join(scratch, 'imports.sqlite');
    const first = await run('history', 'import', ...FIXTURES, '--store', store);
    expect(first.code).toBe(0);
    expect(first.out).toBe('Imported 2 of 2 files.');
    const again = await run('history', 'import', ...FIXTURES, '--store', store);
    expect(again.out).toBe('Imported 0 of 2 files (2 already kept).');
    const bad = join(scratch, 'not-a-report.json');
    writeFileSync(bad, '{"hello": 1}');
    const mixed = await run('history', 'import', bad, join(scratch, 'missing.json'), '--store', store);
    expect(mixed.code).toBe(2);
    expect(mixed.err).toMatch(/2 files not imported:/);

    const listed = await run('history', 'list', '--json', '--store', store);
    const runs = RunSummarySchema.array().parse(JSON.parse(listed.out));
    expect(runs.map((r) => [r.site, r.kind])).toEqual([
      ['10.77.0.2/share', 'assessment'],
      ['10.77.0.2/share', 'assessment'],
    ]);
    const [newest, oldest] = runs;
    expect((await run('history', 'list', '--site', '\\\\10.77.0.2\\share', '--store', store)).out).toMatch(/\(2 in .*imports\.sqlite\)/);

    const trend = SiteTrendSchema.parse(JSON.parse((await run('history', 'trend', '--site', '//10.77.0.2/share', '--json', '--store', store)).out));
    expect(trend.runs).toBe(2);
    expect(trend.changes.join('; ')).toMatch(/bandwidth now .* Mb\/s, was/);
    expect((await run('history', 'trend', '--site', '//10.77.0.2/share', '--store', store)).out).toMatch(/Since the run before: .*round trip now/);

    // The run's own report, as saved: report export and compare read it as they read assess --out's file.
    const shownText = (await run('history', 'show', String(oldest?.id), '--json', '--store', store)).out;
    expect(JSON.parse(shownText)).toEqual(JSON.parse(readFileSync(FIXTURES[0] ?? '', 'utf8')));
    const shownFile = join(scratch, 'shown.json');
    writeFileSync(shownFile, shownText);
    expect((await run('report', 'export', shownFile, '--out', join(scratch, 'shown.html'))).code).toBe(0);
    expect(readFileSync(join(scratch, 'shown.html'), 'utf8')).toContain('Pipefill report: //10.77.0.2/share');
    const csv = (await run('history', 'export', '--format', 'csv', '--store', store)).out.trimEnd().split(/\r?\n/);
    expect(csv[0]).toBe('id,kind,site,share,started_at,ran_by,machine,saved_at,link_mbps,rtt_ms,readiness_met,headline');
    expect(csv).toHaveLength(3);
    const exported = join(scratch, 'export.json');
    expect((await run('history', 'export', '--out', exported, '--store', store)).err).toBe(`Wrote 2 runs to ${exported}`);
    expect(JSON.parse(readFileSync(exported, 'utf8')).map((stored: { summary: { id: number } }) => stored.summary.id)).toEqual(runs.map((r) => r.id));

    expect((await run('history', 'delete', String(newest?.id), '--store', store)).out).toBe(`Deleted run ${newest?.id}.`);
    const gone = await run('history', 'delete', String(newest?.id), '--store', store);
    expect(gone.code).toBe(2);
    expect(gone.err).toMatch(/no run \d+ in the history/);
    expect((await run('history', 'show', 'abc', '--store', store)).err).toMatch(/"abc" is not a run number/);
    expect((await run('history', 'frobnicate', '--store', store)).code).toBe(2);
  });

  it('a damaged store file gives a clear error and is left as it was', async () => {
    const store = join(scratch, 'damaged.sqlite');
    writeFileSync(store, 'not a database at all, and somebody may want it back');
    const result = await run('history', 'import', ...FIXTURES, '--store', store);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/is damaged or is not a database[\s\S]*hint: Nothing stored was changed/);
    expect(readFileSync(store, 'utf8')).toBe('not a database at all, and somebody may want it back');
  });
});

// One saved and one not: a second saved run of the same site is the store's to keep apart (store-suite.ts lists a
// site's runs on SQLite and PostgreSQL alike), and each quick loopback assessment here costs 9-14 s of the suite.
describe('an assessment, one with --no-history, then `pipefill history list --json`', () => {
  let samba: SambaServer;
  beforeAll(async () => {
    samba = await SambaServer.start();
  }, 60_000);
  afterAll(async () => {
    await samba?.stop();
  });

  it('lists the one saved without being asked, with its site, and not the one told not to', async () => {
    const store = join(scratch, 'assessments.sqlite');
    process.env.PIPEFILL_TEST_PASSWORD = samba.credentials.password;
    try {
      {
        const assessed = await run(
          'assess',
          '--share',
          `//127.0.0.1:${samba.port}/share`,
          '--user',
          samba.credentials.user,
          '--password-env',
          'PIPEFILL_TEST_PASSWORD',
          '--quick',
          '--profiles',
          'pipefill-max',
          '--server',
          'samba',
          '--store',
          store,
        );
        expect(assessed.code, assessed.err).toBe(0);
        expect(assessed.err).toMatch(/Saved to the site history as run \d+ \(.*assessments\.sqlite\)/);
        // The plan comes first, before any progress line; without a terminal nobody is asked.
        expect(assessed.err.split('\n')[0]).toMatch(
          /^Plan: Copies test files as Pipefill's best pipeline do: writes at most [\d.]+ [KMG]B and reads at most [\d.]+ [KMG]B in a scratch folder it makes in \\\\127\.0\.0\.1\\share and removes \(you need write access there\), loading the link for up to 20 s\. Where the share answers within 2 ms \(a LAN, or this machine\), up to [\d.]+ [KMG]B more each way, to time the two machines first\.$/,
        );
        expect(assessed.err).not.toMatch(/Go ahead/);
      }
      const noHistory = await run(
        'assess',
        '--share',
        `//127.0.0.1:${samba.port}/share`,
        '--user',
        samba.credentials.user,
        '--password-env',
        'PIPEFILL_TEST_PASSWORD',
        '--quick',
        '--profiles',
        'pipefill-max',
        '--server',
        'samba',
        '--no-history',
        '--store',
        store,
      );
      expect(noHistory.code).toBe(0);
      expect(noHistory.err).not.toMatch(/site history/);
    } finally {
      delete process.env.PIPEFILL_TEST_PASSWORD;
    }
    const runs = RunSummarySchema.array().parse(JSON.parse((await run('history', 'list', '--json', '--store', store)).out));
    expect(runs).toHaveLength(1);
    // The site is the server and the share: the port (the demo's changes run to run) is not part of it.
    expect(runs.every((r) => r.kind === 'assessment' && r.site === '127.0.0.1/share')).toBe(true);
    // The store holds no password: not the share's, in any byte of the file.
    const bytes = ['', '-wal'].map((suffix) => (existsSync(store + suffix) ? readFileSync(store + suffix).toString('latin1') : '')).join('');
    expect(bytes).not.toContain(samba.credentials.password);
  }, 180_000);
});

const cliEntry = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const built = existsSync(cliEntry);
if (!built) console.warn('SKIPPED: two processes importing at once need the built CLI (npm run build).');

/** Runs the built CLI; resolves with its exit code and output. Bounded: killed after 60 s. */
function cli(args: readonly string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...ENGINE_NODE_FLAGS, cliEntry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** Ten distinct reports per process (their start times differ), from the fixture. */
function reportFiles(prefix: string): string[] {
  const base = JSON.parse(readFileSync(FIXTURES[1] ?? '', 'utf8'));
  return Array.from({ length: 10 }, (_, index) => {
    const path = join(scratch, `${prefix}-${index}.json`);
    writeFileSync(path, JSON.stringify({ ...base, startedAt: `2026-0${prefix === 'a' ? 1 : 2}-${String(index + 10)}T08:00:00.000Z` }));
    return path;
  });
}

async function twoAtOnce(store: string): Promise<void> {
  const [a, b] = await Promise.all([
    cli(['history', 'import', ...reportFiles('a'), '--store', store]),
    cli(['history', 'import', ...reportFiles('b'), '--store', store]),
  ]);
  expect([a.code, b.code], `${a.err}\n${b.err}`).toEqual([0, 0]);
  expect([a.out.trim(), b.out.trim()]).toEqual(['Imported 10 of 10 files.', 'Imported 10 of 10 files.']);
  const listed = await cli(['history', 'list', '--json', '--store', store]);
  expect(RunSummarySchema.array().parse(JSON.parse(listed.out))).toHaveLength(20);
}

describe.skipIf(!built)('two Pipefill processes writing to one store at once', () => {
  it('on SQLite: both land', async () => {
    await twoAtOnce(join(scratch, 'two.sqlite'));
  }, 120_000);
});

const pgAvailable = postgresBinDir() !== undefined;
describe.skipIf(!pgAvailable)("a team's PostgreSQL store", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await PostgresServer.start();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('a command on the team store closes its connections when it ends, so the process exits at once', async () => {
    // Left open, node-postgres's idle connection kept every CLI process alive ten seconds after its answer.
    const store = server.createDatabase('closes');
    expect((await run('history', 'list', '--store', store)).code).toBe(0);
    const open = () => Number(server.psql('postgres', "SELECT count(*) FROM pg_stat_activity WHERE datname = 'closes'").trim());
    // A closed connection's backend leaves pg_stat_activity as it exits: at most 5 s here, half the 10 s an idle one stayed.
    for (let tries = 0; tries < 100 && open() > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(open()).toBe(0);
  });

  it.skipIf(!built)(
    'two processes writing at once: both land',
    async () => {
      await twoAtOnce(server.createDatabase('two_at_once'));
    },
    180_000,
  );

  it("the app's store setting moves the history to it, refuses an address with a password, and keeps the store it had when the new one cannot be used", async () => {
    const settingsFile = join(scratch, 'team-settings.json');
    const api = createLocalApi({ store: { kind: 'sqlite', path: join(scratch, 'before-the-team.sqlite') }, settingsFile });
    const report = JSON.parse(readFileSync(FIXTURES[0] ?? '', 'utf8'));
    expect((await api.historySave({ document: report })).created).toBe(true);
    const team = server.createDatabase('team');
    expect((await api.historyStore({ address: team })).where).toBe(team);
    expect((await api.historyList({})).runs).toEqual([]);
    const saved = await api.historySave({ document: report });
    expect(saved).toMatchObject({ created: true, where: team });
    await expect(api.historyStore({ address: team.replace('pipefill@', 'pipefill:hunter2@') })).rejects.toThrow(/Leave the password out of the address/);
    await expect(api.historyStore({ address: `postgres://pipefill@127.0.0.1:${server.port}/no_such_database` })).rejects.toMatchObject({
      kind: 'store-refused',
    });
    // Still the team's store.
    expect((await api.historyList({})).runs.map((run) => run.id)).toEqual([saved.id]);
    expect(server.psql('team', 'SELECT count(*) FROM runs').trim()).toBe('1');
    // Remembered by the services (not the refused ones): a new service opens the team's store from the start.
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toMatchObject({ teamStore: team });
    const next = createLocalApi({ settingsFile });
    expect((await next.historyList({})).where).toBe(team);
  }, 60_000);
});
