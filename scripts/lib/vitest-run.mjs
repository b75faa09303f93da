// One Vitest run for `npm test` and `npm run test:lab`: its exit status and
// its counts, read from Vitest's JSON report, so each script can end with one
// plain line ("vitest: N passed, N failed, N skipped").

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './setup.mjs';

const resultsDir = join(root, 'node_modules', '.cache', 'pipefill');

export function runVitest(label, args, env = {}) {
  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `vitest-results-${label.replace(/[^a-z0-9]+/gi, '-')}.json`);
  rmSync(resultsFile, { force: true });
  process.stderr.write(`pipefill: tests (vitest, ${label})\n`);
  const run = spawnSync(
    join(root, 'node_modules', '.bin', 'vitest'),
    ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...args],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', ...env },
    },
  );
  if (!existsSync(resultsFile)) return { status: run.status ?? 1, passed: 0, failed: 1, skipped: 0 };
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  return {
    status: run.status ?? 1,
    passed: results.numPassedTests ?? 0,
    failed: results.numFailedTests ?? 0,
    skipped: (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0),
  };
}

/** The closing line both suites print, and the exit status. */
export function finish(runs) {
  const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
  console.log(`vitest: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
  process.exit(runs.every((run) => run.status === 0) ? 0 : 1);
}

/**
 * The WAN lab's fidelity experiments and the runs compared one after another
 * (`*.lab.int.test.ts`, `*.serial.int.test.ts`): `npm run test:lab` runs them,
 * `npm test` leaves them out.
 */
export const FIDELITY_TESTS = ['**/*.lab.int.test.ts', '**/*.serial.int.test.ts'];
