import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from '../test-support/cli-run.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PredictionResultSchema } from '../contract/scenario.js';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { PlanResultSchema } from '../contract/plan.js';

const run = runCliCaptured;

const scratch = mkdtempSync(join(tmpdir(), 'pipefill-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const XP_READ = ['--client', 'xp-smb1', '--server', 'netapp-tr3869', '--op', 'read', '--workload', 'file:100MB', '--bandwidth', 'OC3', '--rtt', '32ms'];

describe('pipefill predict', () => {
  it('prints a short aligned table with the limit and the explanation', async () => {
    const { code, out, err } = await run('predict', ...XP_READ);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/expected time\s+87 s/);
    expect(out).toMatch(/limited by\s+copy-pipeline/);
    expect(out).toMatch(/^> copy-pipeline\s+60 KiB\s+9\.24 Mb\/s$/m);
    expect(out).toMatch(/One 60 KiB request at a time/);
  });

  it('prints the documented JSON with --json', async () => {
    const { code, out } = await run('predict', ...XP_READ, '--json');
    expect(code).toBe(0);
    const result = PredictionResultSchema.parse(JSON.parse(out));
    expect(result.client).toBe('xp-smb1');
    expect(result.bandwidth).toBe('OC3');
    expect(result.limitedBy).toBe('copy-pipeline');
    expect(result.seconds).toBeGreaterThan(80);
    expect(result.bdpBytes).toBeCloseTo(622_080, 0);
  });

  it('answers a batch in the same order', async () => {
    const file = join(scratch, 'batch.json');
    const scenarios = [
      { client: 'win7-smb2', server: 'netapp-tr3869', op: 'write', workload: 'tr3869-dirset', bandwidth: 'GbE', rtt: '32ms' },
      { client: 'xp-smb1', server: 'samba', op: 'read', workload: 'file:32MiB', bandwidth: '52mbit', rtt: '75ms' },
    ];
    writeFileSync(file, JSON.stringify(scenarios));
    const { code, out } = await run('predict', '--batch', file, '--json');
    expect(code).toBe(0);
    const results = PredictionResultSchema.array().parse(JSON.parse(out));
    expect(results.map((r) => [r.client, r.workload])).toEqual(scenarios.map((s) => [s.client, s.workload]));
    expect(results[0]?.limitedBy).toBe('round-trips');
    const table = await run('predict', '--batch', file);
    expect(table.out.split('\n')).toHaveLength(3);
  });

  it('says which scenario of a batch is wrong and what the valid ids are', async () => {
    const file = join(scratch, 'bad-batch.json');
    writeFileSync(
      file,
      JSON.stringify([
        { client: 'win7-smb2', server: 'netapp-tr3869', op: 'read', workload: 'file:1MB', bandwidth: 'GbE', rtt: '32ms' },
        { client: 'win7-smb2', server: 'nas', op: 'read', workload: 'file:1MB', bandwidth: 'GbE', rtt: '32ms' },
      ]),
    );
    const { code, out, err } = await run('predict', '--batch', file);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/#2\.server/);
    expect(err).toMatch(/netapp-tr3869/);
  });

  it('refuses a batch far larger than any a person writes, without a stack', async () => {
    const file = join(scratch, 'huge-batch.json');
    writeFileSync(file, `[${'{},'.repeat(100_001)}{}]`);
    const { code, err } = await run('predict', '--batch', file);
    expect(code).toBe(2);
    expect(err).toMatch(/more than 100000/);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it('explains a batch file that is not JSON', async () => {
    const file = join(scratch, 'not-json.json');
    writeFileSync(file, '{client: win7');
    const { code, err } = await run('predict', '--batch', file);
    expect(code).toBe(2);
    expect(err).toMatch(/is not a JSON array of scenarios/);
    expect(err).toMatch(/hint: Expected \[\{"client"/);
  });

  it('names a missing option and gives an example', async () => {
    const { code, err } = await run('predict', '--client', 'xp-smb1');
    expect(code).toBe(2);
    expect(err).toMatch(/Missing --server/);
  });

  it('lists valid client ids for an unknown one', async () => {
    const { code, err } = await run('predict', ...XP_READ.map((arg) => (arg === 'xp-smb1' ? 'win95' : arg)));
    expect(code).toBe(2);
    expect(err).toMatch(/client: Invalid option: expected one of "xp-smb1"\|"win7-smb1"/);
  });

  it('refuses unknown options', async () => {
    const { code, err } = await run('predict', ...XP_READ, '--colour', 'red');
    expect(code).toBe(2);
    expect(err).toMatch(/--colour/);
  });
});

describe('pipefill plan', () => {
  it('plans the default branch link for every client generation', async () => {
    const { code, out } = await run('plan', '--json');
    expect(code).toBe(0);
    const plan = PlanResultSchema.parse(JSON.parse(out));
    expect(plan.link.preset).toBe('europe-continental');
    expect(plan.cells).toHaveLength(CLIENT_PROFILE_IDS.length * 2 * 2);
    expect(plan.refused).toEqual([]);
  });

  it('takes a custom link and prints a table', async () => {
    const { code, out } = await run('plan', '--bandwidth', '20mbit', '--rtt', '80ms', '--server', 'samba');
    expect(code).toBe(0);
    expect(out).toMatch(/^Custom link: 20 Mb\/s, 80 ms RTT, BDP 200 KB; server samba/);
    expect(out).toMatch(/Windows XP, SMB1/);
  });

  it('refuses an unknown preset and lists the valid ones', async () => {
    const { code, err } = await run('plan', '--preset', 'mars');
    expect(code).toBe(2);
    expect(err).toMatch(/europe-continental/);
  });
});

describe('pipefill probe and assess', () => {
  it.each(['probe', 'assess'])('%s refuses a bad --iperf before asking for a password', async (command) => {
    const { code, err } = await run(command, '--share', '//fs01/projects', '--user', 'alice', '--iperf', 'fs01:abc');
    expect(code).toBe(2);
    expect(err).toMatch(/"fs01:abc" is not a host or host:port/);
  });

  it.each(['probe', 'assess', 'copy-test'])('%s refuses a bad --signing, and --encrypt with --no-encrypt, before asking for a password', async (command) => {
    const login = ['--share', '//fs01/projects', '--user', 'alice'];
    const bad = await run(command, ...login, '--signing', 'sometimes');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--signing must be auto or required, not "sometimes"/);
    const both = await run(command, ...login, '--encrypt', '--no-encrypt');
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--encrypt and --no-encrypt contradict each other/);
  });
});

describe('pipefill help and unknown commands', () => {
  it('prints usage', async () => {
    const { code, out } = await run('help');
    expect(code).toBe(0);
    expect(out).toMatch(/pipefill predict --client/);
  });
  it("prints a command's usage with --help", async () => {
    const { code, out } = await run('predict', '--help');
    expect(code).toBe(0);
    expect(out).toMatch(/^pipefill predict --client <id>/);
  });
  it('refuses an unknown command in two lines, with the one probably meant', async () => {
    const { code, err } = await run('frobnicate');
    expect(code).toBe(2);
    expect(err.trim()).toBe('error: unknown command "frobnicate"\nhint: pipefill help lists the commands.');
    expect((await run('asess')).err).toMatch(/^error: unknown command "asess" \(did you mean assess\?\)$/m);
  });

  it('refuses an unknown option in one line, naming the one probably meant, and points to --help', async () => {
    const { code, err } = await run('probe', '--share', '//fs01/projects', '--bandwith', '100');
    expect(code).toBe(2);
    expect(err.trim()).toBe('error: Unknown option --bandwith.\nhint: pipefill probe --help lists its options.');
    const typo = await run('assess', '--share', '//fs01/projects', '--budjet', '30');
    expect(typo.err).toMatch(/^error: Unknown option --budjet \(did you mean --budget\?\)\.$/m);
    expect(typo.err.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('sends a password on the command line to --password-env, and says what an option lacks', async () => {
    const password = await run('copy-test', '--share', '//fs01/projects', '--user', 'alice', '--password', 'hunter2');
    expect(password.code).toBe(2);
    expect(password.err).toMatch(/takes no password on the command line/);
    expect(password.err).toMatch(/--password-env VAR/);
    expect(password.err).not.toContain('hunter2');
    expect((await run('assess', '--share')).err).toMatch(/^error: --share needs a value\.$/m);
    expect((await run('profiles', '--json=yes')).err).toMatch(/^error: --json takes no value\.$/m);
  });
});

describe('a PIPEFILL_STORE that names no store Pipefill knows', () => {
  it('fails the history commands with a clear error and leaves every other command alone', async () => {
    const before = process.env.PIPEFILL_STORE;
    process.env.PIPEFILL_STORE = 'mysql://team@db.example/pipefill';
    try {
      expect((await run('predict', ...XP_READ)).code).toBe(0);
      const listed = await run('history', 'list');
      expect(listed.code).toBe(2);
      expect(listed.err).toMatch(/mysql:\/\/ is not a store Pipefill knows/);
    } finally {
      if (before === undefined) delete process.env.PIPEFILL_STORE;
      else process.env.PIPEFILL_STORE = before;
    }
  });
});

describe('--store', () => {
  it('is taken out of any command line, in either form, and needs a value', async () => {
    const { takeStoreOption } = await import('./main.js');
    expect(takeStoreOption(['history', 'list', '--store', '/tmp/h.sqlite', '--json'])).toEqual({ store: '/tmp/h.sqlite', args: ['history', 'list', '--json'] });
    expect(takeStoreOption(['--store=postgres://team@db/p', 'list'])).toEqual({ store: 'postgres://team@db/p', args: ['list'] });
    expect(takeStoreOption(['import', '--', '--store', 'x.json'])).toEqual({ store: undefined, args: ['import', '--', '--store', 'x.json'] });
    expect(() => takeStoreOption(['list', '--store'])).toThrow(/--store needs a value/);
    expect(() => takeStoreOption(['list', '--store', '--json'])).toThrow(/--store needs a value/);
  });

  it('refuses an address with a password in it, on the command line or in PIPEFILL_STORE (issue 35, item 10)', async () => {
    for (const address of ['postgres://team:hunter2@127.0.0.1:1/p', 'postgres://team@127.0.0.1:1/p?pass%77ord=hunter2']) {
      const { code, err } = await run('history', 'list', '--store', address);
      expect(code).toBe(2);
      expect(err).toMatch(/^error: Leave the password out of the store address\.$/m);
      expect(err).not.toContain('hunter2');
    }
    const { parseStoreSpec } = await import('../store/open-store.js');
    expect(() => parseStoreSpec(undefined, { PIPEFILL_STORE: 'postgresql://team:x@db/p' })).toThrow(/Leave the password out/);
  });
});

describe('a report for a ticket, and its recommendations', () => {
  const fixture = new URL('../report/fixtures/lab-52mbit-75ms.json', import.meta.url).pathname;

  it('report summary: the verdict and the fix in at most fifteen plain lines', async () => {
    const { code, out, err } = await run('report', 'summary', fixture);
    expect(code).toBe(0);
    expect(err).toBe('');
    const lines = out.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(15);
    expect(lines[0]).toMatch(/^Pipefill: copies to \/\/10\.77\.0\.2\/share, 2026-11-22 \d\d:\d\d UTC, as pipefill$/);
    expect(out).toMatch(/^Your copies with Windows 10\/11, SMB 2\.1, unsigned: /m);
    expect(out).toMatch(/^What holds them back: Round trips/m);
    expect(out).toMatch(/^Your PC: Set robocopy \/MT:n to \d+ in the copy tool: then .*\. Command: robocopy <source> <destination> \/E \/MT:\d+$/m);
  });

  it('recommend --report takes the client and the server from the report', async () => {
    const { code, out } = await run('recommend', '--report', fixture);
    expect(code).toBe(0);
    expect(out).toMatch(/^Path 51\.7 Mb\/s, 75\.9 ms; client win10-smb3, server samba$/m);
  });

  it('recommend without a report names what it needs', async () => {
    const { code, err } = await run('recommend', '--bandwidth', '10mbit', '--rtt', '40ms');
    expect(code).toBe(2);
    expect(err).toMatch(/^error: Without a report, name the client and the server: --client win11-24h2 --server samba\.$/m);
  });

  it('assess refuses --profiles beside --client or --compare, before any password is asked', async () => {
    const { code, err } = await run('assess', '--share', '//127.0.0.1/x', '--user', 'u', '--profiles', 'win10-smb3', '--compare', 'all');
    expect(code).toBe(2);
    expect(err).toMatch(/Give --profiles, or --client with --compare, not both\./);
    const unknown = await run('assess', '--share', '//127.0.0.1/x', '--user', 'u', '--client', 'win12');
    expect(unknown.err).toMatch(/Unknown --client profile "win12"/);
  });
});
