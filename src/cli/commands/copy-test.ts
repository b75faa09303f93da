// pipefill copy-test: one timed test copy against a real share.

import { confirmPlan, YES_HELP, YES_OPTION } from '../confirm-plan.js';
import { copyTestPlanText } from '../../presentation/run-plan.js';
import { copyRateText } from '../../presentation/test-labels.js';
import { recycleBinNote } from '../../presentation/clean-up-text.js';
import { loginText } from '../../presentation/login-text.js';
import type { PipefillApi } from '../../contract/api.js';
import { apiContract } from '../../contract/api.js';
import { parseInput } from '../../contract/validate.js';
import { pathEvents, projectionText, protectionText } from '../../presentation/report-views.js';
import type { CopyTestInput, CopyTestResult } from '../../contract/copy-test.js';
import { CLIENT_PROFILE_IDS } from '../../model/client-profiles.js';
import { PipefillInputError } from '../../model/errors.js';
import { formatBinaryBytes, formatBytes, formatDuration } from '../../model/units.js';
import { parseWorkload } from '../../model/workloads.js';
import { parseOptions, required } from '../args.js';
import { LOGIN_HELP, passwordIfTicketRefused, SECURITY_USAGE, SHARE_LOGIN_OPTIONS, shareLoginOptions, withPassword } from '../share-login.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { interruptSignal, terminalProgress } from '../progress.js';
import { formatTable } from '../table.js';

export const COPY_TEST_USAGE = `pipefill copy-test --share //HOST[:PORT]/SHARE[/FOLDER] --user U [--password-env VAR] [--domain D] ${SECURITY_USAGE} \\
  --profile <id> --op <read|write> --workload <file:32MiB|tr3869-dirset[:scale]> [--budget SECONDS] [--no-verify] [--json]
  Profiles: ${CLIENT_PROFILE_IDS.join(', ')}. Works in a scratch folder it removes again.
  --budget stops the copy once its rate has settled (or after SECONDS) and projects the whole workload's time.
  It says first what it will write and read; at a terminal it asks before it starts.
${YES_HELP}
  The password comes from the environment variable VAR, or a prompt; never from the command line.
${LOGIN_HELP}`;

const OPTIONS = {
  ...SHARE_LOGIN_OPTIONS,
  profile: { type: 'string' },
  op: { type: 'string' },
  workload: { type: 'string' },
  'no-verify': { type: 'boolean' },
  ...YES_OPTION,
  budget: { type: 'string' },
  json: { type: 'boolean' },
} as const;

function parseSeconds(text: string): number {
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(seconds > 0) || seconds > 3600)
    throw new PipefillInputError(`--budget ${JSON.stringify(text)} is not a number of seconds.`, 'Give it as e.g. --budget 5 (at most 3600).');
  return seconds;
}

export function formatCopyTest(share: string, result: CopyTestResult): string {
  const rows: [string, string][] = [
    ['time', formatDuration(result.seconds * 1000)],
    ['throughput', copyRateText(result.throughputMbps * 1e6)],
    ['data', `${formatBytes(result.bytes)} in ${result.ops} SMB operations, ${result.metadataRoundTrips} metadata round trips`],
    [
      'negotiated',
      `SMB ${result.negotiated.dialect}, max read ${formatBinaryBytes(result.negotiated.maxReadSize)}, max write ${formatBinaryBytes(result.negotiated.maxWriteSize)}, up to ${result.negotiated.creditsGrantedMax} credits`,
    ],
    ['protection', protectionText(result.negotiated)],
    ...(result.negotiated.login ? ([['logon', loginText(result.negotiated.login) ?? '']] as [string, string][]) : []),
    ...(result.projected ? ([['projected', projectionText(result.projected)]] as [string, string][]) : []),
    ['verified', result.verified ? 'every byte checked against what was written' : 'no (--no-verify)'],
  ];
  if (result.emulation) rows.push(['note', result.emulation]);
  if (result.keptByRecycleBin) rows.push(['note', recycleBinNote(result.keptByRecycleBin)]);
  for (const event of pathEvents(result)) rows.push(['path', event]);
  const table = formatTable(['', ''], rows)
    .split('\n')
    .slice(1)
    .map((line) => `  ${line}`)
    .join('\n');
  return `${result.profile} ${result.op} ${result.workload} ${result.op === 'read' ? 'from' : 'to'} ${share}\n\n${table}`;
}

export async function copyTestCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, COPY_TEST_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, COPY_TEST_USAGE);
  const login = shareLoginOptions(values);
  const choices = {
    ...login,
    password: '',
    profile: required(values, 'profile', 'win7-smb2'),
    op: required(values, 'op', 'write'),
    workload: required(values, 'workload', 'file:32MiB'),
    ...(values['no-verify'] ? { verify: false } : {}),
    ...(values.budget === undefined ? {} : { budgetSeconds: parseSeconds(values.budget) }),
  };
  // Check everything else before asking for a password.
  const checked = parseInput(apiContract.copyTest.input, choices, 'copy-test options');
  parseWorkload(choices.workload);
  await confirmPlan(copyTestPlanText({ ...checked, share: checked.share.text }), values.yes ?? false, output);
  const input = await withPassword(choices, values);
  const progress = terminalProgress(`${input.profile} ${input.op}`);
  const interrupt = interruptSignal();
  try {
    const result = await passwordIfTicketRefused(
      input as CopyTestInput,
      values,
      (login) => api.copyTest(login, { signal: interrupt.signal, onProgress: progress.update }),
      (line) => output.err(line),
    );
    progress.done();
    if (values.json) printJson(output, result);
    else output.out(formatCopyTest(login.share, result));
  } finally {
    progress.done();
    interrupt.dispose();
  }
}
