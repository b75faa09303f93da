// `npm start`: runs the app. The Electron window where Electron's binary
// exists (on a desktop without it, Electron's own installer is given one
// try to fetch it, at most once a day after a failure; dependencies are
// installed with ELECTRON_SKIP_BINARY_DOWNLOAD so an unreachable host never
// breaks the install); otherwise the same app in the web mode (`pipefill ui --demo`),
// which serves it on 127.0.0.1 and prints the address. Either way it says
// which. With no share of your own, the Planner works at once and the Start
// view offers a demo share: a Samba server started on loopback for the
// session (when Samba is installed). Arguments go to `pipefill ui`
// (`npm start -- --port 8080 --no-open`).

import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_PACKAGES, endOnSetupErrors, ensureBuild, ensureNodeModules, ensureSupportedNode, missingDebianPackages, root } from './lib/setup.mjs';

const setupDone = endOnSetupErrors();
ensureSupportedNode();
ensureNodeModules();
// What the app does without, in one line with the one command that adds it (root's: the app itself never needs root).
const missing = missingDebianPackages(APP_PACKAGES);
if (missing.length > 0) {
  process.stderr.write(
    `pipefill: starting without ${missing.join(', ')} (the demo share, the faster probe and Kerberos use them); to add them, once, as root: sudo apt-get install -y ${missing.join(' ')}\n`,
  );
}
const compiler = missingDebianPackages({ 'g++': 'g++', make: 'make' });
ensureBuild({ quiet: missing.length > 0, ...(compiler.length > 0 ? { withoutCompiler: `${compiler.join(' and ')} missing` } : {}) });

const { electronBinary, electronDownloadDecision, hasDisplay } = await import('../dist/platform/desktop.js');
// Electron's main process runs the copies: it gets the engine's V8 flags, as this process did from `npm start` (src/platform/engine-flags.ts).
const { ENGINE_NODE_FLAGS } = await import('../dist/platform/engine-flags.js');
const failedMarker = join(root, 'node_modules', '.pipefill-electron-download-failed');
let why;
const decision = electronDownloadDecision({
  binaryPresent: electronBinary() !== undefined,
  display: hasDisplay(),
  env: process.env,
  ...(existsSync(failedMarker) ? { lastFailureAt: statSync(failedMarker).mtimeMs } : {}),
  now: Date.now(),
});
if (decision.attempt) {
  process.stderr.write("pipefill: fetching Electron's binary (its own installer; up to 2 minutes)\n");
  const fetched = spawnSync(process.execPath, [join(root, 'node_modules', 'electron', 'install.js')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (fetched.status === 0 && electronBinary()) rmSync(failedMarker, { force: true });
  else {
    writeFileSync(failedMarker, `${new Date().toISOString()}\n`);
    const lines = (fetched.error?.message ?? fetched.stderr ?? '').trim().split('\n');
    // The installer prints a stack; its error line says why (host unreachable, refused, timed out).
    why = `Electron's download failed (${(lines.find((line) => /error/i.test(line)) ?? lines.pop() ?? '').trim() || `exit ${fetched.status}`})`;
  }
}
const electron = electronBinary();
if (electron && hasDisplay()) {
  process.stderr.write('pipefill: starting the desktop app (Electron)\n');
  const run = spawnSync(electron, [`--js-flags=${ENGINE_NODE_FLAGS.join(' ')}`, root], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
process.stderr.write(
  `pipefill: ${electron ? 'no display for Electron' : (why ?? `Electron's binary is not installed here${decision.attempt ? '' : ` (not fetched: ${decision.why})`}`)}: starting the web mode instead (the same app in a browser).\n`,
);
const { runCli } = await import('../dist/cli/main.js');
const { endOnUnexpectedErrors } = await import('../dist/cli/unexpected-error.js');
setupDone();
endOnUnexpectedErrors();
process.exitCode = await runCli(['ui', '--demo', ...process.argv.slice(2)]);
