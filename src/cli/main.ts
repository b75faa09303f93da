// The headless entry point: `pipefill <command> [options]`. It runs the same
// contract the desktop app and the web mode use.

import { openLocalServices } from '../service/local-api.js';
import { parseStoreSpec } from '../store/open-store.js';
import { UnsafePathError } from '../platform/safe-file.js';
import { PipefillError, PipefillInputError } from '../model/errors.js';
import { ANALYZE_USAGE, analyzeCommand } from './commands/analyze.js';
import { ASSESS_USAGE, assessCommand } from './commands/assess.js';
import { CAPACITY_USAGE, capacityCommand } from './commands/capacity.js';
import { HISTORY_USAGE, historyCommand } from './commands/history.js';
import { COPY_TEST_USAGE, copyTestCommand } from './commands/copy-test.js';
import { LAB_USAGE, labCommand } from './commands/lab.js';
import { PLAN_USAGE, planCommand } from './commands/plan.js';
import { PROBE_USAGE, probeCommand } from './commands/probe.js';
import { PREDICT_USAGE, predictCommand } from './commands/predict.js';
import { PROFILES_USAGE, profilesCommand } from './commands/profiles.js';
import { APPLY_USAGE, applyCommand } from './commands/apply.js';
import { RECOMMEND_USAGE, recommendCommand } from './commands/recommend.js';
import { REPORT_USAGE, reportCommand } from './commands/report.js';
import { SERVICE_USAGE, serviceCommand } from './commands/service.js';
import { UI_USAGE, uiCommand } from './commands/ui.js';
import { didYouMean } from './did-you-mean.js';
import type { Output } from './output.js';
import { ignoreClosedOutput, processOutput } from './output.js';
import { unexpectedErrorText } from './unexpected-error.js';

const COMMANDS = {
  predict: { run: predictCommand, usage: PREDICT_USAGE },
  plan: { run: planCommand, usage: PLAN_USAGE },
  profiles: { run: profilesCommand, usage: PROFILES_USAGE },
  'copy-test': { run: copyTestCommand, usage: COPY_TEST_USAGE },
  probe: { run: probeCommand, usage: PROBE_USAGE },
  assess: { run: assessCommand, usage: ASSESS_USAGE },
  capacity: { run: capacityCommand, usage: CAPACITY_USAGE },
  lab: { run: labCommand, usage: LAB_USAGE },
  ui: { run: uiCommand, usage: UI_USAGE },
  recommend: { run: recommendCommand, usage: RECOMMEND_USAGE },
  analyze: { run: analyzeCommand, usage: ANALYZE_USAGE },
  apply: { run: applyCommand, usage: APPLY_USAGE },
  report: { run: reportCommand, usage: REPORT_USAGE },
  history: { run: historyCommand, usage: HISTORY_USAGE },
  service: { run: serviceCommand, usage: SERVICE_USAGE },
} as const;

/** Each command's usage text, as `pipefill <command> --help` prints it (docs/cli.md is made from these). */
export const COMMAND_USAGES: Readonly<Record<keyof typeof COMMANDS, string>> = Object.fromEntries(
  Object.entries(COMMANDS).map(([name, command]) => [name, command.usage]),
) as Record<keyof typeof COMMANDS, string>;

export const USAGE = `Pipefill: why copies to an SMB share are slow, how fast they should be, and what to change.

Usage:
${[UI_USAGE, PLAN_USAGE, PREDICT_USAGE, ASSESS_USAGE, CAPACITY_USAGE, RECOMMEND_USAGE, ANALYZE_USAGE, APPLY_USAGE, REPORT_USAGE, HISTORY_USAGE, COPY_TEST_USAGE, PROBE_USAGE, LAB_USAGE, PROFILES_USAGE, SERVICE_USAGE].map((text) => `  ${text.replace(/\n/g, '\n  ')}`).join('\n\n')}

  pipefill help      this text`;

/** `--store X` or `--store=X` taken out of a command's arguments. */
export function takeStoreOption(argv: readonly string[]): { store: string | undefined; args: string[] } {
  const args: string[] = [];
  let store: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? '';
    if (arg === '--') {
      args.push(...argv.slice(index));
      break;
    }
    if (arg === '--store') {
      store = argv[index + 1];
      if (store === undefined || store.startsWith('--'))
        throw new PipefillInputError('--store needs a value.', 'Give --store postgres://USER@HOST/DB or a SQLite file path.');
      index++;
    } else if (arg.startsWith('--store=')) store = arg.slice('--store='.length);
    else args.push(arg);
  }
  return { store, args };
}

/**
 * Runs one command line; returns the process exit code: 0 ok, 2 bad input, 3 a target not met (capacity
 * --target, report compare with no site passing), 1 anything else (unreachable share, refused login, ...).
 */
export async function runCli(argv: readonly string[], output: Output = processOutput): Promise<number> {
  if (output === processOutput) ignoreClosedOutput();
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    output.out(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = (COMMANDS as Record<string, (typeof COMMANDS)[keyof typeof COMMANDS]>)[name];
  if (!command) {
    const meant = didYouMean(name, Object.keys(COMMANDS));
    output.err(`error: unknown command ${JSON.stringify(name)}${meant ? ` (did you mean ${meant}?)` : ''}\nhint: pipefill help lists the commands.`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    output.out(command.usage);
    return 0;
  }
  try {
    // --store (any command that keeps or reads the site history) is the API's, not the command's.
    const { store, args } = takeStoreOption(rest);
    const spec = store === undefined ? undefined : parseStoreSpec(store);
    const services = openLocalServices(spec === undefined ? {} : { store: spec });
    try {
      const code: unknown = await command.run(args, services.api, output, spec === undefined ? {} : { store: spec });
      return typeof code === 'number' ? code : 0;
    } finally {
      await services.close();
    }
  } catch (error) {
    if (error instanceof PipefillError) {
      output.err(`error: ${error.message}\nhint: ${error.hint}`);
      return error instanceof PipefillInputError ? 2 : 1;
    }
    if (error instanceof UnsafePathError) {
      output.err(`error: ${error.message}\nhint: ${error.hint}`);
      return 1;
    }
    output.err(unexpectedErrorText(error, process.env.PIPEFILL_DEBUG === '1'));
    return 1;
  }
}
