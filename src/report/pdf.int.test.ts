// The exported pages and how they are printed (issue 47, item 11): every
// exported page carries the one Content-Security-Policy, and as root the PDF
// is printed by Chromium running as nobody, its sandbox on where the system
// gives one. A stand-in for Chromium (PIPEFILL_CHROMIUM) notes
// who ran it and with what, then hands over to Debian's Chromium.

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../contract/report.js';
import { CAPACITY_FIXTURE } from '../test-support/capacity-fixture.js';
import { capacityHtml } from './capacity.js';
import { exportDocumentAsync } from './export.js';
import { reportHtml } from './html.js';
import { EXPORT_CSP } from './page.js';

const report = () => ReportSchema.parse(JSON.parse(readFileSync(new URL('./fixtures/lab-155mbit-32ms.json', import.meta.url), 'utf8')));

/** The policies a page declares (the meta tags), in order. */
const policies = (html: string) => [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)].map((match) => match[1]);

describe('every exported page', () => {
  it('carries the one Content-Security-Policy, in its head: the report and the capacity run alike', () => {
    for (const html of [reportHtml(report()), capacityHtml(CAPACITY_FIXTURE)]) {
      expect(policies(html)).toEqual([EXPORT_CSP]);
      expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('</head>'));
      expect(html).not.toMatch(/<script/i);
    }
  });
});

const chromium = '/usr/bin/chromium';
describe.skipIf(process.getuid?.() !== 0 || !existsSync(chromium))('a PDF printed while Pipefill runs as root', () => {
  let dir: string;
  const saved = process.env['PIPEFILL_CHROMIUM'];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pipefill-pdf-as-'));
    chmodSync(dir, 0o755);
    const log = join(dir, 'runs.log');
    writeFileSync(log, '');
    chmodSync(log, 0o666);
    const standIn = join(dir, 'chromium');
    writeFileSync(standIn, `#!/bin/sh\necho "$(id -u) $*" >> ${log}\nexec ${chromium} "$@"\n`);
    chmodSync(standIn, 0o755);
    process.env['PIPEFILL_CHROMIUM'] = standIn;
  });
  afterAll(() => {
    if (saved === undefined) Reflect.deleteProperty(process.env, 'PIPEFILL_CHROMIUM');
    else process.env['PIPEFILL_CHROMIUM'] = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('is printed by Chromium running as nobody, its sandbox tried first', async () => {
    const pdf = await exportDocumentAsync({ kind: 'capacity', capacity: CAPACITY_FIXTURE }, 'pdf', 'a4');
    expect(Buffer.isBuffer(pdf) && pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const runs = readFileSync(join(dir, 'runs.log'), 'utf8').trim().split('\n');
    expect(runs.length).toBeGreaterThanOrEqual(1);
    for (const run of runs) {
      expect(run.split(' ')[0]).toBe('65534');
    }
    // The first try keeps Chromium's sandbox; only a system without one for this user gets a second, without.
    expect(runs[0]).not.toContain('--no-sandbox');
  }, 60_000);
});
