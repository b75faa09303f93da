// The rate a person reads for one copy, in every view (issue 48: one copy, one
// rate). A file's is its rate once under way, its opening round trips and
// TCP's ramp left out (src/model/steady-rate.ts): what a large file holds for
// most of its time. A folder of small files is read whole, its opening being
// every file's. The headline, the rows of the CLI, the Results view and the
// HTML/PDF, and History all read it here: a lossy quick run's Windows 11 write
// read 425 KB/s in the headline and 329 KB/s in its row.

import { steadyBytesPerSecond, TIMELINE_BUCKET_MS } from '../model/steady-rate.js';
import type { CopyTestResult } from './copy-test.js';
import type { Finding } from './report.js';

export interface CopyRate {
  readonly bitsPerSecond: number;
  /** A file's rate once under way; false: over the whole copy (a folder, or a file too short to show one). */
  readonly underWay: boolean;
}

type Copy = Pick<CopyTestResult, 'profile' | 'op' | 'workload' | 'bytes' | 'timeline'>;
type CopyFinding = Pick<Finding, 'profile' | 'op' | 'workload' | 'measuredSeconds' | 'measuredMbps'>;

/** The copy test a finding is about (by name: the first of that name). */
export function copyOf<C extends Copy>(copyTests: readonly C[], finding: Pick<Finding, 'profile' | 'op' | 'workload'>): C | undefined {
  return copyTests.find((test) => test.profile === finding.profile && test.op === finding.op && test.workload === finding.workload);
}

/** The rate a person reads for `finding`'s copy: a file's once under way where it moved data long enough, else the whole copy's. */
export function copyRateOf(copyTests: readonly Copy[], finding: CopyFinding): CopyRate {
  const copy = copyOf(copyTests, finding);
  const steady = copy && finding.workload.startsWith('file:') ? steadyBytesPerSecond(copy.timeline, TIMELINE_BUCKET_MS) : undefined;
  if (steady !== undefined) return { bitsPerSecond: steady * 8, underWay: true };
  // The copy's own bytes over its time (measured, or projected for the whole): the time column's rate.
  if (copy && copy.bytes > 0 && finding.measuredSeconds > 0) return { bitsPerSecond: (copy.bytes * 8) / finding.measuredSeconds, underWay: false };
  return { bitsPerSecond: finding.measuredMbps * 1e6, underWay: false };
}
