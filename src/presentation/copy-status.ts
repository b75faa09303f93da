// A test copy's status as every view prints it (the Results table, the
// report's table, the CLI's assessment table): as expected, slower or faster
// than the model, or held back by a setting Pipefill names. Green means
// nothing to fix: a copy of the person's own client that a named change would
// speed up is held back, even where it matched the model (issue 48). Pure:
// from the finding and the verdict, the one diagnosis.

import type { Finding } from '../contract/report.js';
import type { Verdict } from '../contract/verdict-schema.js';

export type CopyStatusKind = Finding['verdict'] | 'held-back';

export interface CopyStatus {
  /** For a class name: verdict-as-expected, verdict-held-back, ... */
  readonly kind: CopyStatusKind;
  /** What a person reads: "as expected", "held back: smb2 max credits". */
  readonly text: string;
}

export function copyStatus(finding: Pick<Finding, 'profile' | 'op' | 'workload' | 'verdict'>, verdict: Pick<Verdict, 'client' | 'heldBack'>): CopyStatus {
  const kind = finding.workload.startsWith('file:') ? 'file' : 'small-files';
  const held = finding.profile === verdict.client ? verdict.heldBack?.find((entry) => entry.op === finding.op && entry.workload === kind) : undefined;
  if (held) return { kind: 'held-back', text: `held back: ${held.knob}` };
  return { kind: finding.verdict, text: finding.verdict.replace(/-/g, ' ') };
}
