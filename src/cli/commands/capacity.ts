// pipefill capacity: how many people can copy at once, stepped NetBench-style
// against a real share, with the model's curve beside the measured one.

import type { PipefillApi } from '../../contract/api.js';
import { apiContract } from '../../contract/api.js';
import type { CapacityInput, CapacityResult } from '../../contract/capacity.js';
import { MAX_CAPACITY_STEPS } from '../../contract/capacity.js';
import { parseInput } from '../../contract/validate.js';
import { CAPACITY_OPS, MAX_CAPACITY_USERS } from '../../model/capacity.js';
import { CLIENT_PROFILE_IDS } from '../../model/client-profiles.js';
import { PipefillInputError } from '../../model/errors.js';
import { SERVER_PROFILE_IDS } from '../../model/server-profiles.js';
import { formatBinaryBytes, parseSizeBytes } from '../../model/units.js';
import { kneeText, modelServerText } from '../../presentation/capacity-text.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { interruptSignal, terminalProgress } from '../progress.js';
import { LOGIN_HELP, passwordIfTicketRefused, SECURITY_USAGE, SHARE_LOGIN_OPTIONS, shareLoginOptions, withPassword } from '../share-login.js';
import { formatTable } from '../table.js';
import { formatOf, TARGET_NOT_MET, writeExport } from './report.js';
import { NO_HISTORY_OPTION, saveToHistory } from '../history-save.js';
import { checkOutPath } from '../out-file.js';
import { confirmPlan, YES_HELP, YES_OPTION } from '../confirm-plan.js';
import { capacityPlanText } from '../../presentation/run-plan.js';

export const CAPACITY_USAGE = `pipefill capacity --share //HOST[:PORT]/SHARE[/FOLDER] --user U [--password-env VAR] [--domain D] ${SECURITY_USAGE} \\
  [--clients 1,2,4,8,16,32] [--profile ID] [--op ${CAPACITY_OPS.join('|')}] [--seconds N] [--warmup N] [--file-size SIZE] \\
  [--iperf HOST[:PORT]] [--server ID] [--buffer SIZE] [--knee-share F] [--target USERS,MBPS,MS] [--out FILE.{json,html,pdf,csv}] [--json] [--no-history] [--yes]
  Steps up the number of simulated people copying at once (each with its own session, connection and file in a
  scratch folder it removes again), measures what they move together and each, how fairly, and what a person
  waits meanwhile (SMB2 ECHO, a small file's open), and puts the model's curve beside it. At most ${MAX_CAPACITY_USERS} people,
  ${MAX_CAPACITY_STEPS} steps. --target 30,5,50: do 30 people get 5 Mb/s each with under 50 ms added per round trip?
  (exit code 3 when not). The run is kept in the site history (pipefill history) unless --no-history.
  It says first how long it loads the link and what it writes; at a terminal it asks before it starts.
  Profiles: ${CLIENT_PROFILE_IDS.join(', ')}. Servers: ${SERVER_PROFILE_IDS.join(', ')}.
${YES_HELP}
${LOGIN_HELP}`;

const OPTIONS = {
  ...SHARE_LOGIN_OPTIONS,
  clients: { type: 'string' },
  profile: { type: 'string' },
  op: { type: 'string' },
  seconds: { type: 'string' },
  warmup: { type: 'string' },
  'file-size': { type: 'string' },
  iperf: { type: 'string' },
  server: { type: 'string' },
  buffer: { type: 'string' },
  'knee-share': { type: 'string' },
  target: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  ...NO_HISTORY_OPTION,
  ...YES_OPTION,
} as const;

/** The export format a file name asks for. */
function number(text: string, option: string, example: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value))
    throw new PipefillInputError(`--${option} ${JSON.stringify(text)} is not a number.`, `Give it as e.g. --${option} ${example}.`);
  return value;
}

/** `1,2,4,8`: whole numbers, rising (the contract checks the range). */
export function parseClients(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d+$/.test(part)))
    throw new PipefillInputError(`--clients ${JSON.stringify(text)} is not a list of whole numbers.`, 'Give it as e.g. --clients 1,2,4,8,16,32.');
  return parts.map(Number);
}

/** `30,5,50`: people, Mb/s each, ms added at most. */
export function parseTarget(text: string): NonNullable<CapacityInput['target']> {
  const parts = text.split(',');
  if (parts.length !== 3)
    throw new PipefillInputError(
      `--target ${JSON.stringify(text)} is not USERS,MBPS,MS.`,
      'Give it as e.g. --target 30,5,50 (30 people, 5 Mb/s each, under 50 ms added).',
    );
  const [users, mbps, ms] = parts.map((part) => number(part, 'target', '30,5,50'));
  return { users: users ?? NaN, perUserMbps: mbps ?? NaN, addedLatencyMs: ms ?? NaN };
}

