// `npm run --silent pipefill -- <args>`: the CLI from the repo root, built first if needed.
import { ensureBuild, ensureNodeModules, ensureSupportedNode } from './lib/setup.mjs';

ensureSupportedNode();
ensureNodeModules();
ensureBuild();
await import('../dist/cli/bin.js');
