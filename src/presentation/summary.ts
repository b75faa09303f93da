// The copy summary: a report in at most fifteen plain lines for a ticket
// (the app's "Copy summary", `pipefill report summary r.json`): which share,
// when, the path, the verdict with its numbers, and the fix. Pure.

import type { Report } from '../contract/report.js';
import { modelLinkOf } from '../contract/report.js';
import { assessedClient, observationsFromReport } from '../contract/recommend.js';
import { adviceOf, verdictOf } from '../contract/verdict.js';
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
function serverText(report: Report, profile: keyof typeof SERVER_PROFILES): string {
  const family = SERVER_PROFILES[profile].label.split(' (')[0] ?? profile;
  const granted = observationsFromReport(report, assessedClient(report)).creditsGranted;
  return granted !== undefined && granted < SERVER_PROFILES[profile].smb2.creditsMax ? `${family}, which granted at most ${granted} SMB credits` : family;
}

export function ticketSummary(report: Report): string {
  const advice = adviceOf(report);
  const verdict = verdictOf(report, advice);
  const link = modelLinkOf(report);
  const others = advice.recommendations.length - (verdict.fix.kind === 'change' ? 1 : 0);
  const lines = [
    `Pipefill: copies to ${report.target.share}, ${readableUtc(report.startedAt)}, as ${report.target.domain ? `${report.target.domain}\\` : ''}${report.target.user}${report.probes.session?.login ? ` (${report.probes.session.login.mechanism === 'kerberos' ? 'Kerberos' : 'NTLMv2'}${report.probes.session.login.guest ? ', as a GUEST' : ''})` : ''}`,
    `Path: ${formatRate(link.bandwidthBitsPerSecond)}, ${formatDuration(link.rttMs)} round trip; server ${serverText(report, verdict.server.profile)}`,
    ...verdict.lines.slice(0, 4),
    ...(verdict.fix.kind === 'change' ? [`Command: ${verdict.fix.command}`] : []),
    ...(others > 0 ? [`${others} more setting${others === 1 ? ', with its' : 's, with their'} effect, in the full report (pipefill report export).`] : []),
    `Pipefill ${report.environment.pipefillVersion}; measured, not estimated: ${report.copyTests.length} test copies in a scratch folder that was removed${report.keptByRecycleBin ? ` (the share's recycle bin ${report.keptByRecycleBin} kept its files, emptied)` : ''}.`,
  ];
  return lines.slice(0, SUMMARY_MAX_LINES).join('\n');
}
