// What the services kept open (src/contract/open-documents.ts), as the app's
// state after a reload: the reports and capacity runs for Reports, and the
// ones Results and Capacity showed. Sending one to be kept is fire and
// forget: a failure only means a reload would not find it.

import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { OpenDocuments } from '../../../../src/contract/open-documents.js';
import type { Report } from '../../../../src/contract/report.js';

export interface RestoredDocuments {
  readonly reports: readonly Report[];
  readonly capacityRuns: readonly CapacityResult[];
  readonly report: Report | undefined;
  readonly capacity: CapacityResult | undefined;
}

/** The open documents, and the report and capacity run that were shown (pure). */
export function restoredDocuments(open: OpenDocuments): RestoredDocuments {
  const report = open.shownReport
    ? open.reports.find((r) => r.target.share === open.shownReport?.share && r.startedAt === open.shownReport.startedAt)
    : undefined;
  const capacity = open.shownCapacity
    ? open.capacityRuns.find((r) => r.share === open.shownCapacity?.share && r.startedAt === open.shownCapacity.startedAt)
    : undefined;
  return { reports: open.reports, capacityRuns: open.capacityRuns, report, capacity };
}

/** Tells the services a document is open (and shown), so a reload finds it. */
export function keepOpen(api: PipefillApi, document: Report | CapacityResult, show: boolean): void {
  api.openDocumentsAdd({ document, show }).catch(ignoreRestoreFailure);
}

/** Nothing to restore is not an error a person must see: the app starts empty, as before. */
export function ignoreRestoreFailure(): void {}
