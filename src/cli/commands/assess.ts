// pipefill assess: probe the path, run the generations' test copies, and say
// what limits them against the model's expectation.

import { recycleBinNote } from '../../presentation/clean-up-text.js';
import { copyRateText, testShortLabel } from '../../presentation/test-labels.js';
import { LAYER_LABELS } from '../../model/layer-labels.js';
import { loginText } from '../../presentation/login-text.js';
import { serverSeenText } from '../../presentation/summary.js';
import { bandwidthText } from '../../presentation/bandwidth-text.js';
import type { PipefillApi } from '../../contract/api.js';
import type { AssessInput, Report } from '../../contract/report.js';
import { CLIENT_PROFILE_IDS } from '../../model/client-profiles.js';
import { PipefillInputError } from '../../model/errors.js';
import { parseHostPort } from '../../model/share-path.js';
import { IPERF_DEFAULT_PORT } from '../../probe/bandwidth.js';
import { SERVER_PROFILE_IDS } from '../../model/server-profiles.js';
import { verdictOf } from '../../presentation/verdict.js';
import { copyStatus, lossEvidence } from '../../presentation/copy-status.js';
import { formatDuration, parseSizeBytes } from '../../model/units.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { interruptSignal, terminalProgress } from '../progress.js';
import { LOGIN_HELP, passwordIfTicketRefused, SECURITY_USAGE, SHARE_LOGIN_OPTIONS, shareLoginOptions, withPassword } from '../share-login.js';
import { formatTable } from '../table.js';
import { NO_HISTORY_OPTION, saveToHistory } from '../history-save.js';
import { checkOutPath, writeOutFile } from '../out-file.js';
import { confirmPlan, YES_HELP, YES_OPTION } from '../confirm-plan.js';
import { assessmentPlan, assessmentPlanText } from '../../presentation/run-plan.js';
import { siteOf } from '../../contract/history.js';
import { overBudgetNote, rateNote } from '../../presentation/report-views.js';
import { copyRateOf } from '../../contract/copy-rate.js';
import { readReportFile } from './recommend.js';

export const ASSESS_USAGE = `pipefill assess --share //HOST[:PORT]/SHARE[/FOLDER] --user U [--password-env VAR] [--domain D] ${SECURITY_USAGE} [--iperf HOST[:PORT]]
  [--client <id>] [--compare <ids|all>] [--profiles ${'<ids>'}] [--server <id>] [--quick | --budget SECONDS | --full]
  [--threads N] [--since EARLIER.json] [--file-size SIZE] [--dirset-scale S] [--json] [--out report.json] [--no-history] [--yes]
  Probes the path, copies as your client does (--client, default win11-24h2) and as Pipefill's best
  pipeline does (what the path allows), and says first how fast your copies run, what holds them
  back and what to change. --compare adds older generations (a readiness check); --profiles names
  every generation to test instead. The server is recognised from what it sends unless --server
  names it. Within a time budget: 60 s, --quick 20 s, or --budget SECONDS. A copy stops once its rate has settled and
  the rest of its workload is projected (the report says which figures are projected); --full moves
  every byte instead, however long that takes. --threads N copies your client's folders of small
  files as robocopy /MT:N does (N files at once; 1, the default, is Explorer's one at a time): run
  it after changing the copy tool to measure what the change bought. --since names an earlier
  report of the same share: each change it named that this run no longer names is told with what
  it promised and what this run measured. The report holds no password. The run is kept in
  the site history (pipefill history) unless --no-history. It says first what it will write, read
  and load; at a terminal it asks before it starts.
${YES_HELP}
${LOGIN_HELP}`;

const OPTIONS = {
  ...SHARE_LOGIN_OPTIONS,
  iperf: { type: 'string' },
  client: { type: 'string' },
  compare: { type: 'string' },
  profiles: { type: 'string' },
  server: { type: 'string' },
  quick: { type: 'boolean' },
  budget: { type: 'string' },
  full: { type: 'boolean' },
  threads: { type: 'string' },
  since: { type: 'string' },
  'file-size': { type: 'string' },
  'dirset-scale': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  ...NO_HISTORY_OPTION,
  ...YES_OPTION,
} as const;

export function formatReport(report: Report): string {
  const { probes } = report;
  const verdict = verdictOf(report);
  // The same names and words as the app's Results table.
  const table = formatTable(
    ['copy', 'measured', 'expected', 'rate', 'verdict', 'limited by'],
    report.diagnosis.findings.map((f, index) => [
      testShortLabel(f),
      `${formatDuration(f.measuredSeconds * 1000)}${f.projected ? '*' : ''}`,
      formatDuration(f.expectedSeconds * 1000),
      copyRateText(copyRateOf(report.copyTests, f).bitsPerSecond),
      copyStatus(f, verdict, lossEvidence(report, index)).text,
      LAYER_LABELS[f.limitedBy],
    ]),
    ['left', 'right', 'right', 'right', 'left', 'left'],
  );
  // The answer first (at most five lines and a blank one), then the evidence.
  return [
    ...verdict.lines,
    '',
    table,
    ...(report.diagnosis.findings.some((f) => f.projected) ? ['* projected from a copy stopped part-way to keep the run short (--full moves every byte)'] : []),
    ...rateNote(report, 'rate: '),
    ...[overBudgetNote(report)].filter((note) => note !== undefined),
    `Probed: RTT ${probes.rtt.medianMs.toFixed(2)} ms, bandwidth ${bandwidthText(probes.bandwidth)}; expectations for ${serverSeenText(report)}, as the copies found it.`,
    ...(probes.session?.login ? [`Logged on with ${loginText(probes.session.login)}.`] : []),
    ...(report.keptByRecycleBin ? [recycleBinNote(report.keptByRecycleBin)] : []),
  ].join('\n');
}

