// `pipefill ui`: the web mode. Serves the app and the contract on 127.0.0.1
// with a per-run token, prints the address on stdout, opens a browser when a
// display exists (unless --no-open), and runs until Ctrl-C. With --demo it
// also starts a demo share, offered in the Start view, and stops it on the
// way out: where the machine allows it (Linux, root) a Samba server behind
// the WAN lab's branch link with a setting that holds copies back, whose
// assessments run in a service process inside the branch (`pipefill service`),
// so their sockets cross the link; elsewhere Samba and iperf3 on loopback.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PipefillApi } from '../../contract/api.js';
import type { HostInfo } from '../../contract/host-info.js';
import { servedAs } from '../../contract/served-as.js';
import type { StoreSpec } from '../../store/open-store.js';
import type { LoopbackServers } from '../../lab/loopback-servers.js';
import { startLoopbackServers } from '../../lab/loopback-servers.js';
import type { BranchDemo } from '../../lab/branch-demo.js';
import { branchDemoUnavailable, DEMO_BRANCH_LINK, startBranchDemo } from '../../lab/branch-demo.js';
import { startServiceProcess } from '../../web/service-process.js';
import { packageRoot } from '../../platform/package-root.js';
import { formatRate } from '../../model/units.js';
import { preferredOrFreePort, sambaAvailable } from '../../lab/samba.js';
import { PipefillInputError } from '../../model/errors.js';
import { hasDisplay } from '../../platform/desktop.js';

import { startWebHost } from '../../web/host.js';
import type { LaunchFile } from '../../web/launch-file.js';
import { writeLaunchFile } from '../../web/launch-file.js';
import type { Output } from '../output.js';
import { optional, parseOptions } from '../args.js';
import { stopSignals } from '../stop-signals.js';

export const UI_USAGE = `pipefill ui [--port N] [--no-open] [--demo [--demo-path branch|loopback]]
  Serves the app on http://127.0.0.1 (a free port unless --port) and prints its address, with a
  single-use launch code (each printed address opens one page). Opens a browser when a display
  exists, unless --no-open. --demo starts a demo share for the Start view's "Use the demo share":
  on Linux as root, Samba behind the WAN lab's branch link (100 Mb/s, 40 ms) with a setting that
  holds copies back (smb2 max credits = 16); elsewhere, or with --demo-path loopback, Samba and
  iperf3 on loopback. A line on its input (Enter, where it runs in a terminal) prints another address:
  a closed tab or a second browser needs no restart. Runs until Ctrl-C.`;

const OPTIONS = {
  port: { type: 'string' },
  'no-open': { type: 'boolean' },
  demo: { type: 'boolean' },
  'demo-path': { type: 'string' },
} as const;

/** The built renderer, whichever build is running. */
export const RENDERER_DIR = join(packageRoot(), 'dist', 'renderer');
/** The CLI's entry in the same build: what the demo's service process runs. */
const CLI_ENTRY = join(packageRoot(), 'dist', 'cli', 'bin.js');

function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.once('error', () => undefined);
  child.unref();
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new PipefillInputError(`--port must be a whole number from 1 to 65535, not ${JSON.stringify(text)}.`, 'Leave --port out for a free one.');
  return port;
}

/** A running demo: its description for the Start view, the API to serve (the branch's service process, or none: the local one), and its end. */
interface RunningDemo {
  readonly demo: NonNullable<HostInfo['demo']>;
  readonly api?: PipefillApi;
  /** What a command needs before it to reach the share (the branch demo's network namespace). */
  readonly commandPrefix?: readonly string[];
  stop(): Promise<void>;
  killNow(): void;
}

function parseDemoPath(text: string | undefined, demo: boolean): 'branch' | 'loopback' | 'auto' {
  if (text === undefined) return 'auto';
  if (!demo) throw new PipefillInputError('--demo-path goes with --demo.', UI_USAGE);
  if (text !== 'branch' && text !== 'loopback') throw new PipefillInputError(`--demo-path is branch or loopback, not ${JSON.stringify(text)}.`, UI_USAGE);
  return text;
}

/**
 * The loopback demo's ports, used when free: the same share address run after
 * run (a CLI line kept from the last run still works). They lie in Linux's
 * ephemeral range (32768-60999), so another program's connection may hold one
 * now and then; the demo then takes free ports, and the address it prints says which.
 */
