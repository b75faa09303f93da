// The copy summary: a report in at most fifteen plain lines for a ticket
// (the app's "Copy summary", `pipefill report summary r.json`): which share,
// when, the path, the verdict with its numbers, and every change Pipefill
// names, by who makes it (the person's PC, the server team), each with its
// effect and command, as the verdict says them. Pure.

import type { Report } from '../contract/report.js';
import { readinessLine } from '../contract/readiness.js';
import { modelLinkOf } from '../contract/report.js';
import { assessedClient, observationsFromReport } from '../contract/recommend.js';
import { adviceOf, buildVerdict, promisesLine, verdictOf } from './verdict.js';
import type { Team, VerdictChange } from '../contract/verdict-schema.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { formatDuration, formatRate } from '../model/units.js';

/** The most lines a summary has: what fits a ticket's first screen. */
export const SUMMARY_MAX_LINES = 15;

/** `2026-11-25 15:29 UTC`: a time a person reads, the same whatever the reader's time zone. */
export function readableUtc(iso: string): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso.slice(0, 40);
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The server as the copies found it: its family (the settings in the
 * profile's label are assumed, not read) and the credits it granted where
 * they were fewer than the profile assumes (a server holding clients back).
 */
export function serverSeenText(report: Report, profile: keyof typeof SERVER_PROFILES = report.options.server): string {
  const family = SERVER_PROFILES[profile].label.split(' (')[0] ?? profile;
  const granted = observationsFromReport(report, assessedClient(report)).creditsGranted;
  return granted !== undefined && granted < SERVER_PROFILES[profile].smb2.creditsMax ? `${family}, which granted at most ${granted} SMB credits` : family;
}

export function ticketSummary(report: Report): string {
  const advice = adviceOf(report);
  const verdict = verdictOf(report, advice);
  const link = modelLinkOf(report);
  // A report from before the list of changes: the same builder makes it now.
  const changes = verdict.changes ?? buildVerdict(report, advice).changes ?? [];
  const promiseLines = report.promises && report.promises.length > 0 ? [promisesLine(report.promises)] : [];
  const readyLine = verdict.readiness ? readinessLine(verdict.readiness) : undefined;
  const readiness = readyLine ? [`Readiness: ${readyLine}`] : [];
  const lines = [
    `Pipefill: copies to ${report.target.share}, ${readableUtc(report.startedAt)}, as ${report.target.domain ? `${report.target.domain}\\` : ''}${report.target.user}${report.probes.session?.login ? ` (${report.probes.session.login.mechanism === 'kerberos' ? 'Kerberos' : 'NTLMv2'}${report.probes.session.login.guest ? ', as a GUEST' : ''})` : ''}`,
    `Path: ${formatRate(link.bandwidthBitsPerSecond)}, ${formatDuration(link.rttMs)} round trip; server ${serverSeenText(report, verdict.server.profile)}`,
    ...verdict.lines.slice(0, 3),
    // What a change made since the share's earlier run promised, and what it bought: the ticket's news.
    ...promiseLines,
    ...(changes.length > 0 ? changeLines(changes, promiseLines.length + readiness.length) : verdict.lines.slice(3, 4)),
    // Will Windows 11 24H2 and Server 2025 open it: the readiness a branch review asks for (issue 50).
    ...readiness,
    `Pipefill ${report.environment.pipefillVersion}; measured, not estimated: ${report.copyTests.length} test copies in a scratch folder that was removed${report.keptByRecycleBin ? ` (the share's recycle bin ${report.keptByRecycleBin} kept its files, emptied)` : ''}.`,
  ];
  return lines.slice(0, SUMMARY_MAX_LINES).join('\n');
}

/** The lines for changes: the two header and footer lines around them and the verdict's three leave this many. */
const MAX_CHANGE_LINES = SUMMARY_MAX_LINES - 7;
const TEAM_WORDS: Readonly<Record<Team, string>> = { pc: 'Your PC', server: 'Server team', network: 'Network team' };

/**
 * Every change, grouped by who makes it, each one line with its effect and
 * command. Where there are more than fit, each team's first stays (the
 * server fix a server team needs is never the one cut) and the rest are
 * counted.
 */
function changeLines(changes: readonly VerdictChange[], reserved: number): string[] {
  const order: readonly Team[] = ['pc', 'server', 'network'];
  const most = MAX_CHANGE_LINES - reserved;
  const room = changes.length > most ? most - 1 : most;
  const firsts = order.map((team) => changes.find((change) => change.team === team)).filter((change): change is VerdictChange => change !== undefined);
  const shown = new Set([...firsts, ...changes].slice(0, Math.max(room, firsts.length)));
  const grouped = order.flatMap((team) => changes.filter((change) => change.team === team && shown.has(change)));
  const left = changes.length - grouped.length;
  return [
    'What to change, by who makes it (each effect is with that change alone):',
    ...grouped.map((change) => `${TEAM_WORDS[change.team]}: ${change.sentence} Command: ${change.command}`),
    ...(left > 0 ? [`${left} more change${left === 1 ? ', with its' : 's, with their'} effect, in the full report (pipefill report export).`] : []),
  ];
}
