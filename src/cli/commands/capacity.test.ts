import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CapacityInputSchema } from '../../contract/capacity.js';
import { kneeText } from '../../presentation/capacity-text.js';
import { CAPACITY_FIXTURE as result } from '../../test-support/capacity-fixture.js';
import { runCli } from '../main.js';
import { formatCapacity, parseClients, parseTarget } from './capacity.js';
import { formatOf } from './report.js';

describe('pipefill capacity', () => {
  it('reads its steps and its target', () => {
    expect(parseClients('1, 2,4,8')).toEqual([1, 2, 4, 8]);
    expect(() => parseClients('1,two')).toThrow(/whole numbers/);
    expect(() => parseClients('1,-2')).toThrow(/whole numbers/);
    expect(parseTarget('30,5,50')).toEqual({ users: 30, perUserMbps: 5, addedLatencyMs: 50 });
    expect(() => parseTarget('30,5')).toThrow(/USERS,MBPS,MS/);
    expect(() => parseTarget('30,five,50')).toThrow(/not a number/);
  });

  it('refuses steps that do not rise, too many people, and an unknown profile before asking for a password', async () => {
    expect(CapacityInputSchema.safeParse({ share: '//s/x', user: 'u', password: '', clients: [4, 2] }).success).toBe(false);
    expect(CapacityInputSchema.safeParse({ share: '//s/x', user: 'u', password: '', clients: [1, 65] }).success).toBe(false);
    const errors: string[] = [];
    const output = { out: () => undefined, err: (text: string) => errors.push(text) };
    expect(await runCli(['capacity', '--share', '//s/x', '--user', 'u', '--clients', '8,4'], output)).toBe(2);
    expect(errors.join('\n')).toMatch(/must rise/);
    expect(await runCli(['capacity', '--share', '//s/x', '--user', 'u', '--profile', 'win95'], output)).toBe(2);
  });

  it('prints every step beside the model, the knee, the verdict and who failed', () => {
    const text = formatCapacity(result);
    expect(text).toMatch(/path 155 Mb\/s \(iperf3\), 32\.0 ms/);
    expect(text).toMatch(/^1\s+140\s+148\s+140 \/ 140 \/ 140\s+1\.00\s+40\.0 \/ 44\.0\s+7\.9 \(8\.2\)/m);
    expect(text).toMatch(/^2\s+146\s+-\s/m);
    expect(text).toContain(kneeText(result));
    expect(text).toContain('The model takes the server as Samba (smb2 max credits 8192, Linux TCP auto-tuning).');
    expect(text).toContain('30 people copying at once get 4.93 Mb/s each');
    expect(text).toContain('person 2 stopped during the step of 2 people: The server ended the session (read).');
    expect(text).not.toContain('completed SMB requests');
  });

  it('exits 3 when a capacity run or a site comparison misses its target (scripted gates), 0 when met', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'pipefill-gate-test-'));
    try {
      const output = { out: () => undefined, err: () => undefined };
      const reports = new URL('../../report/fixtures/', import.meta.url);
      const [slow, fast] = ['lab-52mbit-75ms.json', 'lab-155mbit-32ms.json'].map((name) => new URL(name, reports).pathname);
      // The slow site fails a 5-minute directory copy, the fast one passes: not every site fails.
      expect(await runCli(['report', 'compare', slow ?? '', fast ?? '', '--target', 'dirset<5min@win10-smb3'], output)).toBe(0);
      expect(await runCli(['report', 'compare', slow ?? '', '--target', 'dirset<5min@win10-smb3'], output)).toBe(3);
      expect(await runCli(['report', 'compare', fast ?? '', '--target', 'dirset<5min@win10-smb3'], output)).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('names the export by the file it writes, and `report export` turns a saved run into every format', async () => {
    expect(formatOf('branch.HTML')).toBe('html');
    expect(formatOf('a/b.csv')).toBe('csv');
    expect(() => formatOf('branch.txt')).toThrow(/does not end in/);
    const folder = mkdtempSync(join(tmpdir(), 'pipefill-capacity-test-'));
    try {
      const saved = join(folder, 'run.json');
      writeFileSync(saved, JSON.stringify(result));
      const output = { out: () => undefined, err: () => undefined };
      expect(await runCli(['report', 'export', saved, '--format', 'csv', '--out', join(folder, 'run.csv')], output)).toBe(0);
      expect(readFileSync(join(folder, 'run.csv'), 'utf8')).toMatch(/^share,started_at,profile/);
      // The format follows --out's ending when --format is left out.
      expect(await runCli(['report', 'export', saved, '--out', join(folder, 'run.html')], output)).toBe(0);
      expect(readFileSync(join(folder, 'run.html'), 'utf8')).toContain('Branch capacity: //branch-fs/data');
      expect(await runCli(['report', 'export', saved, '--out', join(folder, 'run.txt')], output)).toBe(2);
      // A capacity run with a field out of range is refused, not exported.
      writeFileSync(saved, JSON.stringify({ ...result, steps: [{ ...result.steps[0], users: -1 }] }));
      expect(await runCli(['report', 'export', saved, '--format', 'csv', '--out', join(folder, 'bad.csv')], output)).toBe(2);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
