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
  // The history store's PostgreSQL backend is tested against a server the tests start.
  '/usr/lib/postgresql': 'postgresql',
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

/**
 * One Vitest run; returns its exit status and its counts. With no arguments,
 * `npm test` makes two: every test but the WAN lab's, files in parallel; then
 * the lab's (`*.lab.int.test.ts`) and those that compare runs made one after
 * another (`*.serial.int.test.ts`), one file at a time, so their timings are
 * the emulated link's and not those of the other tests sharing the two cores.
 */
function vitest(label, args) {
  const resultsFile = join(resultsDir, `vitest-results-${label}.json`);
  rmSync(resultsFile, { force: true });
  process.stderr.write(`pipefill: tests (vitest, ${label})\n`);
  const run = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  });
  if (!existsSync(resultsFile)) return { status: run.status ?? 1, passed: 0, failed: 1, skipped: 0 };
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  return {
    status: run.status ?? 1,
    passed: results.numPassedTests ?? 0,
    failed: results.numFailedTests ?? 0,
    skipped: (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0),
  };
}

// The WAN lab's tests, and others whose measurements compare runs made one after another (`*.serial.int.test.ts`).
const ALONE_TESTS = '**/*.{lab,serial}.int.test.ts';
const runs = vitestArgs.length > 0 ? [vitest('selected', vitestArgs)] : [vitest('all but the lab', ['--exclude', ALONE_TESTS]), vitest('the WAN lab and serial tests, one file at a time', ['--no-file-parallelism', 'lab.int.test', 'serial.int.test'])];
const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
console.log(`vitest: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
process.exit(runs.every((run) => run.status === 0) ? 0 : 1);
