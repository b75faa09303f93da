// `npm run test:lab`: the WAN lab's fidelity experiments (queue, budget,
// capacity, assessment, bench cells, a failing link, the lab's own rate, delay
// and loss) and the loopback runs compared one after another. Each holds the
// model, or the lab, to a bound from what the product promises, measuring a
// cell again when its first run misses (src/test-support/lab-fidelity.ts says
// how, and why a false failure stays below 1 in 1000 per cell). Files run one
// at a time, so their timings are the emulated link's and not those of other
// tests sharing the two cores. Prints every cell's measured/model ratio as a
// table, then the plain closing line. Run it whenever the model, the engine or
// the lab changes. Arguments go to Vitest (`npm run test:lab -- queue`);
// `--changed [ref]` runs only the experiments a change touches
// (scripts/lib/lab-selection.mjs), for a check in one sitting.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, ensureSupportedNode, root } from './lib/setup.mjs';
import { FIDELITY_TESTS, finish, runVitest } from './lib/vitest-run.mjs';
import { changedFiles, labTestsTouchedBy } from './lib/lab-selection.mjs';
import { spawnSync } from 'node:child_process';

ensureSupportedNode();
ensureNodeModules();
ensureDebianPackages({
  smbd: 'samba',
  pdbedit: 'samba',
  smbclient: 'smbclient',
  iperf3: 'iperf3',
  '/usr/include/iperf_api.h': 'libiperf-dev',
  ip: 'iproute2',
  ss: 'iproute2',
  cc: 'gcc',
  make: 'make',
});
// The lab runs the built CLI inside its namespaces.
ensureBuild();

const started = Date.now();
const table = join(root, 'node_modules', '.cache', 'pipefill', 'lab-fidelity.jsonl');
rmSync(table, { force: true });
// `--changed [ref]`: only the experiments whose tests depend on a file changed since `ref` (default: the last commit).
const args = process.argv.slice(2);
const changedAt = args.indexOf('--changed');
let selected = args;
if (changedAt >= 0) {
  const refGiven = args[changedAt + 1] !== undefined && !args[changedAt + 1].startsWith('-');
  const ref = refGiven ? args[changedAt + 1] : 'HEAD';
  const rest = args.filter((_, index) => index !== changedAt && !(refGiven && index === changedAt + 1));
  const tests = spawnSync('git', ['ls-files', ...FIDELITY_TESTS.map((glob) => `src/${glob}`)], { cwd: root, encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  const touched = labTestsTouchedBy(root, changedFiles(root, ref), tests);
  if (touched.length === 0) {
    console.log(`No lab experiment depends on what changed since ${ref}.`);
    process.exit(0);
  }
  console.log(`Lab experiments touched by the changes since ${ref} (${touched.length} of ${tests.length}):`);
  for (const { test, because } of touched) console.log(`  ${test}  (depends on ${because})`);
  selected = [...rest, ...touched.map(({ test }) => test)];
}
const run = runVitest(
  'the lab experiments, one file at a time',
  ['--no-file-parallelism', ...(selected.length > 0 ? selected : FIDELITY_TESTS.map((glob) => glob.replace('**/*', '')))],
  { PIPEFILL_LAB_TABLE: table },
);

const number = (value) =>
  !Number.isFinite(value) ? String(value) : Math.abs(value) >= 100 ? value.toFixed(1) : Math.abs(value) >= 1 ? value.toFixed(2) : value.toPrecision(3);
const rows = existsSync(table)
  ? readFileSync(table, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
const header = ['experiment', 'cell', 'measured', 'model', 'ratio', 'bound', 'runs', 'verdict'];
const lines = rows.map(({ experiment, cell, passed, observations }) => {
  const [first] = observations;
  const missed = observations.filter((observation) => !observation.holds).length;
  return [
    experiment,
    cell,
    observations.map((observation) => number(observation.measured)).join(' / '),
    `${number(first.model)} ${first.unit}`,
    first.model ? (first.measured / first.model).toFixed(3) : '-',
    first.bound,
    observations.length === 1 ? '1' : `${observations.length} (${missed} missed)`,
    passed ? 'holds' : 'FAILS',
  ];
});
const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => String(line[column]).length)));
const print = (cells) =>
  console.log(
    cells
      .map((cell, column) => String(cell).padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
console.log(
  `\nLab fidelity: ${rows.length} cells, ${rows.filter((row) => !row.passed).length} failing; ratio = measured / model on the first run; ${((Date.now() - started) / 60000).toFixed(1)} min`,
);
print(header);
for (const line of lines) print(line);
console.log('');
finish([run]);