const mbps = (value: number | null) => (value === null ? '-' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const ms = (value: number | null) => (value === null ? '-' : value.toFixed(1));
const people = (count: number) => `${count} ${count === 1 ? 'person' : 'people'}`;

export function formatCapacity(result: CapacityResult): string {
  const lines: string[] = [];
  const link = result.link
    ? `; path ${mbps(result.link.mbps)} Mb/s (${result.link.method}), ${ms(result.link.rttMs)} ms, queue ${formatBinaryBytes(result.link.bufferBytes)} assumed`
    : '';
  lines.push(
    `${result.profile} ${result.op}, ${formatBinaryBytes(result.fileBytes)} files, ${result.seconds} s per step after ${result.warmupSeconds} s warm-up, against ${result.share} (SMB ${result.negotiated.dialect})${link}`,
  );
  lines.push(`idle: ECHO ${ms(result.idle.echo.p50Ms)} ms (p95 ${ms(result.idle.echo.p95Ms)}), open+close ${ms(result.idle.openClose.p50Ms)} ms`);
  lines.push('');
  const rows = result.steps.map((step) => [
    String(step.users),
    mbps(step.aggregateMbps),
    step.expected ? `${mbps(step.expected.aggregateMbps)}${step.expected.runToRunMbps ? ` ±${mbps(step.expected.runToRunMbps)}` : ''}` : '-',
    `${mbps(step.minMbps)} / ${mbps(step.medianMbps)} / ${mbps(step.maxMbps)}`,
    step.fairness === null ? '-' : step.fairness.toFixed(2),
    `${ms(step.echo.p50Ms)} / ${ms(step.echo.p95Ms)}`,
    `${ms(step.addedLatencyMs)}${step.expected ? ` (${ms(step.expected.addedLatencyMs)})` : ''}`,
    `${ms(step.openClose.p50Ms)} / ${ms(step.openClose.p95Ms)}`,
    step.expected?.limit ?? '',
  ]);
  lines.push(
    formatTable(['people', 'Mb/s', 'model', 'each min/median/max', 'fairness', 'ECHO p50/p95 ms', '+ms (model)', 'open p50/p95 ms', 'model: limit'], rows),
  );
  lines.push('');
  lines.push(kneeText(result));
  const server = modelServerText(result);
  if (server !== '') lines.push(server);
  if (result.readiness) lines.push(result.readiness.text);
  for (const failure of result.failures) lines.push(`person ${failure.user + 1} stopped during the step of ${people(failure.step)}: ${failure.message}`);
  if (result.steps.some((step) => (step.expected?.runToRunMbps ?? 0) > 0)) {
    lines.push(
      "model ±: how far one run strays from the model's figure (a standard deviation over its runs): who of the people who join finds themselves in step with another's burst is chance.",
    );
  }
  const byRequests = result.steps.some((step) => step.measuredBy === 'requests');
  if (byRequests)
    lines.push(
      "note: each person's bytes were counted by completed SMB requests (no per-connection TCP counters here), so a step's figures carry up to one request's worth of error per person.",
    );
  return lines.join('\n');
}

/** Exits 3 (TARGET_NOT_MET) when --target was given and the share does not meet it. */
export async function capacityCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<number> {
  const { values, positionals } = parseOptions(argv, OPTIONS, CAPACITY_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, CAPACITY_USAGE);
  const login = shareLoginOptions(values);
  const text = (name: keyof typeof OPTIONS) => optional(values, name);
  const clients = text('clients');
  const profile = text('profile');
  const op = text('op');
  const seconds = text('seconds');
  const warmup = text('warmup');
  const fileSize = text('file-size');
  const iperf = text('iperf');
  const server = text('server');
  const buffer = text('buffer');
  const kneeShare = text('knee-share');
  const target = text('target');
  const out = text('out');
  const outFormat = out === undefined ? undefined : formatOf(out);
  // A file that cannot be written fails now, before the password prompt and the measurement.
  if (out !== undefined) checkOutPath(out);
  const choices = {
    ...login,
    password: '',
    ...(clients === undefined ? {} : { clients: parseClients(clients) }),
    ...(profile === undefined ? {} : { profile }),
    ...(op === undefined ? {} : { op }),
    ...(seconds === undefined ? {} : { seconds: number(seconds, 'seconds', '10') }),
    ...(warmup === undefined ? {} : { warmupSeconds: number(warmup, 'warmup', '3') }),
    ...(fileSize === undefined ? {} : { fileBytes: Math.round(parseSizeBytes(fileSize)) }),
    ...(iperf === undefined ? {} : { iperf }),
    ...(server === undefined ? {} : { server }),
    ...(buffer === undefined ? {} : { bufferBytes: Math.round(parseSizeBytes(buffer)) }),
    ...(kneeShare === undefined ? {} : { kneeShare: number(kneeShare, 'knee-share', '0.5') }),
    ...(target === undefined ? {} : { target: parseTarget(target) }),
  };
  // Check everything before asking for a password.
  const checked = parseInput(apiContract.capacity.input, choices, 'capacity options');
  // What will happen, before the password prompt and the first byte.
  await confirmPlan(capacityPlanText({ ...checked, share: checked.share.text }), values.yes ?? false, output);
  const input = await withPassword(choices, values);
  const progress = terminalProgress('capacity');
  const interrupt = interruptSignal();
  try {
    const result = await passwordIfTicketRefused(
      input as CapacityInput,
      values,
      (login) => api.capacity(login, { signal: interrupt.signal, onProgress: progress.update }),
      (line) => output.err(line),
    );
    progress.done();
    // The run is printed and kept first: a file that cannot be written must not lose it.
    if (values.json) printJson(output, result);
    else output.out(formatCapacity(result));
    await saveToHistory(api, result, values, output);
    if (out !== undefined && outFormat !== undefined) {
      await writeExport(api, result, outFormat, out);
      output.err(`Wrote ${out}`);
    }
    return result.readiness?.met === false ? TARGET_NOT_MET : 0;
  } finally {
    progress.done();
    interrupt.dispose();
  }
}