export const DEMO_SMB_PORT = 44_545;
export const DEMO_IPERF_PORT = 45_201;

async function startLoopbackDemo(): Promise<RunningDemo> {
  const servers: LoopbackServers = await startLoopbackServers({
    port: await preferredOrFreePort(DEMO_SMB_PORT),
    iperfPort: await preferredOrFreePort(DEMO_IPERF_PORT),
  });
  const { samba, iperfPort } = servers;
  return {
    demo: { share: `//127.0.0.1:${samba.port}/share`, ...samba.credentials, iperf: `127.0.0.1:${iperfPort}`, path: { kind: 'loopback' } },
    stop: () => servers.stop(),
    killNow: () => servers.killNow(),
  };
}

async function startBranchDemoService(store: StoreSpec | undefined): Promise<RunningDemo> {
  const branch: BranchDemo = await startBranchDemo();
  try {
    const service = startServiceProcess({
      commandPrefix: branch.commandPrefix,
      cliEntry: CLI_ENTRY,
      // The history the person's own runs go to (the child reads it as --store would give it).
      ...(store ? { env: { PIPEFILL_STORE: store.kind === 'postgres' ? store.connection : `sqlite:${store.path}` } } : {}),
    });
    return {
      demo: branch.demo,
      // The child's copies and history answer the page; this process says what it offers (servedAs).
      api: service.api,
      commandPrefix: branch.commandPrefix,
      // The service first: its calls end (and clean their scratch up) while the share is still there.
      stop: async () => {
        await service.stop();
        await branch.stop();
      },
      killNow: () => {
        service.killNow();
        branch.killNow();
      },
    };
  } catch (error) {
    await branch.stop();
    throw error;
  }
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';

/**
 * The loopback demo, or none: the app starts without its demo share when
 * smbd or iperf3 cannot start here (a port taken, a state folder that cannot
 * be written), and says so in one line; the Planner, a share of one's own,
 * reports and history all work without it.
 */
async function loopbackDemoOrNone(output: Output, whyLoopback: string): Promise<RunningDemo | undefined> {
  try {
    const demo = await startLoopbackDemo();
    output.err(`pipefill ui: the demo share is on loopback (${whyLoopback}).`);
    return demo;
  } catch (error) {
    output.err(`pipefill ui: no demo share: it did not start here (${firstLine(error)}); the Planner and your own shares work without it.`);
    return undefined;
  }
}

async function startDemo(path: 'branch' | 'loopback' | 'auto', store: StoreSpec | undefined, output: Output): Promise<RunningDemo | undefined> {
  if (!sambaAvailable()) {
    if (path !== 'auto') throw new PipefillInputError('No demo share: Samba is not installed.', 'sudo apt-get install samba; the planner works without one.');
    output.err('pipefill ui: no demo share: Samba is not installed (sudo apt-get install samba); the Planner and your own shares work without it.');
    return undefined;
  }
  if (path === 'loopback') return startLoopbackDemo();
  const unavailable = branchDemoUnavailable();
  if (unavailable !== undefined) {
    if (path === 'branch') throw new PipefillInputError(`No branch demo here: ${unavailable}.`, 'Use --demo-path loopback, or run it on Linux as root.');
    return loopbackDemoOrNone(output, `no branch link: ${unavailable}`);
  }
  let demo: RunningDemo;
  try {
    demo = await startBranchDemoService(store);
  } catch (error) {
    // The lab could not come up here (a kernel without TUN support, a tool missing): the loopback demo still works.
    if (path === 'branch') throw error;
    return loopbackDemoOrNone(output, `the branch link did not come up: ${firstLine(error)}`);
  }
  output.err(
    `pipefill ui: the demo share sits behind an emulated branch link (${formatRate(DEMO_BRANCH_LINK.bandwidthBitsPerSecond)}, ${DEMO_BRANCH_LINK.rttMs} ms) on a Samba server set to ${demo.demo.path?.kind === 'branch' ? demo.demo.path.serverSetting : ''}.`,
  );
  return demo;
}

/** A word for a POSIX shell, quoted where it needs it. */
const shellWord = (word: string) => (/^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * The demo share as the CLI reaches it, for the terminal that started it: its
 * password is a throwaway of this run's own Samba, which the Start view fills
 * in and the CLI could not otherwise know.
 */
export function demoCommandText(demo: NonNullable<HostInfo['demo']>, commandPrefix: readonly string[] = []): string {
  const command = [
    ...commandPrefix,
    'npm',
    'run',
    '--silent',
    'pipefill',
    '--',
    'assess',
    '--share',
    demo.share,
    '--user',
    demo.user,
    '--password-env',
    'PIPEFILL_DEMO_PASSWORD',
    ...(demo.iperf ? ['--iperf', demo.iperf] : []),
  ];
  return `pipefill ui: the demo share is ${demo.share}, user ${demo.user}, password ${demo.password} (this run's only). From the CLI:\n  PIPEFILL_DEMO_PASSWORD=${shellWord(demo.password)} ${command.map(shellWord).join(' ')}`;
}

export async function uiCommand(argv: readonly string[], api: PipefillApi, output: Output, context: { readonly store?: StoreSpec } = {}): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, UI_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, UI_USAGE);
  const port = parsePort(optional(values, 'port'));
  const demoPath = parseDemoPath(optional(values, 'demo-path'), values.demo === true);
  if (!existsSync(RENDERER_DIR))
    throw new PipefillInputError(`The app is not built (${RENDERER_DIR} is missing).`, 'Run `npm run build`, or start it with `npm start`.');
  const demo = values.demo === true ? await startDemo(demoPath, context.store, output) : undefined;
  if (demo) output.err(demoCommandText(demo.demo, demo.commandPrefix));
  // Whatever ends this process, the demo's servers end with it.
  let launchFile: LaunchFile | undefined;
  const killDemo = () => {
    demo?.killNow();
    launchFile?.remove();
  };
  process.once('exit', killDemo);
  // Listening from here: a Ctrl-C while the page is being served is a stop, and one more while stopping changes nothing.
  const signals = stopSignals(() => output.err(`pipefill ui: stopping${demo ? ' (the demo share first)' : ''}...`));
  try {
    // The API every command is given, or the branch demo's service process, served as the web mode with its demo.
    const served = servedAs(demo?.api ?? api, { shell: 'web', ...(demo ? { demo: demo.demo } : {}) }, api);
    const host = await startWebHost({
      api: served,
      rendererDir: RENDERER_DIR,
      ...(port === undefined ? {} : { port }),
      onLaunchCodeReused: () =>
        output.err(
          'pipefill ui: warning: an address this run printed was opened twice. If you opened it only once, something else on this computer read it and opened it first: press Ctrl-C and start Pipefill again.',
        ),
    });
    // Each address opens one page (a single-use launch code): the browser gets one, the terminal another.
    // Not on the browser's command line (any process can read it): through a page only this account can read.
    // Where that page cannot be written (a read-only home), the address is printed for the person to open.
    let handOff: string | undefined;
    if (values['no-open'] !== true && hasDisplay()) {
      try {
        launchFile = writeLaunchFile(host.url);
        handOff = launchFile.href;
      } catch (error) {
        output.err(`pipefill ui: not opening a browser: the hand-off page could not be written (${error instanceof Error ? error.message : String(error)}).`);
      }
    }
    const enter = process.stdin.isTTY ? ' Press Enter here for another.' : '';
    if (handOff !== undefined) {
      openBrowser(handOff);
      output.out(host.launchUrl());
      output.err(`pipefill ui: opened in your browser; the address above opens one more page.${enter} Ctrl-C stops it.`);
    } else {
      output.out(host.url);
      output.err(`pipefill ui: open the address above in a browser (no display here, or --no-open); it opens one page.${enter} Ctrl-C stops it.`);
    }
    // Each address opens one page: a line on the input asks for another, from this same run (its demo share, its port).
    const lines = createInterface({ input: process.stdin, terminal: false });
    lines.on('line', () => {
      output.out(host.launchUrl());
      output.err('pipefill ui: the address above opens one more page.');
    });
    try {
      await signals.stopped;
    } finally {
      lines.close();
      process.stdin.pause();
    }
    // The demo first: closing the page's connections cannot hold it up.
    await demo?.stop();
    await host.close();
  } finally {
    launchFile?.remove();
    await demo?.stop();
    signals.dispose();
    process.off('exit', killDemo);
  }
}
