// `npm run --silent pipefill -- <args>`: the CLI from the repo root, built first if needed.
import { ensureBuild, ensureNodeModules } from './lib/setup.mjs';

ensureNodeModules();
ensureBuild();
await import('../dist/cli/bin.js');
