// PDF through Chromium's own print (headless): the HTML export, printed. The
// flags keep it from reaching the network (nothing is fetched anyway: the
// HTML is self-contained) and let it run as root in a container.

import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
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

const PRINT_TIMEOUT_MS = 60_000;

function chromiumOrFail(): string {
  const chromium = chromiumPath();
  if (!chromium)
    throw new PipefillError(
      'tool-missing',
      'PDF export needs Chromium, and none was found.',
      'Install it (apt-get install chromium) or set PIPEFILL_CHROMIUM to its path; HTML export needs nothing.',
    );
  return chromium;
}

/** A private folder with the page in it, and Chromium's arguments to print it there. */
function printJob(html: string): { readonly dir: string; readonly target: string; readonly args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'pipefill-pdf-'));
  const page = join(dir, 'report.html');
  writeFileSync(page, html);
  const target = join(dir, 'report.pdf');
  return {
    dir,
    target,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${join(dir, 'profile')}`, '--no-pdf-header-footer', `--print-to-pdf=${target}`, pathToFileURL(page).href],
  };
}

function printed(target: string, failed: boolean, stderr: string): Buffer {
  if (failed || !existsSync(target) || statSync(target).size === 0) {
    throw new PipefillError(
      'export-failed',
      `Chromium did not print the PDF: ${stderr.trim().split('\n').slice(-2).join(' ')}`,
      'Try the HTML export and print it from a browser.',
    );
  }
  return readFileSync(target);
}

/** The PDF Chromium prints of `html`, as bytes: printed into a private folder, so the caller writes it where it goes (atomically). */
export function htmlToPdf(html: string): Buffer {
  const chromium = chromiumOrFail();
  const job = printJob(html);
  try {
    const run = spawnSync(chromium, job.args, { encoding: 'utf8', timeout: PRINT_TIMEOUT_MS });
    return printed(job.target, run.status !== 0, run.stderr || run.error?.message || '');
  } finally {
    rmSync(job.dir, { recursive: true, force: true });
  }
}

/** The same without blocking the event loop: for the services, which answer other calls while Chromium prints. */
export async function htmlToPdfAsync(html: string): Promise<Buffer> {
  const chromium = chromiumOrFail();
  const job = printJob(html);
  try {
    let failed = false;
    let stderr = '';
    try {
      ({ stderr } = await promisify(execFile)(chromium, job.args, { encoding: 'utf8', timeout: PRINT_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }));
    } catch (error) {
      failed = true;
      stderr = String((error as { stderr?: unknown }).stderr ?? (error instanceof Error ? error.message : error));
    }
    return printed(job.target, failed, stderr);
  } finally {
    rmSync(job.dir, { recursive: true, force: true });
  }
}
