// pipefill history: the runs kept per site (src/store), from the terminal and
// from scripts. The same contract calls the app's History view makes.

import { readFileSync, statSync } from 'node:fs';
import type { PipefillApi } from '../../contract/api.js';
import { csvRows } from '../../presentation/csv.js';
import type { RunSummary, SiteTrend } from '../../contract/history.js';
import { checkReportSize } from '../../contract/report.js';
import { PipefillError, PipefillInputError } from '../../model/errors.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { checkOutPath, withOutFile } from '../out-file.js';
import { printJson } from '../output.js';
import { formatTable } from '../table.js';
import { readableUtc } from '../../presentation/summary.js';

export const HISTORY_USAGE = `pipefill history list [--site S] [--json] | show ID [--json] | trend --site S [--json]
                 | export [--site S] [--format json|csv] [--out FILE] | delete ID | import FILE.json ...
  [--store postgres://USER@HOST[:PORT]/DB | FILE]   (also PIPEFILL_STORE; default: the team store chosen in the app, else history.sqlite in this user's data folder)
  Every assessment and capacity run is kept (unless --no-history), with its site, who ran it and where.
  show --json: the run's own document, as assess --out or capacity --out saved it, so report export,
  summary and compare take it (pipefill history show 3 --json > run.json). trend: each generation's rate
  run by run, and what changed since the run before. import: earlier --out JSON files; importing one
  twice keeps it once. No password is ever stored.`;

const OPTIONS = { site: { type: 'string' }, json: { type: 'boolean' }, format: { type: 'string' }, out: { type: 'string' } } as const;
const SUBCOMMANDS = ['list', 'show', 'trend', 'export', 'delete', 'import'] as const;

function runId(text: string | undefined): number {
  const id = Number(text);
  if (text === undefined || !/^\d+$/.test(text.trim()) || !Number.isSafeInteger(id) || id < 1) {
    throw new PipefillInputError(
      `${text === undefined ? 'No run number' : `${JSON.stringify(text)} is not a run number`}.`,
      'Give the number `pipefill history list` shows, e.g. pipefill history show 3.',
    );
  }
  return id;
}

function formatRuns(where: string, runs: readonly RunSummary[]): string {
  if (runs.length === 0) return `No runs in ${where} yet: an assessment or a capacity run is kept there when it finishes.`;
  const rows = runs.map((run) => [
    String(run.id),
    run.startedAt.replace('T', ' ').slice(0, 16),
    run.site,
    run.kind,
    run.linkMbps === null ? '' : `${run.linkMbps.toFixed(1)} Mb/s`,
    run.rttMs === null ? '' : `${run.rttMs.toFixed(1)} ms`,
    run.readinessMet === null ? '' : run.readinessMet ? 'met' : 'not met',
    `${run.ranBy}@${run.machine}`,
  ]);
  return `${formatTable(['id', 'started (UTC)', 'site', 'kind', 'link', 'rtt', 'readiness', 'by'], rows, ['right', 'left', 'left', 'left', 'right', 'right', 'left', 'left'])}\n(${runs.length} in ${where})`;
}

