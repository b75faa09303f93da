// PDF through Chromium's own print (headless): the HTML export, printed. The
// flags keep it from reaching the network (nothing is fetched anyway: the
// HTML is self-contained) and let it run as root in a container.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PipefillError } from '../model/errors.js';

export function chromiumPath(): string | undefined {
  const candidates = [process.env['PIPEFILL_CHROMIUM'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(
    (path): path is string => Boolean(path),
  );
  return candidates.find((path) => existsSync(path));
}

/** No sandbox when run as root; no background networking (a closed network refuses it, many times a start). */
/**
 * Chromium's sandbox stays on, except as root, where Chromium refuses to
 * start with it (and a root process is not what the sandbox guards anyway).
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The PDF Chromium prints of `html`, as bytes: printed into a private folder, so the caller writes it where it goes (atomically). */
export function htmlToPdf(html: string): Buffer {
  const chromium = chromiumPath();
  if (!chromium)
    throw new PipefillError(
      'tool-missing',
      'PDF export needs Chromium, and none was found.',
      'Install it (apt-get install chromium) or set PIPEFILL_CHROMIUM to its path; HTML export needs nothing.',
    );
  const dir = mkdtempSync(join(tmpdir(), 'pipefill-pdf-'));
  try {
    const page = join(dir, 'report.html');
    writeFileSync(page, html);
    const target = join(dir, 'report.pdf');
    const run = spawnSync(
      chromium,
      [...CHROMIUM_FLAGS, `--user-data-dir=${join(dir, 'profile')}`, '--no-pdf-header-footer', `--print-to-pdf=${target}`, pathToFileURL(page).href],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (run.status !== 0 || !existsSync(target) || statSync(target).size === 0) {
      throw new PipefillError(
        'export-failed',
        `Chromium did not print the PDF: ${(run.stderr || run.error?.message || '').trim().split('\n').slice(-2).join(' ')}`,
        'Try the HTML export and print it from a browser.',
      );
    }
    return readFileSync(target);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
