#!/usr/bin/env -S node --no-memory-reducer
// The installed `pipefill` command. It runs the built CLI in dist/ (`npm run build`),
// in a Node started with the engine's V8 flags (src/platform/engine-flags.ts says why).
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/cli/bin.js', import.meta.url))) {
  process.stderr.write('pipefill: not built yet; run `npm run build` in the package folder, or use `npm run pipefill` from a clone.\n');
  process.exit(1);
}
await import('../dist/cli/bin.js');
