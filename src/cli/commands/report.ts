// pipefill report export | compare: a saved assessment as HTML, PDF, CSV or
// JSON for a ticket; several side by side for a branch-readiness review.

import { readFileSync, statSync } from 'node:fs';
import type { PipefillApi } from '../../contract/api.js';
import type { CapacityResult } from '../../contract/capacity.js';
import { isCapacityDocument, parseCapacityText } from '../../contract/capacity.js';
import type { Comparison } from '../../presentation/compare.js';
import type { Report } from '../../contract/report.js';
import { checkReportSize } from '../../contract/report.js';
import { compareSites, parseTarget } from '../../presentation/compare.js';
import { PipefillInputError } from '../../model/errors.js';
import { formatDuration, formatRate } from '../../model/units.js';
import type { Paper } from '../../contract/export.js';
import { EXPORT_FORMATS, PAPERS } from '../../contract/export.js';
import { localePaper } from '../../report/export.js';
import { checkOutPath, writeOutFile } from '../out-file.js';
import { optional, parseOptions, required } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { formatTable } from '../table.js';
import { readReportFile } from './recommend.js';
import { ticketSummary } from '../../presentation/summary.js';

export const REPORT_USAGE = `pipefill report export r.json --out FILE.{html,pdf,csv,json} [--format F] [--paper a4|letter]   (an assessment's report or a capacity run)
pipefill report summary r.json   (the verdict and the fix in at most 15 plain lines, for a ticket)
pipefill report compare a.json b.json ... [capacity.json ...] [--target "dirset<5min@win10-smb3"] [--json]
  export: one self-contained HTML file (charts inline, prints cleanly), a PDF printed by Chromium,
  CSV with one row per test copy, or the JSON document. compare: sites ranked slowest first by the
  model's time on each measured path; against a target (<dirset|file>[/read|/write]<<time>@<client>)
  each site passes or fails, and a failing site gets the change that would make it pass (exit code 3
  when no site passes). A capacity run (pipefill capacity --out) among the files adds to its share's row
  how many people can copy there at once. export takes the format from --out's ending unless --format names it,
  and prints on your locale's paper (Letter in the US, Canada, Mexico; A4 elsewhere) unless --paper names it.`;

const EXPORT_OPTIONS = { format: { type: 'string' }, out: { type: 'string' }, paper: { type: 'string' } } as const;
const COMPARE_OPTIONS = { target: { type: 'string' }, json: { type: 'boolean' } } as const;
export const FORMATS = EXPORT_FORMATS;

/** The exit code of a run that measured what it set out to and found a target not met (2 is bad input, 1 a failure). */
export const TARGET_NOT_MET = 3;

export function formatOf(path: string): (typeof FORMATS)[number] {
  const extension = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  const format = FORMATS.find((candidate) => candidate === extension);
  if (!format)
    throw new PipefillInputError(
      `--out ${JSON.stringify(path)} does not end in .json, .html, .pdf or .csv.`,
      'Name the file for the format you want, e.g. --out branch-capacity.html.',
    );
  return format;
}

/** Without --target: the 1 GiB directory copy, both ways, under five minutes with Windows 10. */
const DEFAULT_TARGET = 'dirset<5min@win10-smb3';

/**
 * A report or a capacity run in one of the export formats, made by the
 * contract's exportDocument (the call the app's Export buttons make, so the
 * two cannot drift apart), written to `out`. On the paper of this machine's
 * locale unless one is named.
 */
export async function writeExport(
  api: PipefillApi,
  document: Report | CapacityResult,
  format: (typeof FORMATS)[number],
  out: string,
  paper: Paper = localePaper(),
): Promise<void> {
  const file = await api.exportDocument({ document, format, paper });
  writeOutFile(out, Buffer.from(file.base64, 'base64'));
}

/** --paper a4|letter, else the locale's. */
export function paperOption(text: string | undefined): Paper {
  if (text === undefined) return localePaper();
  const paper = PAPERS.find((candidate) => candidate === text.trim().toLowerCase());
  if (!paper) throw new PipefillInputError(`--paper must be a4 or letter, not ${JSON.stringify(text)}.`, "Leave it out to use your locale's paper.");
  return paper;
}

