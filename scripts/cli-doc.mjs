// `npm run docs:cli`: writes docs/cli.md from the built CLI's usage text (src/cli/reference.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuild, ensureNodeModules, ensureSupportedNode, root } from './lib/setup.mjs';

ensureSupportedNode();
ensureNodeModules();
ensureBuild();
const { cliReference } = await import('../dist/cli/reference.js');
writeFileSync(join(root, 'docs', 'cli.md'), cliReference());
process.stderr.write('wrote docs/cli.md\n');
