// `npm start`: runs the app. Until the desktop shell lands it is the what-if
// planner in the terminal, on the default branch link unless told otherwise
// (`npm start -- --preset asia-intercontinental`).
import { ensureBuild, ensureNodeModules } from './lib/setup.mjs';

ensureNodeModules();
ensureBuild();
const { runCli } = await import('../dist/cli/main.js');
const args = process.argv.slice(2);
process.exitCode = await runCli(['plan', ...args]);
if (process.exitCode === 0 && args.length === 0) {
  process.stderr.write(
    "\nOther links: npm start -- --preset <id> (ids: npm run --silent pipefill -- profiles), or --bandwidth 20mbit --rtt 80ms.\n" +
      'One scenario in depth: npm run --silent pipefill -- predict --help\n',
  );
}
