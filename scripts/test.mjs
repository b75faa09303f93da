// `npm test`: every test, from a fresh clone. Installs what the tests need on
// first use, then lint (layering rules included), typecheck, and Vitest.
// Arguments go to Vitest: `npm test -- src/model` runs one folder.
// Ends with one plain line, "vitest: N passed, N failed, N skipped".

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, root, runStep } from './lib/setup.mjs';

ensureNodeModules();
// The integration tests start their own servers from Debian's packages, and
// the WAN lab builds its forwarder and joins network namespaces, and node-gyp
// builds the libiperf binding.
ensureDebianPackages({
  smbd: 'samba',
  smbpasswd: 'samba',
  smbclient: 'smbclient',
  iperf3: 'iperf3',
  '/usr/include/iperf_api.h': 'libiperf-dev',
  ip: 'iproute2',
  ss: 'iproute2',
  cc: 'gcc',
  'g++': 'g++',
  make: 'make',
  python3: 'python3',
  // The e2e tests drive the web mode in Debian's Chromium, which also prints
  // the PDF export; pdftoppm renders its pages to PNG for a look.
  chromium: 'chromium',
  pdftoppm: 'poppler-utils',
});
// The lab runs the built CLI inside its namespaces.
ensureBuild();

const bin = (name) => join(root, 'node_modules', '.bin', name);
const vitestArgs = process.argv.slice(2);
if (vitestArgs.length === 0) {
  runStep('lint (eslint)', bin('eslint'), ['.', '--max-warnings', '0']);
  runStep('typecheck (tsc, all sources)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, src/model without Node or DOM)', bin('tsc'), ['-p', 'src/model/tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, Electron main and preload)', bin('tsc'), ['-p', 'app/tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, the page: DOM, no Node)', bin('tsc'), ['-p', 'app/renderer/tsconfig.json']);
}

const resultsDir = join(root, 'node_modules', '.cache', 'pipefill');
mkdirSync(resultsDir, { recursive: true });
const resultsFile = join(resultsDir, 'vitest-results.json');
rmSync(resultsFile, { force: true });
process.stderr.write('pipefill: tests (vitest)\n');
const run = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...vitestArgs], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
});

if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
  console.log(`vitest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
} else {
  console.log('vitest: 0 passed, 1 failed (no results were written)');
}
process.exit(run.status ?? 1);
