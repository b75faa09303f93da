// Which of the lab's experiments a change touches: those whose tests depend,
// through the import graph (and the built CLI they spawn), on a file the
// change touched. `npm run test:lab -- --changed [ref]` runs only those, so
// a developer can check a change in one sitting; the closing note's table
// still comes from the full run. A change to what every experiment runs on
// (the native addons, the test runner, the packages) selects them all; one
// to the docs or the page selects none.
// Only Node built-ins here.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dependenciesOf, importGraph } from './import-graph.mjs';

/** The built CLI, which many experiments run (in the lab's namespaces) rather than import. */
const BUILT_CLI = /\bdist\/cli\/bin\.js\b/;
/** Every call a command makes goes through the contract to its in-process implementation. */
const SERVICE = 'src/service/local-api.ts';

/**
 * The graph with what running the built CLI depends on: a file that runs it
 * depends on the commands it names (a command's name as a string literal in
 * the file: 'assess', 'copy-test') and on the service they call; where it
 * names none, on the whole CLI.
 */
function withCliRuns(root, graph) {
  const commands = readdirSync(join(root, 'src', 'cli', 'commands'))
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => name.slice(0, -'.ts'.length));
  for (const [file, targets] of graph) {
    const text = readFileSync(join(root, file), 'utf8');
    if (!BUILT_CLI.test(text)) continue;
    const named = commands.filter((command) => text.includes(`'${command}'`));
    const runs = named.length > 0 ? [...named.map((command) => `src/cli/commands/${command}.ts`), SERVICE] : ['src/cli/bin.ts'];
    graph.set(file, [...new Set([...targets, ...runs])].sort());
  }
  return graph;
}

/** Changed here, every experiment is touched: the addons, the lab's runner and set-up, the packages, the build. */
const EVERYTHING = [/^native\//, /^scripts\/lib\//, /^scripts\/test-lab\.mjs$/, /^package(-lock)?\.json$/, /^tsconfig[\w.]*\.json$/, /^vitest\.config\.ts$/];

/** The files changed since `ref` (committed or not, and new files not yet added), as paths relative to `root`. */
export function changedFiles(root, ref) {
  const git = (...args) => {
    const run = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`);
    return run.stdout.split('\n').filter(Boolean);
  };
  return [...new Set([...git('diff', '--name-only', ref), ...git('ls-files', '--others', '--exclude-standard')])].sort();
}

/**
 * The lab test files among `tests` that `changed` touches, each with the
 * changed file it depends on first (the reason it runs).
 */
export function labTestsTouchedBy(root, changed, tests) {
  const everything = changed.find((file) => EVERYTHING.some((pattern) => pattern.test(file)));
  if (everything) return tests.map((test) => ({ test, because: everything }));
  const graph = withCliRuns(root, importGraph(root, ['src'], { withTests: true }));
  const touched = new Set(changed);
  const selected = [];
  for (const test of tests) {
    const because = [...dependenciesOf(graph, test)].sort().find((file) => touched.has(file));
    if (because) selected.push({ test, because });
  }
  return selected;
}
