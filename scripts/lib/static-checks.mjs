// Lint, format and the typechecks, as one child process that runs beside the
// tests (scripts/test.mjs). Its output goes to a file, not a pipe: the tests
// run through spawnSync, which would leave a pipe unread and stall the checks
// once it filled. The file is printed, and its status counted, after the tests.

import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, runStep } from './setup.mjs';

/** What the formatter holds (package.json's format and lint scripts name the same). */
const FORMATTED = ['src/**/*.{ts,tsx}', 'app/**/*.{ts,tsx,cts}', 'e2e/**/*.ts', 'scripts/**/*.{mjs,ts}', 'bin/**/*.js', '*.{ts,js}'];

/** Runs every check in turn; exits with the first failure's status (runStep). */
export function runStaticChecks() {
  const bin = (name) => join(root, 'node_modules', '.bin', name);
  runStep('lint (eslint)', bin('eslint'), ['.', '--max-warnings', '0']);
  // Informational: functions that have grown past about 80 lines, the ones to split before lint's 120 fails them.
  runStep('long functions (flagged, not failed)', process.execPath, [join(root, 'scripts', 'long-functions.mjs')]);
  runStep('format (prettier --check; `npm run format` fixes it)', bin('prettier'), ['--check', ...FORMATTED]);
  runStep('typecheck (tsc, all sources)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, src/model without Node or DOM)', bin('tsc'), ['-p', 'src/model/tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, Electron main and preload)', bin('tsc'), ['-p', 'app/tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, the page: DOM, no Node)', bin('tsc'), ['-p', 'app/renderer/tsconfig.json']);
}

/**
 * Starts the checks in a child process; resolves, once it ends, to a run as
 * finish() counts them (a failed check is one failure), its output printed.
 */
export function startStaticChecks() {
  const dir = join(root, 'node_modules', '.cache', 'pipefill');
  mkdirSync(dir, { recursive: true });
  const logPath = join(dir, 'static-checks.log');
  const log = openSync(logPath, 'w');
  process.stderr.write('pipefill: lint, format and typecheck (beside the tests; their output follows the tests)\n');
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { cwd: root, stdio: ['ignore', log, log] });
  return new Promise((resolve) => {
    child.once('error', (error) => {
      closeSync(log);
      process.stderr.write(`pipefill: the checks did not start (${error.message})\n`);
      resolve({ status: 1, passed: 0, failed: 1, skipped: 0 });
    });
    child.once('close', (code) => {
      closeSync(log);
      process.stderr.write(readFileSync(logPath, 'utf8'));
      const status = code ?? 1;
      resolve({ status, passed: 0, failed: status === 0 ? 0 : 1, skipped: 0 });
    });
  });
}

// Run as a script: the child startStaticChecks starts.
if (process.argv[1] === fileURLToPath(import.meta.url)) runStaticChecks();
