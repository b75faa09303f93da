// Applying and rolling back for real: TCP sysctls inside a network namespace
// the test makes (the net.ipv4 TCP sysctls are per namespace, so the host is
// untouched), and a test smbd whose smb.conf is edited, reloaded, checked
// with testparm and a new session, and restored byte for byte.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recommendFromInput } from '../contract/recommend.js';
import { runCli } from '../cli/main.js';
import type { Output } from '../cli/output.js';
import { SambaServer } from '../lab/samba.js';
import { runCopyTest } from '../copy/copy-test.js';
import { parseTestparmGlobals, testparm } from './current-values.js';

const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const canUseNamespaces =
  process.platform === 'linux' && process.getuid?.() === 0 && ['/usr/sbin/ip', '/usr/bin/ip', '/sbin/ip'].some((path) => existsSync(path));
if (!canUseNamespaces) console.warn('SKIPPED: the sysctl apply tests need Linux, root and iproute2.');

function capture(): Output & { text: () => string } {
  let text = '';
  return { out: (t) => (text += `${t}\n`), err: (t) => (text += `${t}\n`), text: () => text };
}

describe.skipIf(!canUseNamespaces)('apply --target linux, inside a network namespace', () => {
  const namespace = `pf-apply-${randomBytes(3).toString('hex')}`;
  let dir: string;
  const inNs = (args: string[]) => spawnSync('ip', ['netns', 'exec', namespace, ...args], { encoding: 'utf8', timeout: 60_000 });
  // tcp_wmem: the send buffer a Linux client's writes need on a long fat path (reads are held by Samba's own window).
  const wmem = () => inNs(['cat', '/proc/sys/net/ipv4/tcp_wmem']).stdout.trim().replace(/\s+/g, ' ');
  const hostWmem = () => readFileSync('/proc/sys/net/ipv4/tcp_wmem', 'utf8').trim().replace(/\s+/g, ' ');
  const pipefill = (args: string[]) => inNs([process.execPath, cli, ...args]);

  beforeAll(() => {
    expect(spawnSync('ip', ['netns', 'add', namespace]).status).toBe(0);
    dir = mkdtempSync(join(tmpdir(), 'pipefill-apply-'));
    // Readable by the unprivileged user of the last test.
    chmodSync(dir, 0o755);
    // Recommendations for a long fat path, for a Linux client with this namespace's defaults.
    const result = recommendFromInput({
      bandwidth: '1gbit',
      rtt: '100ms',
      client: 'linux-cifs',
      server: 'samba',
      current: { 'linux.tcp-wmem': Number(wmem().split(' ')[2]) },
    });
    expect(result.recommendations.map((r) => r.id)).toContain('linux.tcp-wmem');
    writeFileSync(join(dir, 'rec.json'), JSON.stringify(result), { mode: 0o644 });
  });
  afterAll(() => {
    spawnSync('ip', ['netns', 'del', namespace]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('previews, applies live and to a file, and rolls back to the exact previous state', () => {
    const before = wmem();
    const host = hostWmem();
    const conf = join(dir, '90-pipefill.conf');
    const common = ['--target', 'linux', '--sysctl-conf', conf, '--state-dir', join(dir, 'state')];
    const dry = pipefill(['apply', ...common, '--from', join(dir, 'rec.json'), '--dry-run']);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/net\.ipv4\.tcp_wmem: \d+ \d+ \d+ -> \d+ \d+ \d+/);
    expect(wmem()).toBe(before);
    const applied = pipefill(['apply', ...common, '--from', join(dir, 'rec.json'), '--yes', '--json']);
    expect(applied.status, applied.stderr).toBe(0);
    const outcome = JSON.parse(applied.stdout) as { verified: boolean; preview: { changes: { name: string; to: string }[] } };
    expect(outcome.verified).toBe(true);
    const change = outcome.preview.changes.find((c) => c.name === 'net.ipv4.tcp_wmem');
    expect(wmem()).toBe(change?.to);
    expect(readFileSync(conf, 'utf8')).toContain(`net.ipv4.tcp_wmem = ${change?.to}`);
    expect(hostWmem()).toBe(host);
    // Applying again changes nothing (and keeps the first backup).
    expect(pipefill(['apply', ...common, '--from', join(dir, 'rec.json'), '--yes']).stdout).toMatch(/Nothing to change/);
    const rolled = pipefill(['apply', '--rollback', ...common, '--yes']);
    expect(rolled.status, rolled.stderr).toBe(0);
    expect(wmem()).toBe(before);
    expect(existsSync(conf)).toBe(false);
  });

  it('restores an existing file byte for byte', () => {
    const conf = join(dir, 'existing.conf');
    const original = '# mine\nnet.ipv4.tcp_wmem = 4096 16384 4194304\n\n';
    writeFileSync(conf, original);
    const common = ['--target', 'linux', '--sysctl-conf', conf, '--state-dir', join(dir, 'state')];
    expect(pipefill(['apply', ...common, '--from', join(dir, 'rec.json'), '--yes']).status).toBe(0);
    expect(readFileSync(conf, 'utf8')).not.toBe(original);
    expect(pipefill(['apply', '--rollback', ...common, '--yes']).status).toBe(0);
    expect(readFileSync(conf)).toEqual(Buffer.from(original));
  });

  it('rolls back what it did when a step fails, and says so', () => {
    const before = wmem();
    const run = pipefill([
      'apply',
      '--target',
      'linux',
      '--sysctl-conf',
      join(dir, 'no-such-dir', 'x.conf'),
      '--state-dir',
      join(dir, 'state'),
      '--from',
      join(dir, 'rec.json'),
      '--yes',
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/rolled back/);
    expect(wmem()).toBe(before);
  });

  it('asks for root rather than assuming it', () => {
    const run = inNs([
      'setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      process.execPath,
      cli,
      'apply',
      '--target',
      'linux',
      '--sysctl-conf',
      join(dir, 'x.conf'),
      '--state-dir',
      join(dir, 'nobody-state'),
      '--from',
      join(dir, 'rec.json'),
      '--yes',
    ]);
    expect(run.stderr).toMatch(/needs root[\s\S]*sudo/);
  });
});

describe.skipIf(!existsSync('/usr/sbin/smbd'))('apply --target samba, on a test smbd', () => {
  let server: SambaServer;
  let dir: string;
  beforeAll(async () => {
    server = await SambaServer.start({ maxCredits: 16, socketOptions: 'TCP_NODELAY SO_RCVBUF=65536' });
    dir = mkdtempSync(join(tmpdir(), 'pipefill-apply-samba-'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `pipefill recommend ... --server samba --smb-conf` the test server's smb.conf, as JSON, kept in `file` for --from. */
  const recommendFor = async (link: readonly string[], file: string) => {
    const recommend = capture();
    expect(await runCli(['recommend', ...link, '--server', 'samba', '--smb-conf', server.configFile, '--json'], recommend)).toBe(0);
    writeFileSync(join(dir, file), recommend.text());
    return recommend;
  };

  it('edits smb.conf after testparm approves, reloads smbd, and a new session sees it; rollback is byte-identical', async () => {
    const original = readFileSync(server.configFile);
    const creditsBefore = (
      await runCopyTest({ share: server.share, credentials: server.credentials, profile: 'pipefill-max', op: 'read', workload: 'file:8MiB', verify: false })
    ).negotiated.creditsGrantedMax;
    // What the client holds at once depends on timing: smbd grants up to 16 in a reply while
    // earlier requests still hold theirs, and interim replies add more when the machine is busy
    // (up to 32 on a quiet one, 40 beside a busy suite). So the limit is judged by what the
    // setting changes, below: the same copy after the apply holds several times as many.

    const recommend = await recommendFor(['--bandwidth', '155mbit', '--rtt', '75ms', '--client', 'win10-smb3'], 'rec.json');
    const ids = (JSON.parse(recommend.text()) as { recommendations: { id: string }[] }).recommendations.map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining(['samba.smb2-max-credits', 'samba.socket-options']));

    const applied = capture();
    expect(
      await runCli(
        ['apply', '--target', 'samba', '--smb-conf', server.configFile, '--from', join(dir, 'rec.json'), '--state-dir', join(dir, 'state'), '--yes'],
        applied,
      ),
      applied.text(),
    ).toBe(0);
    expect(applied.text()).toMatch(/Applied and read back/);
    const globals = parseTestparmGlobals(testparm(server.configFile));
    expect(Number(globals.get('smb2 max credits'))).toBeGreaterThan(16);
    expect(globals.get('socket options')).toBe('TCP_NODELAY');
    // smbd reloaded: a new session gets the new grant.
    const creditsAfter = (
      await runCopyTest({ share: server.share, credentials: server.credentials, profile: 'pipefill-max', op: 'read', workload: 'file:8MiB', verify: false })
    ).negotiated.creditsGrantedMax;
    console.log(`apply --target samba: credits held at once ${creditsBefore} before, ${creditsAfter} after`);
    expect(creditsAfter).toBeGreaterThanOrEqual(64);
    expect(creditsAfter).toBeGreaterThan(creditsBefore);

    const rolled = capture();
    expect(
      await runCli(['apply', '--rollback', '--target', 'samba', '--smb-conf', server.configFile, '--state-dir', join(dir, 'state'), '--yes'], rolled),
      rolled.text(),
    ).toBe(0);
    expect(readFileSync(server.configFile)).toEqual(original);
    expect(parseTestparmGlobals(testparm(server.configFile)).get('smb2 max credits')).toBe('16');
  }, 60_000);

  it('keeps one backup per file however it is spelt: a second apply through another spelling is refused, a rollback through a link restores', async () => {
    const original = readFileSync(server.configFile);
    const recommend = await recommendFor(['--bandwidth', '155mbit', '--rtt', '75ms', '--client', 'win10-smb3'], 'spellings.json');
    const state = join(dir, 'spellings-state');
    // Three names of one file: as typed, with a `.` in it (not normalised by path.join), and a link to it.
    const dotted = `${server.root}/./${basename(server.configFile)}`;
    const link = join(dir, 'link-to-smb.conf');
    symlinkSync(server.configFile, link);
    const apply = (smbConf: string, extra: string[] = []) => {
      const output = capture();
      return runCli(['apply', '--target', 'samba', '--smb-conf', smbConf, '--state-dir', state, '--yes', ...extra], output).then((code) => ({
        code,
        text: output.text(),
      }));
    };
    const first = await apply(server.configFile, ['--from', join(dir, 'spellings.json')]);
    expect(first.code, first.text).toBe(0);
    const afterFirst = readFileSync(server.configFile);
    // A second change to the same file (as the issue found: credits 16 -> 256, then 256 -> 7168), through another spelling.
    const more = JSON.parse(recommend.text()) as { recommendations: { id: string; value: unknown }[] };
    for (const r of more.recommendations) if (r.id === 'samba.smb2-max-credits') r.value = 7168;
    writeFileSync(join(dir, 'spellings-more.json'), JSON.stringify(more));
    const second = await apply(dotted, ['--from', join(dir, 'spellings-more.json')]);
    expect(second.code, second.text).not.toBe(0);
    expect(second.text).toMatch(/A backup of an earlier apply is still there/);
    expect(readFileSync(server.configFile)).toEqual(afterFirst);
    const rolled = await apply(link, ['--rollback']);
    expect(rolled.code, rolled.text).toBe(0);
    expect(readFileSync(server.configFile)).toEqual(original);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const again = await apply(dotted, ['--rollback']);
    expect(again.text).toMatch(/nothing to roll back/);
    expect(readFileSync(server.configFile)).toEqual(original);
  }, 60_000);

  it('applies signing and encryption only when asked (--include-protection), and a new session is sealed; rollback is byte-identical', async () => {
    const original = readFileSync(server.configFile);
    const recommend = await recommendFor(['--bandwidth', '1gbit', '--rtt', '1ms', '--client', 'win11-24h2'], 'protect.json');
    const result = JSON.parse(recommend.text()) as { recommendations: { id: string }[]; protections: { id: string; value: unknown; why: string }[] };
    // Listed apart, with their cost, at their strongest; never among the speed recommendations.
    expect(result.protections.map((p) => [p.id, p.value])).toEqual(
      expect.arrayContaining([
        ['samba.server-signing', 'required'],
        ['samba.server-smb-encrypt', 'required'],
      ]),
    );
    expect(result.protections.find((p) => p.id === 'samba.server-smb-encrypt')?.why).toMatch(/protects the data against eavesdropping/);
    expect(result.recommendations.map((r) => r.id)).not.toContain('samba.server-smb-encrypt');

    // Without --include-protection, apply leaves them alone.
    const state = join(dir, 'state-protect');
    const without = capture();
    expect(
      await runCli(
        ['apply', '--target', 'samba', '--smb-conf', server.configFile, '--from', join(dir, 'protect.json'), '--state-dir', state, '--dry-run'],
        without,
      ),
    ).toBe(0);
    expect(without.text()).not.toMatch(/server smb encrypt/);

    const applied = capture();
    expect(
      await runCli(
        [
          'apply',
          '--target',
          'samba',
          '--smb-conf',
          server.configFile,
          '--from',
          join(dir, 'protect.json'),
          '--include-protection',
          '--state-dir',
          state,
          '--yes',
        ],
        applied,
      ),
      applied.text(),
    ).toBe(0);
    expect(applied.text()).toMatch(/server smb encrypt: default -> required/);
    const globals = parseTestparmGlobals(testparm(server.configFile));
    expect(globals.get('server signing')).toBe('required');
    expect(globals.get('server smb encrypt')).toBe('required');
    // smbd reloaded: a new session is encrypted because the server requires it.
    const sealed = await runCopyTest({
      share: server.share,
      credentials: server.credentials,
      profile: 'pipefill-max',
      op: 'read',
      workload: 'file:4MiB',
      verify: false,
    });
    expect(sealed.negotiated.encryption).toBe('AES-128-GCM');
    expect(sealed.negotiated.encryptionRequiredBy).toBe('server');

    const rolled = capture();
    expect(
      await runCli(['apply', '--rollback', '--target', 'samba', '--smb-conf', server.configFile, '--state-dir', state, '--yes'], rolled),
      rolled.text(),
    ).toBe(0);
    expect(readFileSync(server.configFile)).toEqual(original);
    const plain = await runCopyTest({
      share: server.share,
      credentials: server.credentials,
      profile: 'pipefill-max',
      op: 'read',
      workload: 'file:4MiB',
      verify: false,
    });
    expect(plain.negotiated.encryption ?? null).toBeNull();
  }, 60_000);

  it('refuses an edit testparm rejects, and leaves the file alone', async () => {
    const original = readFileSync(server.configFile);
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({
        ...recommendFromInput({ bandwidth: '155mbit', rtt: '75ms', client: 'win10-smb3', server: 'samba', current: { 'samba.smb2-max-credits': 16 } }),
      }),
    );
    // A hand-edited recommendation with a value smbd cannot parse.
    const bad = JSON.parse(readFileSync(join(dir, 'bad.json'), 'utf8')) as { recommendations: { id: string; value: unknown }[] };
    for (const r of bad.recommendations) if (r.id === 'samba.smb2-max-credits') r.value = 'lots';
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
    const out = capture();
    expect(
      await runCli(
        ['apply', '--target', 'samba', '--smb-conf', server.configFile, '--from', join(dir, 'bad.json'), '--state-dir', join(dir, 'state2'), '--yes'],
        out,
      ),
    ).not.toBe(0);
    expect(readFileSync(server.configFile)).toEqual(original);
  });

  it('never writes a value that carries a new section into smb.conf, even one testparm would accept', async () => {
    const original = readFileSync(server.configFile);
    const recommended = recommendFromInput({
      bandwidth: '155mbit',
      rtt: '75ms',
      client: 'win10-smb3',
      server: 'samba',
      current: { 'samba.socket-options': 'SO_RCVBUF=65536' },
    });
    const hostile = {
      ...recommended,
      recommendations: recommended.recommendations.map((r) =>
        r.id === 'samba.socket-options' ? { ...r, value: 'TCP_NODELAY\n[evil]\n path = /\n guest ok = yes' } : r,
      ),
    };
    expect(hostile.recommendations.some((r) => r.id === 'samba.socket-options')).toBe(true);
    writeFileSync(join(dir, 'evil.json'), JSON.stringify(hostile));
    const out = capture();
    expect(
      await runCli(
        ['apply', '--target', 'samba', '--smb-conf', server.configFile, '--from', join(dir, 'evil.json'), '--state-dir', join(dir, 'state3'), '--yes'],
        out,
      ),
    ).toBe(2);
    expect(out.text()).toMatch(/socket options value|control characters/);
    expect(readFileSync(server.configFile)).toEqual(original);
    expect(testparm(server.configFile)).not.toMatch(/\[evil\]/);
    expect(existsSync(join(dir, 'state3'))).toBe(false);
  });
});