/** The file's capacity run, when it holds one; undefined for anything else (an assessment's report is read as one). */
function readCapacityFileIfOne(path: string): CapacityResult | undefined {
  let text: string;
  try {
    checkReportSize(statSync(path).size, path);
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isCapacityDocument(json) ? parseCapacityText(text, path) : undefined;
}

async function exportReport(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, EXPORT_OPTIONS, REPORT_USAGE);
  if (positionals.length !== 1) throw new PipefillInputError('report export takes one report file.', REPORT_USAGE);
  const out = required(values, 'out', 'report.html');
  const format = optional(values, 'format') ?? formatOf(out);
  if (!(FORMATS as readonly string[]).includes(format))
    throw new PipefillInputError(`--format must be one of ${FORMATS.join(', ')}, not ${JSON.stringify(format)}.`, REPORT_USAGE);
  checkOutPath(out);
  const path = positionals[0] ?? '';
  // A capacity run (pipefill capacity --out) exports the same ways.
  const capacity = readCapacityFileIfOne(path);
  const paper = paperOption(optional(values, 'paper'));
  await writeExport(api, capacity ?? readReportFile(path), format as (typeof FORMATS)[number], out, paper);
  output.err(`Wrote ${out}`);
}

export function formatComparison(comparison: Comparison): string {
  const { target, sites } = comparison;
  const withCapacity = sites.some((site) => site.capacity);
  const people = (site: Comparison['sites'][number]) =>
    site.capacity ? (site.capacity.met === null ? 'no target' : site.capacity.met ? 'met' : 'NOT MET') : '-';
  const table = formatTable(
    ['site', 'RTT', 'bandwidth', 'time', 'verdict', ...(withCapacity ? ['people at once'] : [])],
    sites.map((site) => [
      site.site,
      `${site.rttMs.toFixed(1)} ms`,
      formatRate(site.bandwidthMbps * 1e6),
      formatDuration(site.seconds * 1000),
      site.passes ? 'passes' : 'FAILS',
      ...(withCapacity ? [people(site)] : []),
    ]),
    ['left', 'right', 'right', 'right', 'left', ...(withCapacity ? (['left'] as const) : [])],
  );
  const fixes = sites.filter((site) => site.fix).map((site) => `${site.site}: ${site.fix}`);
  const capacity = sites
    .filter((site) => site.capacity)
    .map((site) => `${site.site} (${site.capacity?.startedAt.slice(0, 16).replace('T', ' ')}): ${site.capacity?.text}`);
  const unmatched =
    comparison.capacityWithoutAssessment.length > 0
      ? `\n\nCapacity runs with no assessment of the same share given: ${comparison.capacityWithoutAssessment.join(', ')}.`
      : '';
  const passing = sites.filter((site) => site.passes).length;
  return `Target ${target.text}: ${passing} of ${sites.length} sites pass (model times for the full-size test on each measured path)\n\n${table}${fixes.length > 0 ? `\n\nTo pass:\n${fixes.map((fix) => `  ${fix}`).join('\n')}` : ''}${capacity.length > 0 ? `\n\nPeople copying at once (the latest capacity run of each share):\n${capacity.map((line) => `  ${line}`).join('\n')}` : ''}${unmatched}`;
}

/** Exits 3 (TARGET_NOT_MET) when no site passes the target. */
function compare(argv: readonly string[], output: Output): number {
  const { values, positionals } = parseOptions(argv, COMPARE_OPTIONS, REPORT_USAGE);
  if (positionals.length === 0) throw new PipefillInputError('report compare takes one or more report files.', REPORT_USAGE);
  const target = parseTarget(optional(values, 'target') ?? DEFAULT_TARGET);
  // Capacity runs (pipefill capacity --out run.json) may sit among the reports: each joins its share's row.
  const capacityRuns: CapacityResult[] = [];
  const reports = positionals.flatMap((path) => {
    const capacity = readCapacityFileIfOne(path);
    if (capacity) capacityRuns.push(capacity);
    return capacity ? [] : [readReportFile(path)];
  });
  if (reports.length === 0)
    throw new PipefillInputError('report compare needs at least one assessment report; capacity runs join the rows of their shares.', REPORT_USAGE);
  const comparison = compareSites(reports, target, capacityRuns);
  if (values.json) printJson(output, comparison);
  else output.out(formatComparison(comparison));
  return comparison.sites.some((site) => site.passes) ? 0 : TARGET_NOT_MET;
}

/** The ticket summary of a report file: what a person pastes into a ticket. */
function summary(argv: readonly string[], output: Output): void {
  const { positionals } = parseOptions(argv, {}, REPORT_USAGE);
  if (positionals.length !== 1) throw new PipefillInputError('report summary takes one report file.', REPORT_USAGE);
  output.out(ticketSummary(readReportFile(positionals[0] ?? '')));
}

export async function reportCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'export') await exportReport(rest, api, output);
  else if (sub === 'summary') summary(rest, output);
  else if (sub === 'compare') return compare(rest, output);
  else throw new PipefillInputError(`report needs export, summary or compare${sub === undefined ? '' : `, not ${JSON.stringify(sub)}`}.`, REPORT_USAGE);
  return 0;
}
