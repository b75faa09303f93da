// For the e2e tests: the web mode started the way a person starts it
// (`pipefill ui`, the built CLI, with its demo share), Debian's Chromium
// driven by Playwright, screenshots of every view for a reviewer, and every
// console error the page logs.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { ENGINE_NODE_FLAGS } from '../src/platform/engine-flags.js';
import { chromiumPath, CHROMIUM_FLAGS } from '../src/report/pdf.js';

export const CHROMIUM = chromiumPath() ?? '/usr/bin/chromium';
export const SCREENSHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url));
export const CLI = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));

export const canRunE2e = existsSync(CHROMIUM) && existsSync(CLI);

export interface WebMode {
  readonly url: string;
  readonly child: ChildProcess;
  /** Another address from the running process: a line on its input, as Enter in its terminal (at most 10 s). */
  newAddress(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `pipefill ui --no-open` (with `--demo` unless `demo` is false, and `env` added) and waits (at most 30 s) for
 * the address it prints. `prefix`: words before it that run it otherwise (as another account: unprivileged-account.ts).
 */
export function startWebMode(
  options: { readonly demo?: boolean; readonly env?: Readonly<Record<string, string>>; readonly prefix?: readonly string[] } = {},
): Promise<WebMode> {
  return new Promise((resolve, reject) => {
    const [command = process.execPath, ...args] = [
      ...(options.prefix ?? []),
      process.execPath,
      ...ENGINE_NODE_FLAGS,
      CLI,
      'ui',
      '--no-open',
      ...(options.demo === false ? [] : ['--demo']),
    ];
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pipefill ui printed no address within 30 s: ${stderr}`));
    }, 30_000);
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = stdout.split('\n').find((line) => line.startsWith('http://127.0.0.1:'));
      if (!url) return;
      clearTimeout(timer);
      const printed = () => stdout.split('\n').filter((line) => line.startsWith('http://127.0.0.1:'));
      resolve({
        url,
        child,
        newAddress: async () => {
          const before = printed().length;
          child.stdin?.write('\n');
          // Polled every 50 ms for at most 10 s.
          for (let waited = 0; waited < 10_000; waited += 50) {
            const fresh = printed()[before];
            if (fresh) return fresh;
            await new Promise((done) => setTimeout(done, 50));
          }
          throw new Error('pipefill ui printed no new address within 10 s');
        },
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) {
              done();
              return;
            }
            // SIGTERM lets it stop its demo Samba and iperf3; SIGKILL after 10 s if it hangs.
            const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`pipefill ui exited (${code}) before printing an address: ${stderr}`));
    });
  });
}

export function launchChromium(): Promise<Browser> {
  // The PDF export's flags (Playwright adds --headless itself).
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS.filter((flag) => flag !== '--headless') });
}

/** Collects console errors and uncaught exceptions of a page. */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  return errors;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Every chart on the page draws at least one point. */
export async function chartPointCounts(page: Page): Promise<Record<string, number>> {
  return page.$$eval('canvas[data-testid]', (canvases) =>
    Object.fromEntries(canvases.map((canvas) => [canvas.getAttribute('data-testid') ?? '', Number(canvas.getAttribute('data-points'))])),
  );
}
