// PDF through Chromium's own print (headless): the HTML export, printed. The
// flags keep it from reaching the network (nothing is fetched anyway: the
// HTML is self-contained, and its Content-Security-Policy allows nothing
// else, scripts included). Run as root, Chromium prints as an
// unprivileged user (nobody), with its sandbox where the system gives it one:
// a page it mishandles then holds nobody's rights, never root's.

import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** Who prints when Pipefill runs as root: nobody (65534 on Debian and most systems). */
const UNPRIVILEGED = { uid: 65534, gid: 65534 } as const;
const asRoot = () => process.getuid?.() === 0;

/**
 * Chromium's arguments for a print: the sandbox on unless `sandbox` is
 * false. Scripts are kept off by the page's own policy (EXPORT_CSP):
 * --blink-settings=scriptEnabled=false also stops headless Chromium 156's
 * print, which then writes no PDF.
 */
function printFlags(sandbox: boolean): string[] {
  return [...CHROMIUM_FLAGS.filter((flag) => flag !== '--no-sandbox'), ...(sandbox ? [] : ['--no-sandbox'])];
}

interface PrintJob {
  readonly dir: string;
  readonly target: string;
  readonly args: (sandbox: boolean) => string[];
  /** How Chromium is started: as nobody when root, with a home in the job's folder and no more of the environment than it needs. */
  readonly spawn: { readonly uid?: number; readonly gid?: number; readonly env: NodeJS.ProcessEnv };
}

/** A private folder with the page in it (handed to nobody when root), and how to start Chromium to print it there. */
function printJob(html: string): PrintJob {
  const dir = mkdtempSync(join(tmpdir(), 'pipefill-pdf-'));
  const page = join(dir, 'report.html');
  writeFileSync(page, html);
  const target = join(dir, 'report.pdf');
  if (asRoot()) for (const path of [dir, page]) chownSync(path, UNPRIVILEGED.uid, UNPRIVILEGED.gid);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, TMPDIR: dir, XDG_CONFIG_HOME: dir, XDG_CACHE_HOME: dir };
  return {
    dir,
    target,
    args: (sandbox) => [
      ...printFlags(sandbox),
      `--user-data-dir=${join(dir, 'profile')}`,
      '--no-pdf-header-footer',
      `--print-to-pdf=${target}`,
      pathToFileURL(page).href,
    ],
    spawn: asRoot() ? { ...UNPRIVILEGED, env } : { env },
  };
}

/** Chromium said it has no sandbox to start in (no user namespaces for this user): it prints without one, still unprivileged. */
const noUsableSandbox = (stderr: string) => /sandbox/i.test(stderr);

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
    const print = (sandbox: boolean) => spawnSync(chromium, job.args(sandbox), { ...job.spawn, encoding: 'utf8', timeout: PRINT_TIMEOUT_MS });
    let run = print(true);
    if (run.status !== 0 && noUsableSandbox(run.stderr ?? '')) run = print(false);
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
    const print = async (sandbox: boolean) => {
      try {
        const { stderr } = await promisify(execFile)(chromium, job.args(sandbox), {
          ...job.spawn,
          encoding: 'utf8',
          timeout: PRINT_TIMEOUT_MS,
          maxBuffer: 4 * 1024 * 1024,
        });
        return { failed: false, stderr };
      } catch (error) {
        return { failed: true, stderr: String((error as { stderr?: unknown }).stderr ?? (error instanceof Error ? error.message : error)) };
      }
    };
    let run = await print(true);
    if (run.failed && noUsableSandbox(run.stderr)) run = await print(false);
    return printed(job.target, run.failed, run.stderr);
  } finally {
    rmSync(job.dir, { recursive: true, force: true });
  }
}
