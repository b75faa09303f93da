// What the CLI prints from documents it did not write (an imported report, a
// team store) reaches a terminal without a control character in it: a
// crafted share name cannot retitle the window, clear the screen or write
// the clipboard (issue 35, item 7). A store refuses such a document
// (bounded-document.ts), so the history's case is a row written into a team
// store by something else.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_NODE_FLAGS } from '../platform/engine-flags.js';
import { sqliteSql } from '../store/sqlite-store.js';

const cli = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const built = existsSync(cli);
const HOSTILE_SHARE = '//fs1/data\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;ZWNobyBoaQ==\u0007\u009b31m\u202e';
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ESCAPES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe.skipIf(!built)('the CLI prints documents without their control characters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipefill-terminal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const report = JSON.parse(readFileSync(new URL('../report/fixtures/lab-100mbit-40ms-credits16.json', import.meta.url), 'utf8')) as {
    target: { share: string };
    diagnosis: { headline: string };
  };
  report.target.share = HOSTILE_SHARE;
  report.diagnosis.headline = `slow\u001b]52;c;cm0gLXJmIH4=\u0007`;
  const clean = fileURLToPath(new URL('../report/fixtures/lab-100mbit-40ms-credits16.json', import.meta.url));
  const file = join(dir, 'hostile.json');
  writeFileSync(file, JSON.stringify(report));
  const run = (args: string[]) =>
    spawnSync(process.execPath, [...ENGINE_NODE_FLAGS, cli, ...args], {
      encoding: 'utf8',
      env: { ...process.env, PIPEFILL_STORE: join(dir, 'history.sqlite') },
    });

  it.each([
    ['report summary', ['report', 'summary', file]],
    ['report compare', ['report', 'compare', file]],
    ['history import (refused, and said so), then a crafted row in the store listed and shown', ['history', 'import', file]],
  ])('%s', async (_what, args) => {
    const result = run(args);
    expect(result.stdout + result.stderr).not.toMatch(ESCAPES);
    if (args[0] === 'history') {
      // Refused as no share path (the message quotes the name as JSON, its controls escaped).
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/not a share path: .*fs1\/data\\u001b\]0;pwned.* holds a control character/);
      // A row another program wrote: Pipefill's own report kept, then its columns rewritten.
      expect(run(['history', 'import', clean]).status).toBe(0);
      const sql = sqliteSql(join(dir, 'history.sqlite'));
      try {
        await sql.run('UPDATE runs SET share = ?, site = ?, headline = ?', [HOSTILE_SHARE, HOSTILE_SHARE, report.diagnosis.headline]);
      } finally {
        await sql.close();
      }
      for (const more of [
        ['history', 'list'],
        ['history', 'show', '1'],
        ['history', 'trend', '--site', HOSTILE_SHARE],
      ]) {
        const shown = run(more);
        expect(shown.stdout + shown.stderr).not.toMatch(ESCAPES);
        expect(shown.stdout + shown.stderr).not.toBe('');
        // Seen, not obeyed: the name is still there, its controls shown as U+FFFD.
        if (more[1] === 'list') expect(shown.stdout).toMatch(/fs1\/data\ufffd\]0;pwned/);
      }
    } else {
      // compare: the one site misses the default target (exit 3, a gate's answer); summary: 0.
      expect(result.status, result.stderr).toBe(args[1] === 'compare' ? 3 : 0);
      expect(result.stdout + result.stderr).toMatch(/fs1\/data\ufffd\]0;pwned/);
    }
  });
});
