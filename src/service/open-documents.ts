// The services' memory of what the views have open (src/contract/open-documents.ts):
// bounded, one copy of each document (by kind, share and start time), the
// newest last. It lives as long as the service process, so a reloaded page
// finds its Results and Reports again; nothing is written to disk (a report
// the person did not keep in the history stays unkept).

import type { CapacityResult } from '../contract/capacity.js';
import type { RunDocument } from '../contract/history.js';
import { shareOf, startedAtOf } from '../contract/history.js';
import type { OpenDocuments } from '../contract/open-documents.js';
import { MAX_OPEN_DOCUMENTS } from '../contract/open-documents.js';
import type { Report } from '../contract/report.js';

type Key = { readonly share: string; readonly startedAt: string };

const sameKey = (a: Key, b: Key) => a.share === b.share && a.startedAt === b.startedAt;

/** Adds an item to a bounded list: one already there moves to the end; the oldest drop off past the bound. */
function withItem<T>(list: readonly T[], item: T, key: (item: T) => Key): T[] {
  const rest = list.filter((other) => !sameKey(key(other), key(item)));
  return [...rest, item].slice(-MAX_OPEN_DOCUMENTS);
}

export class OpenDocumentsHolder {
  private reports: Report[] = [];
  private capacityRuns: CapacityResult[] = [];
  private shownReport: Key | null = null;
  private shownCapacity: Key | null = null;

  add(document: RunDocument, show: boolean): number {
    const key = { share: shareOf(document), startedAt: startedAtOf(document) };
    if (document.kind === 'assessment') {
      this.reports = withItem(this.reports, document.report, (report) => ({ share: report.target.share, startedAt: report.startedAt }));
      if (show) this.shownReport = key;
    } else {
      this.capacityRuns = withItem(this.capacityRuns, document.capacity, (run) => ({ share: run.share, startedAt: run.startedAt }));
      if (show) this.shownCapacity = key;
    }
    return this.reports.length + this.capacityRuns.length;
  }

  get(): OpenDocuments {
    // A shown document that dropped off the list is shown no more.
    const shownReport = this.shownReport && this.reports.some((r) => sameKey({ share: r.target.share, startedAt: r.startedAt }, this.shownReport as Key));
    const shownCapacity = this.shownCapacity && this.capacityRuns.some((r) => sameKey({ share: r.share, startedAt: r.startedAt }, this.shownCapacity as Key));
    return {
      reports: [...this.reports],
      capacityRuns: [...this.capacityRuns],
      shownReport: shownReport ? this.shownReport : null,
      shownCapacity: shownCapacity ? this.shownCapacity : null,
    };
  }
}
