// A test copy's status as every view prints it (the Results table, the
// report's table, the CLI's assessment table): as expected, slower or faster
// than the model, or held back by a setting Pipefill names. Green means
// nothing to fix: a copy of the person's own client that a named change would
// speed up is held back, even where it matched the model (issue 48). Pure:
// from the finding and the verdict, the one diagnosis.

import type { Finding, Report } from '../contract/report.js';
import type { Verdict } from '../contract/verdict-schema.js';
import type { CopyTestResult } from '../contract/copy-test.js';
import { formatLossRate } from '../model/units.js';

/** A write that resent this share of its bytes or more lost enough to say so in its status (the diagnosis's sentence names loss from 0.1%). */
const RESENT_WORTH_SAYING = 0.01;

/**
 * Why a copy was slower than the model, where TCP saw it lose packets: the
 * model's path has no loss, and a copy can lose them to loss on the path or
 * to its own sends overflowing the bottleneck's queue (the demo link's
 * Pipefill small-files write resent 10% after 2,810 drops at its 1-BDP
 * queue: lab, 2026-11-27). A write's sender is this machine (its resent
 * share); a read's is the server, seen here as packets arriving out of order.
 */
function lossText(op: Finding['op'], tcp: CopyTestResult['tcp'] | undefined): string | undefined {
  if (op === 'write') {
    const resent = tcp?.retransmittedFraction ?? 0;
    // In the format every view gives a loss rate (formatLossRate): the verdict said 11% where this row said 11.3%.
    return resent >= RESENT_WORTH_SAYING ? `TCP resent ${formatLossRate(resent)} of its data` : undefined;
  }
  const outOfOrder = tcp?.outOfOrderPackets ?? 0;
  return outOfOrder > 0 ? `the server's packets were lost (${outOfOrder} arrived out of order)` : undefined;
}

export type CopyStatusKind = Finding['verdict'] | 'held-back';

export interface CopyStatus {
  /** For a class name: verdict-as-expected, verdict-held-back, ... */
  readonly kind: CopyStatusKind;
  /** What a person reads: "as expected", "held back: smb2 max credits". */
  readonly text: string;
}

export function copyStatus(
  finding: Pick<Finding, 'profile' | 'op' | 'workload' | 'verdict'>,
  verdict: Pick<Verdict, 'client' | 'heldBack'>,
  test?: Pick<CopyTestResult, 'tcp'>,
): CopyStatus {
  const kind = finding.workload.startsWith('file:') ? 'file' : 'small-files';
  const held = finding.profile === verdict.client ? verdict.heldBack?.find((entry) => entry.op === finding.op && entry.workload === kind) : undefined;
  if (held) return { kind: 'held-back', text: `held back: ${held.knob}` };
  const loss = finding.verdict === 'slower-than-expected' ? lossText(finding.op, test?.tcp) : undefined;
  const text = finding.verdict.replace(/-/g, ' ');
  return { kind: finding.verdict, text: loss ? `${text}: ${loss}` : text };
}

/**
 * What a report's copy (by its place) showed of lost packets, for copyStatus:
 * its TCP figures, except where the share was on this machine (no path to
 * lose packets on; what looks like loss there is the hosts' timers firing
 * late, as observationsOfCopy says).
 */
export function lossEvidence(report: Pick<Report, 'copyTests' | 'crypto'>, index: number): Pick<CopyTestResult, 'tcp'> | undefined {
  return report.crypto?.serverOnThisMachine ? undefined : report.copyTests[index];
}