export function formatTrend(trend: SiteTrend): string {
  if (trend.runs === 0) return `No runs of ${trend.site} in the history.`;
  const lines = [`${trend.site}: ${trend.runs} run${trend.runs === 1 ? '' : 's'}`];
  for (const [generation, points] of Object.entries(trend.generations)) {
    lines.push(`  ${generation}: ${points.map((point) => `#${point.id} ${point.value.toFixed(1)} Mb/s`).join(' -> ')}`);
  }
  if (trend.capacityPeakMbps.length > 0)
    lines.push(`  people at once, peak together: ${trend.capacityPeakMbps.map((point) => `#${point.id} ${point.value.toFixed(1)} Mb/s`).join(' -> ')}`);
  for (const verdict of trend.readiness)
    lines.push(`  readiness #${verdict.id} (${verdict.startedAt.slice(0, 10)}): ${verdict.met ? 'met' : 'not met'}; ${verdict.text}`);
  lines.push(trend.changes.length > 0 ? `Since the run before: ${trend.changes.join('; ')}.` : 'Nothing changed since the run before that the trend follows.');
  if (trend.unreadable)
    lines.push(
      `Left out: ${trend.unreadable} assessment${trend.unreadable === 1 ? '' : 's'} this Pipefill cannot read (kept by a newer Pipefill, or damaged).`,
    );
  return lines.join('\n');
}

function exportCsv(runs: readonly RunSummary[]): string {
  const header = ['id', 'kind', 'site', 'share', 'started_at', 'ran_by', 'machine', 'saved_at', 'link_mbps', 'rtt_ms', 'readiness_met', 'headline'];
  return csvRows([
    header,
    ...runs.map((run) => [
      run.id,
      run.kind,
      run.site,
      run.share,
      run.startedAt,
      run.ranBy,
      run.machine,
      run.savedAt,
      run.linkMbps ?? '',
      run.rttMs ?? '',
      run.readinessMet ?? '',
      run.headline,
    ]),
  ]);
}

async function importFiles(api: PipefillApi, paths: readonly string[], output: Output): Promise<void> {
  if (paths.length === 0)
    throw new PipefillInputError('No files to import.', 'Give the JSON files that `pipefill assess --out` or `pipefill capacity --out` wrote.');
  const failed: string[] = [];
  let created = 0;
  for (const path of paths) {
    try {
      checkReportSize(statSync(path).size, path);
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(path, 'utf8'));
      } catch (error) {
        throw new PipefillInputError(`${path} is not JSON (${error instanceof Error ? error.message : String(error)}).`, 'Give a report saved as JSON.');
      }
      const saved = await api.historySave({ document: json });
      if (saved.created) created++;
      output.err(`${path}: ${saved.created ? 'imported as' : 'already kept as'} run ${saved.id}`);
    } catch (error) {
      // A refusing store is not one bad file: stop and say so.
      if (!(error instanceof PipefillInputError) && (error as { code?: string }).code !== 'ENOENT' && (error as { code?: string }).code !== 'EISDIR')
        throw error;
      failed.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  output.out(
    `Imported ${created} of ${paths.length} file${paths.length === 1 ? '' : 's'}${paths.length - failed.length - created > 0 ? ` (${paths.length - failed.length - created} already kept)` : ''}.`,
  );
  if (failed.length > 0)
    throw new PipefillInputError(
      `${failed.length} file${failed.length === 1 ? '' : 's'} not imported:\n  ${failed.join('\n  ')}`,
      'The others were imported; fix or leave out these and run the import again (what is kept stays kept once).',
    );
}

export async function historyCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, HISTORY_USAGE);
  const [sub, ...rest] = positionals;
  if (sub === undefined || !(SUBCOMMANDS as readonly string[]).includes(sub))
    throw new PipefillInputError(sub === undefined ? 'Which history command?' : `Unknown history command ${JSON.stringify(sub)}.`, HISTORY_USAGE);
  const site = optional(values, 'site');
  if (sub !== 'import' && sub !== 'show' && sub !== 'delete' && rest.length > 0)
    throw new PipefillInputError(`Unexpected argument ${JSON.stringify(rest[0])}.`, HISTORY_USAGE);
  switch (sub) {
    case 'list': {
      const listed = await api.historyList(site === undefined ? {} : { site });
      if (values.json) printJson(output, listed.runs);
      else output.out(formatRuns(listed.where, listed.runs));
      return;
    }
    case 'show': {
      const run = await api.historyRun({ id: runId(rest[0]) });
      // The document alone, as --out saved it: what report export and compare read (the summary is history list's).
      if (values.json) printJson(output, run.report ?? run.capacity);
      else
        output.out(
          [
            `Run ${run.summary.id}: ${run.summary.kind} of ${run.summary.share}, ${readableUtc(run.summary.startedAt)}, by ${run.summary.ranBy} on ${run.summary.machine}`,
            run.summary.headline,
            'The whole document: pipefill history show ID --json',
          ].join('\n'),
        );
      return;
    }
    case 'trend': {
      if (site === undefined) throw new PipefillInputError('trend needs --site.', 'e.g. pipefill history trend --site //branch-fs/data');
      const trend = await api.historyTrend({ site });
      if (values.json) printJson(output, trend);
      else output.out(formatTrend(trend));
      return;
    }
    case 'export': {
      const format = optional(values, 'format') ?? 'json';
      if (format !== 'json' && format !== 'csv') throw new PipefillInputError(`--format ${JSON.stringify(format)} is not json or csv.`, HISTORY_USAGE);
      if (optional(values, 'out') !== undefined) checkOutPath(optional(values, 'out') ?? '');
      const { runs } = await api.historyList(site === undefined ? {} : { site });
      const out = optional(values, 'out');
      // One run's document at a time: a team's store can hold thousands of them.
      // A run this Pipefill cannot read (a newer one's, or damaged) is left out and counted, not the end of the export.
      let unreadable = 0;
      const exportTo = async (write: (text: string) => void) => {
        if (format === 'csv') write(exportCsv(runs));
        else {
          write('[');
          let first = true;
          for (const run of runs) {
            let stored;
            try {
              stored = await api.historyRun({ id: run.id });
            } catch (error) {
              if (error instanceof PipefillError && error.kind === 'store-unreadable-run') {
                unreadable++;
                continue;
              }
              throw error;
            }
            write(`${first ? '' : ','}${JSON.stringify(stored)}`);
            first = false;
          }
          write(']');
        }
      };
      // To a file: written beside it and renamed into place, so a failed export leaves the old file whole.
      if (out === undefined) await exportTo((text) => output.out(text));
      else await withOutFile(out, (file) => exportTo((text) => file.write(text.endsWith('\n') ? text : `${text}\n`)));
      const written = runs.length - unreadable;
      if (out !== undefined) output.err(`Wrote ${written} run${written === 1 ? '' : 's'} to ${out}`);
      if (unreadable > 0)
        output.err(`Left out ${unreadable} run${unreadable === 1 ? '' : 's'} this Pipefill cannot read (kept by a newer Pipefill, or damaged).`);
      return;
    }
    case 'delete': {
      const id = runId(rest[0]);
      const { deleted } = await api.historyDelete({ id });
      if (!deleted) throw new PipefillInputError(`There is no run ${id} in the history.`, 'List the runs with `pipefill history list`.');
      output.out(`Deleted run ${id}.`);
      return;
    }
    case 'import':
      await importFiles(api, rest, output);
      return;
  }
}
