// `npm run --silent pipefill -- <args>`: the CLI from the repo root, built first if needed.
import { endOnSetupErrors, ensureBuild, ensureNodeModules, ensureSupportedNode } from './lib/setup.mjs';

const setupDone = endOnSetupErrors();
ensureSupportedNode();
ensureNodeModules();
ensureBuild();
setupDone();
await import('../dist/cli/bin.js');
