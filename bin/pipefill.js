#!/usr/bin/env -S node --no-memory-reducer
// The installed `pipefill` command. It runs the built CLI in dist/ (`npm run build`),
// in a Node started with the engine's V8 flags (src/platform/engine-flags.ts says why).
import { existsSync } from 'node:fs';
import { MINIMUM_NODE, nodeIsRecentEnough } from '../scripts/lib/node-runtime.mjs';

// An older Node does not fail cleanly: Debian's Node 20 took this command's service down with SIGSEGV in
// better-sqlite3 as soon as the history was listed. Say so, and how, before anything loads.
if (!nodeIsRecentEnough(process.versions.node)) {
  process.stderr.write(
    `pipefill: needs Node.js ${MINIMUM_NODE.join('.')} or later; this is ${process.version}. From a clone, \`npm run pipefill -- ...\` fetches it once into .tools/.\n`,
  );
  process.exit(1);
}

if (!existsSync(new URL('../dist/cli/bin.js', import.meta.url))) {
  process.stderr.write('pipefill: not built yet; run `npm run build` in the package folder, or use `npm run pipefill` from a clone.\n');
  process.exit(1);
}
await import('../dist/cli/bin.js');
