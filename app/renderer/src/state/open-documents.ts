// What the services kept open (src/contract/open-documents.ts), as the app's
// state after a reload: the reports and capacity runs for Reports, and the
// ones Results and Capacity showed. The list names them by id and each is
// fetched alone (no reply carries them all). Sending one to be kept is fire
// and forget: a failure only means a reload would not find it.

import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { OpenDocument, OpenDocuments } from '../../../../src/contract/open-documents.js';
import type { Report } from '../../../../src/contract/report.js';

export interface RestoredDocuments {
  readonly reports: readonly Report[];
  readonly capacityRuns: readonly CapacityResult[];
  readonly report: Report | undefined;
  readonly capacity: CapacityResult | undefined;
}

/** The open documents as fetched by id (one that could not be fetched is left out), and the ones that were shown (pure). */
export function restoredDocuments(open: OpenDocuments, fetched: ReadonlyMap<string, OpenDocument>): RestoredDocuments {
  const reports: Report[] = [];
  const capacityRuns: CapacityResult[] = [];
  for (const entry of open.entries) {
    const document = fetched.get(entry.id);
    if (document && 'report' in document) reports.push(document.report);
    else if (document && 'capacity' in document) capacityRuns.push(document.capacity);
  }
  const shown = (id: string | null) => (id === null ? undefined : fetched.get(id));
  const report = shown(open.shownReport);
  const capacity = shown(open.shownCapacity);
  return {
    reports,
    capacityRuns,
    report: report && 'report' in report ? report.report : undefined,
    capacity: capacity && 'capacity' in capacity ? capacity.capacity : undefined,
  };
}

/** Asks the services for the list, then each document on it, one reply each. */
export async function fetchOpenDocuments(api: PipefillApi): Promise<RestoredDocuments> {
  const open = await api.openDocuments({});
  const fetched = new Map<string, OpenDocument>();
  for (const entry of open.entries) {
    const document = await api.openDocument({ id: entry.id }).catch(() => undefined);
    if (document) fetched.set(entry.id, document);
  }
  return restoredDocuments(open, fetched);
}

/** Tells the services a document is open (and shown), so a reload finds it. */
export function keepOpen(api: PipefillApi, document: Report | CapacityResult, show: boolean): void {
  api.openDocumentsAdd({ document, show }).catch(ignoreRestoreFailure);
}

/** Nothing to restore is not an error a person must see: the app starts empty, as before. */
export function ignoreRestoreFailure(): void {}
