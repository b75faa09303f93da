// pipefill recommend: the settings that make copies faster on a path, from an
// assessment report or a bandwidth and RTT, with the model's time before and after.

import { adviceTestText } from '../../presentation/test-labels.js';
import { effectText } from '../../model/effect-workloads.js';
import { readFileSync, statSync } from 'node:fs';
import type { PipefillApi } from '../../contract/api.js';
import type { RecommendApiInput, RecommendResult } from '../../contract/recommend.js';
import { currentText } from '../../contract/recommendation.js';
import { checkReportSize, parseReportText } from '../../contract/report.js';
import { PipefillInputError } from '../../model/errors.js';
import { formatDuration, formatRate } from '../../model/units.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';

export const RECOMMEND_USAGE = `pipefill recommend (--report r.json | --bandwidth R --rtt T [--loss L] [--buffer B] --client <id> --server <id>)
  [--security <auto|signing|encryption|algorithm>] [--channels N] [--smb-conf PATH] [--json]
  Settings for the client, the server and the copy tool that the model says make copies faster on
  this path, each with the time before and after. --smb-conf reads a Samba server's current values
  through testparm; from a report, what the copies revealed (credits, the server's window) counts too.
  Signing and encryption are never traded for speed: settings that protect the data are listed apart,
  with what they cost, for you to decide (pipefill apply --include-protection applies them).`;

const OPTIONS = {
  report: { type: 'string' },
  bandwidth: { type: 'string' },
  rtt: { type: 'string' },
  loss: { type: 'string' },
  client: { type: 'string' },
  server: { type: 'string' },
  'smb-conf': { type: 'string' },
  buffer: { type: 'string' },
  security: { type: 'string' },
  channels: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Reads a report file; a file that is missing or not a report gets a clear error. */
export function readReportFile(path: string) {
  let text: string;
  try {
    checkReportSize(statSync(path).size, path);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof PipefillInputError) throw error;
    throw new PipefillInputError(
      `Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}.`,
      'Give the path of a report saved by `pipefill assess --out`.',
    );
  }
  return parseReportText(text, path);
}

function formatProtections(result: RecommendResult): string {
  if (result.protections.length === 0) return '';
  const items = result.protections.map((r) => `- [${r.platform}] ${r.knob}: ${currentText(r)} -> ${String(r.value)}\n   ${r.why}\n   ${r.command}`);
  return `\n\nProtection you could add (never traded for speed; yours to decide):\n${items.join('\n')}`;
}

export function formatRecommendations(result: RecommendResult): string {
  const heading = `Path ${formatRate(result.link.bandwidthBitsPerSecond)}, ${formatDuration(result.link.rttMs)}; client ${result.client}, server ${result.server}`;
  if (result.recommendations.length === 0)
    return `${heading}\n\nNothing to change: the model finds no setting that would make these copies faster on this path.${formatProtections(result)}`;
  const items = result.recommendations.map(
    (r, index) =>
      `${index + 1}. [${r.platform}] ${r.knob}: ${currentText(r)} -> ${String(r.value)}   ${adviceTestText(r.test)}: ${formatDuration(r.expectedSeconds.before * 1000)} -> ${formatDuration(r.expectedSeconds.after * 1000)}\n   ${r.command}${r.caution ? `\n   note: ${r.caution}` : ''}\n   source: ${r.source}`,
  );
  // On the copies every effect is told for (a report's own test copies are weighed too, for the verdict's path).
  const combined = result.combined
    .filter((c) => effectText(c.test) !== undefined)
    .map((c) => `   ${adviceTestText(c.test)}: ${formatDuration(c.before * 1000)} -> ${formatDuration(c.after * 1000)}`);
  return `${heading}\n\n${items.join('\n')}\n\nAll of them together:\n${combined.join('\n')}${formatProtections(result)}`;
}

export async function recommendCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, RECOMMEND_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, RECOMMEND_USAGE);
  const reportPath = optional(values, 'report');
  const bandwidth = optional(values, 'bandwidth');
  const rtt = optional(values, 'rtt');
  if (reportPath !== undefined && (bandwidth !== undefined || rtt !== undefined))
    throw new PipefillInputError('Give either --report or --bandwidth and --rtt, not both.', RECOMMEND_USAGE);
  const report = reportPath === undefined ? undefined : readReportFile(reportPath);
  // From a report, the client it was for and the server it found, unless named here.
  const client = optional(values, 'client');
  const server = optional(values, 'server');
  if (report === undefined && (client === undefined || server === undefined))
    throw new PipefillInputError('Without a report, name the client and the server: --client win11-24h2 --server samba.', RECOMMEND_USAGE);
  const input = {
    ...(client === undefined ? {} : { client }),
    ...(server === undefined ? {} : { server }),
    ...(report ? { report } : {}),
    ...(bandwidth === undefined ? {} : { bandwidth }),
    ...(rtt === undefined ? {} : { rtt }),
    ...(optional(values, 'loss') === undefined ? {} : { loss: optional(values, 'loss') }),
    ...(optional(values, 'smb-conf') === undefined ? {} : { smbConf: optional(values, 'smb-conf') }),
    ...(optional(values, 'buffer') === undefined ? {} : { buffer: optional(values, 'buffer') }),
    ...(optional(values, 'security') === undefined ? {} : { security: optional(values, 'security') }),
    ...(optional(values, 'channels') === undefined ? {} : { channels: Number(optional(values, 'channels')) }),
  } as RecommendApiInput;
  const result = await api.recommend(input);
  if (values.json) printJson(output, result);
  else output.out(formatRecommendations(result));
}
