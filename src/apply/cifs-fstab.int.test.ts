// Applying cifs mount options to a mount table for real: the CLI edits a
// table of the test's own, util-linux's findmnt checks it, the options read
// back, and a rollback restores it byte for byte. (The mount itself is not
// remounted: Pipefill never unmounts a share under a user.)

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main.js';
import type { Output } from '../cli/output.js';
import { editMountOptions, fstabEscape, parseOptions } from './cifs-fstab.js';

function capture(): Output & { text: () => string } {
  let text = '';
  return { out: (t) => (text += `${t}\n`), err: (t) => (text += `${t}\n`), text: () => text };
}

const TABLE = [
  '# /etc/fstab: static file system information.',
  'UUID=0a1b2c3d /               ext4    errors=remount-ro 0       1',
  '//files.example.com/Projects  /mnt/Projects\\040Share  cifs  credentials=/root/.smbcred,vers=3.1.1,uid=1000  0  0',
  '//files.example.com/home  /mnt/home  cifs  credentials=/root/.smbcred  0  0',
  '',
].join('\n');

describe('editMountOptions', () => {
  it('sets flags and values on the one line, leaving the rest of the table as it was', () => {
    const edited = editMountOptions(TABLE, '/mnt/Projects Share', [
      ['multichannel', true],
      ['max_channels', '4'],
      ['seal', true],
    ]);
    expect(edited.after).toBe('credentials=/root/.smbcred,vers=3.1.1,uid=1000,multichannel,max_channels=4,seal');
    const before = TABLE.split('\n');
    const after = edited.text.split('\n');
    expect(after.filter((_, i) => i !== 2)).toEqual(before.filter((_, i) => i !== 2));
    expect(parseOptions(after[2]?.split(/\s+/)[3] ?? '').get('max_channels')).toBe('4');
    // Removing multichannel takes both options away.
    expect(
      editMountOptions(edited.text, '/mnt/Projects Share', [
        ['multichannel', null],
        ['max_channels', null],
      ]).after,
    ).toBe('credentials=/root/.smbcred,vers=3.1.1,uid=1000,seal');
  });

  it('refuses what it cannot place safely: no such mount, two lines, a value with a separator', () => {
    expect(() => editMountOptions(TABLE, '/mnt/nope', [['seal', true]])).toThrow(/No cifs mount of \/mnt\/nope/);
    expect(() => editMountOptions(`${TABLE}//other/home /mnt/home cifs defaults 0 0\n`, '/mnt/home', [['seal', true]])).toThrow(/2 cifs lines/);
    expect(() => editMountOptions(TABLE, '/mnt/home', [['rsize', '1,uid=0']])).toThrow(/Refusing/);
    expect(() => editMountOptions(TABLE, '/mnt/home', [['rsize', '1\n/dev/sda /']])).toThrow(/Refusing/);
    expect(fstabEscape('/a b\\c')).toBe('/a\\040b\\134c');
  });
});

