// `pipefill ui`: the web mode. Serves the app and the contract on 127.0.0.1
// with a per-run token, prints the address on stdout, opens a browser when a
// display exists (unless --no-open), and runs until Ctrl-C. With --demo it
// also starts a Samba server and an iperf3 server on loopback, offered in the
// Start view, and stops them on the way out.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PipefillApi } from '../../contract/api.js';
import type { HostInfo } from '../../contract/host-info.js';
import { createLocalApi } from '../../assess/local-api.js';
import type { StoreSpec } from '../../store/open-store.js';
import type { LoopbackServers } from '../../lab/loopback-servers.js';
import { startLoopbackServers } from '../../lab/loopback-servers.js';
import { sambaAvailable } from '../../lab/samba.js';
import { PipefillInputError } from '../../model/errors.js';
import { hasDisplay } from '../../platform/desktop.js';
import { packageRoot } from '../../platform/package-root.js';
import { startWebHost } from '../../web/host.js';
import type { Output } from '../output.js';
import { optional, parseOptions } from '../args.js';

export const UI_USAGE = `pipefill ui [--port N] [--no-open] [--demo]
  Serves the app on http://127.0.0.1 (a free port unless --port) and prints its address, with a
  single-use launch code (each printed address opens one page). Opens a browser when a display exists, unless --no-open. --demo starts a Samba and an
  iperf3 server on loopback for the Start view's "Use the demo share". Runs until Ctrl-C.`;

const OPTIONS = {
  port: { type: 'string' },
  'no-open': { type: 'boolean' },
  demo: { type: 'boolean' },
} as const;

/** The built renderer, whichever build is running. */
export const RENDERER_DIR = join(packageRoot(), 'dist', 'renderer');

function openBrowser(url: string): void {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.once('error', () => undefined);
  child.unref();
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new PipefillInputError(`--port must be a whole number from 1 to 65535, not ${JSON.stringify(text)}.`, 'Leave --port out for a free one.');
  return port;
}

async function startDemo(output: Output): Promise<{ servers: LoopbackServers; demo: NonNullable<HostInfo['demo']> } | undefined> {
  if (!sambaAvailable()) {
    output.err("pipefill ui: no demo share: Samba is not installed (apt-get install samba); the planner works without one.");
    return undefined;
  }
  const servers = await startLoopbackServers();
  const { samba, iperfPort } = servers;
  return { servers, demo: { share: `//127.0.0.1:${samba.port}/share`, ...samba.credentials, iperf: `127.0.0.1:${iperfPort}` } };
}

/** Resolves when the process is told to stop (Ctrl-C or SIGTERM). */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function uiCommand(argv: readonly string[], _api: PipefillApi, output: Output, context: { readonly store?: StoreSpec } = {}): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, UI_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, UI_USAGE);
  const port = parsePort(optional(values, 'port'));
  if (!existsSync(RENDERER_DIR)) throw new PipefillInputError(`The app is not built (${RENDERER_DIR} is missing).`, 'Run `npm run build`, or start it with `npm start`.');
  const demo = values.demo === true ? await startDemo(output) : undefined;
  // Whatever ends this process, the demo's servers end with it.
  const killDemo = () => demo?.servers.killNow();
  process.once('exit', killDemo);
  try {
    const host = await startWebHost({ api: createLocalApi({ shell: 'web', ...(demo ? { demo: demo.demo } : {}), ...(context.store ? { store: context.store } : {}) }), rendererDir: RENDERER_DIR, ...(port === undefined ? {} : { port }) });
    // Each address opens one page (a single-use launch code): the browser gets one, the terminal another.
    if (values['no-open'] !== true && hasDisplay()) {
      openBrowser(host.url);
      output.out(host.launchUrl());
      output.err('pipefill ui: opened in your browser; the address above opens one more page. Ctrl-C stops it.');
    } else {
      output.out(host.url);
      output.err('pipefill ui: open the address above in a browser (no display here, or --no-open); it opens one page. Ctrl-C stops it.');
    }
    await untilStopped();
    // The demo first: closing the page's connections cannot hold it up.
    await demo?.servers.stop();
    await host.close();
  } finally {
    await demo?.servers.stop();
    process.off('exit', killDemo);
  }
}
