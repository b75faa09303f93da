// `npm start`: runs the app. The Electron window where Electron's binary
// exists; otherwise the same app in the web mode (`pipefill ui --demo`),
// which serves it on 127.0.0.1 and prints the address. Either way it says
// which. With no share of your own, the Planner works at once and the Start
// view offers a demo share: a Samba server started on loopback for the
// session (when Samba is installed). Arguments go to `pipefill ui`
// (`npm start -- --port 8080 --no-open`).

import { spawnSync } from 'node:child_process';
import { ensureBuild, ensureNodeModules, root } from './lib/setup.mjs';

ensureNodeModules();
ensureBuild();

const { electronBinary, hasDisplay } = await import('../dist/platform/desktop.js');
const electron = electronBinary();
if (electron && hasDisplay()) {
  process.stderr.write('pipefill: starting the desktop app (Electron)\n');
  const run = spawnSync(electron, [root], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
process.stderr.write(
  `pipefill: ${electron ? 'no display for Electron' : "Electron's binary is not installed here"}: starting the web mode instead (the same app in a browser).\n`,
);
const { runCli } = await import('../dist/cli/main.js');
process.exitCode = await runCli(['ui', '--demo', ...process.argv.slice(2)]);