describe.skipIf(spawnSync('findmnt', ['--version']).status !== 0)('apply --target fstab', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pipefill-fstab-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('previews, checks with findmnt, applies multichannel and (only when asked) seal, and rolls back byte for byte', async () => {
    const table = join(dir, 'fstab');
    writeFileSync(table, TABLE, { mode: 0o644 });
    // Loss holds one TCP connection back: more channels help; seal is protection, listed apart.
    const recommend = capture();
    expect(
      await runCli(
        ['recommend', '--bandwidth', '1gbit', '--rtt', '30ms', '--loss', '0.1%', '--client', 'linux-cifs', '--server', 'samba', '--json'],
        recommend,
      ),
      recommend.text(),
    ).toBe(0);
    const result = JSON.parse(recommend.text()) as { recommendations: { id: string; value: unknown }[]; protections: { id: string }[] };
    expect(result.recommendations.find((r) => r.id === 'linux.cifs-multichannel')?.value).toBe(4);
    expect(result.protections.map((p) => p.id)).toContain('linux.cifs-seal');
    writeFileSync(join(dir, 'rec.json'), recommend.text());
    const common = [
      '--target',
      'fstab',
      '--fstab',
      table,
      '--mount-point',
      '/mnt/Projects Share',
      '--from',
      join(dir, 'rec.json'),
      '--state-dir',
      join(dir, 'state'),
    ];

    const dry = capture();
    expect(await runCli(['apply', ...common, '--dry-run'], dry), dry.text()).toBe(0);
    expect(dry.text()).toMatch(/multichannel,max_channels: credentials=\/root\/\.smbcred,vers=3\.1\.1,uid=1000 -> .*multichannel,max_channels=4/);
    expect(dry.text()).not.toMatch(/seal/);
    expect(readFileSync(table, 'utf8')).toBe(TABLE);

    const applied = capture();
    expect(await runCli(['apply', ...common, '--include-protection', '--yes'], applied), applied.text()).toBe(0);
    expect(applied.text()).toMatch(/Applied and read back/);
    expect(applied.text()).toMatch(/next mounted/);
    const line = readFileSync(table, 'utf8').split('\n')[2] ?? '';
    expect(line.split(/\s+/)[3]).toBe('credentials=/root/.smbcred,vers=3.1.1,uid=1000,multichannel,max_channels=4,seal');
    const verify = spawnSync('findmnt', ['--verify', '--tab-file', table], { encoding: 'utf8' });
    expect(`${verify.stdout}${verify.stderr}`).toMatch(/^0 parse errors/m);

    const rolled = capture();
    expect(
      await runCli(
        ['apply', '--rollback', '--target', 'fstab', '--fstab', table, '--mount-point', '/mnt/Projects Share', '--state-dir', join(dir, 'state'), '--yes'],
        rolled,
      ),
      rolled.text(),
    ).toBe(0);
    expect(readFileSync(table, 'utf8')).toBe(TABLE);
    expect(rolled.text()).toMatch(/byte-identical/);
  });

  it.skipIf(process.getuid?.() !== 0)('asks for root when the table is not its to write, before any backup', () => {
    const table = join(dir, 'root-only');
    writeFileSync(table, TABLE, { mode: 0o644 });
    const recommendations = join(dir, 'rec.json');
    // The unprivileged user can read the folder and the recommendations, and write neither the table nor the folder.
    chmodSync(dir, 0o755);
    chmodSync(recommendations, 0o644);
    const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
    const run = spawnSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        process.execPath,
        cli,
        'apply',
        '--target',
        'fstab',
        '--fstab',
        table,
        '--mount-point',
        '/mnt/Projects Share',
        '--from',
        recommendations,
        '--state-dir',
        join(dir, 'nobody-state'),
        '--yes',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/not writable[\s\S]*sudo/);
    expect(readFileSync(table, 'utf8')).toBe(TABLE);
    expect(existsSync(join(dir, 'nobody-state'))).toBe(false);
  });

  it('leaves the table alone when the mount point is not in it', async () => {
    const table = join(dir, 'fstab2');
    writeFileSync(table, TABLE);
    const recommend = capture();
    await runCli(['recommend', '--bandwidth', '1gbit', '--rtt', '30ms', '--loss', '0.1%', '--client', 'linux-cifs', '--server', 'samba', '--json'], recommend);
    writeFileSync(join(dir, 'rec2.json'), recommend.text());
    const out = capture();
    expect(
      await runCli(
        [
          'apply',
          '--target',
          'fstab',
          '--fstab',
          table,
          '--mount-point',
          '/mnt/elsewhere',
          '--from',
          join(dir, 'rec2.json'),
          '--state-dir',
          join(dir, 'state2'),
          '--yes',
        ],
        out,
      ),
    ).not.toBe(0);
    expect(out.text()).toMatch(/No cifs mount of \/mnt\/elsewhere/);
    expect(readFileSync(table, 'utf8')).toBe(TABLE);
  });
});