type ProfileId = (typeof CLIENT_PROFILE_IDS)[number];

function parseProfileId(flag: string, text: string): ProfileId {
  const id = text.trim();
  if (!(CLIENT_PROFILE_IDS as readonly string[]).includes(id))
    throw new PipefillInputError(`Unknown ${flag} profile ${JSON.stringify(id)}.`, `Valid: ${CLIENT_PROFILE_IDS.join(', ')}.`);
  return id as ProfileId;
}

function parseProfiles(flag: string, text: string | undefined): ProfileId[] | undefined {
  if (text === undefined) return undefined;
  // --compare all: every generation older or other than the client, for a readiness check.
  if (flag === '--compare' && text.trim() === 'all') return CLIENT_PROFILE_IDS.filter((id) => id !== 'pipefill-max');
  return text.split(',').map((item) => parseProfileId(flag, item));
}

function parseNumber(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(value >= min && value <= max))
    throw new PipefillInputError(`${flag} ${JSON.stringify(text)} is not a number from ${min} to ${max}.`, ASSESS_USAGE);
  return value;
}

function parseWholeNumber(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !(value >= min && value <= max))
    throw new PipefillInputError(`${flag} ${JSON.stringify(text)} is not a whole number from ${min} to ${max}.`, ASSESS_USAGE);
  return value;
}

export async function assessCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, ASSESS_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, ASSESS_USAGE);
  const server = optional(values, 'server');
  if (server !== undefined && !(SERVER_PROFILE_IDS as readonly string[]).includes(server))
    throw new PipefillInputError(`Unknown server profile ${JSON.stringify(server)}.`, `Valid: ${SERVER_PROFILE_IDS.join(', ')}.`);
  const profiles = parseProfiles('--profiles', optional(values, 'profiles'));
  const clientText = optional(values, 'client');
  const client = clientText === undefined ? undefined : parseProfileId('--client', clientText);
  const compare = parseProfiles('--compare', optional(values, 'compare'));
  if (profiles !== undefined && (client !== undefined || compare !== undefined))
    throw new PipefillInputError('Give --profiles, or --client with --compare, not both.', ASSESS_USAGE);
  const iperf = optional(values, 'iperf');
  const out = optional(values, 'out');
  // A file that cannot be written fails now, before the password prompt and a minute of copies.
  if (out !== undefined) checkOutPath(out);
  const budget = optional(values, 'budget');
  const fileSize = optional(values, 'file-size');
  const dirsetScale = optional(values, 'dirset-scale');
  const threads = optional(values, 'threads');
  // An earlier report that cannot be read fails now, before the password prompt and a minute of copies.
  const sincePath = optional(values, 'since');
  const since = sincePath === undefined ? undefined : readReportFile(sincePath);
  if (since && siteOf(since.target.share) !== siteOf(shareLoginOptions(values).share))
    throw new PipefillInputError(`${sincePath} is a report of ${since.target.share}, not of this share.`, 'Give --since a report of the share assessed now.');
  if ([values.quick, values.full, budget !== undefined].filter(Boolean).length > 1)
    throw new PipefillInputError('Give at most one of --quick, --budget and --full.', ASSESS_USAGE);
  // A bad address fails here, before the password prompt.
  if (iperf !== undefined) parseHostPort(iperf, IPERF_DEFAULT_PORT);
  const login = {
    ...shareLoginOptions(values),
    ...(iperf === undefined ? {} : { iperf }),
    ...(profiles === undefined ? {} : { profiles }),
    ...(client === undefined ? {} : { client }),
    ...(compare === undefined ? {} : { compare: compare.filter((id) => id !== client) }),
    ...(server === undefined ? {} : { server: server as NonNullable<AssessInput['server']> }),
    ...(values.quick ? { quick: true } : {}),
    ...(values.full ? { full: true } : {}),
    ...(budget === undefined ? {} : { budgetSeconds: parseNumber('--budget', budget, 5, 3600) }),
    ...(threads === undefined ? {} : { threads: parseWholeNumber('--threads', threads, 1, 128) }),
    ...(since === undefined ? {} : { since }),
    ...(fileSize === undefined ? {} : { fileBytes: Math.round(parseSizeBytes(fileSize)) }),
    ...(dirsetScale === undefined ? {} : { dirsetScale: parseNumber('--dirset-scale', dirsetScale, 0.01, 1.4) }),
  };
  // What will happen, before the password prompt and the first byte.
  const asked = await confirmPlan(assessmentPlanText(assessmentPlan(login)), values.yes ?? false, output);
  const input: AssessInput = await withPassword(login, values);
  const progress = terminalProgress('assess');
  const interrupt = interruptSignal();
  try {
    // The budget counts from the process's start (performance.now()'s origin): the command is what a person times.
    // Where a person was asked something (the plan, a password), from their last answer instead.
    // (No password is asked where the person's own Kerberos ticket logs on: withPassword gives an empty one.)
    const answered = asked || (input.password !== '' && optional(values, 'password-env') === undefined);
    const report = await passwordIfTicketRefused(
      input,
      values,
      (login) => api.assess(login, { signal: interrupt.signal, onProgress: progress.update, startedAtMs: answered ? performance.now() : 0 }),
      (line) => output.err(line),
    );
    progress.done();
    // The run is printed and kept first: a file that cannot be written (a full disk) must not lose it.
    if (values.json) printJson(output, report);
    else output.out(formatReport(report));
    await saveToHistory(api, report, values, output);
    if (out !== undefined) writeOutFile(out, `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    progress.done();
    interrupt.dispose();
  }
}
