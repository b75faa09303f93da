// The services' memory of what the views have open (src/contract/open-documents.ts):
// bounded in count and in bytes (for every transport alike), one copy of
// each document (by kind, share and start time), the newest last. It lives
// as long as the service process, so a reloaded page finds its Results and
// Reports again; nothing is written to disk (a report the person did not
// keep in the history stays unkept). The list names documents by id; each
// is fetched alone, so no reply carries them all.

import type { RunDocument } from '../contract/history.js';
import { shareOf, siteOf, startedAtOf } from '../contract/history.js';
import type { Report } from '../contract/report.js';
import type { OpenDocument, OpenDocuments } from '../contract/open-documents.js';
import { MAX_OPEN_DOCUMENTS, MAX_OPEN_DOCUMENTS_BYTES } from '../contract/open-documents.js';
import { MAX_REPORT_BYTES } from '../contract/report.js';
import { PipefillInputError } from '../model/errors.js';

interface Held {
  readonly id: string;
  readonly document: RunDocument;
  readonly share: string;
  readonly startedAt: string;
  readonly bytes: number;
}

const sameDocument = (a: Held, b: Pick<Held, 'document' | 'share' | 'startedAt'>) =>
  a.document.kind === b.document.kind && a.share === b.share && a.startedAt === b.startedAt;

export class OpenDocumentsHolder {
  private held: Held[] = [];
  private nextId = 1;
  private shown: { assessment: string | null; capacity: string | null } = { assessment: null, capacity: null };

  /** Keeps a document (again: it moves to the newest); returns how many are kept. */
  add(document: RunDocument, show: boolean): number {
    const bytes = Buffer.byteLength(JSON.stringify(document));
    if (bytes > MAX_REPORT_BYTES)
      throw new PipefillInputError(
        `That document is ${(bytes / 1e6).toFixed(1)} MB, more than a view keeps open (${MAX_REPORT_BYTES / 2 ** 20} MiB).`,
        'It stays in the view until the page is reloaded; export it or keep it in the history to open it again.',
      );
    const item = { document, share: shareOf(document), startedAt: startedAtOf(document) };
    const before = this.held.find((other) => sameDocument(other, item));
    const kept: Held = { ...item, bytes, id: before?.id ?? `open-${this.nextId++}` };
    this.held = [...this.held.filter((other) => other !== before), kept];
    if (show) this.shown[document.kind] = kept.id;
    this.trim();
    return this.held.length;
  }

  /** The oldest go first past either bound: the count of each kind, the bytes of them all. */
  private trim(): void {
    for (const kind of ['assessment', 'capacity'] as const) {
      const ofKind = this.held.filter((item) => item.document.kind === kind);
      const over = new Set(ofKind.slice(0, Math.max(0, ofKind.length - MAX_OPEN_DOCUMENTS)));
      this.held = this.held.filter((item) => !over.has(item));
    }
    let bytes = this.held.reduce((sum, item) => sum + item.bytes, 0);
    while (bytes > MAX_OPEN_DOCUMENTS_BYTES && this.held.length > 1) {
      bytes -= this.held[0]?.bytes ?? 0;
      this.held = this.held.slice(1);
    }
  }

  get(): OpenDocuments {
    // A shown document that dropped off the list is shown no more.
    const kept = (id: string | null) => (id !== null && this.held.some((item) => item.id === id) ? id : null);
    return {
      entries: this.held.map((item) => ({ id: item.id, kind: item.document.kind, share: item.share, startedAt: item.startedAt })),
      shownReport: kept(this.shown.assessment),
      shownCapacity: kept(this.shown.capacity),
    };
  }

  /** The newest assessment kept of this share (slashes and case aside), if any: what a run of it again is compared with. */
  latestAssessmentOf(share: string): Report | undefined {
    const site = siteOf(share);
    const item = [...this.held].reverse().find((candidate) => candidate.document.kind === 'assessment' && siteOf(candidate.share) === site);
    return item?.document.kind === 'assessment' ? item.document.report : undefined;
  }

  /** One kept document, whole. */
  document(id: string): OpenDocument {
    const item = this.held.find((candidate) => candidate.id === id);
    if (!item)
      throw new PipefillInputError(
        `No document ${id} is open any more.`,
        'It was the oldest of many open at once; open it again from the history or its file.',
      );
    return item.document.kind === 'assessment' ? { report: item.document.report } : { capacity: item.document.capacity };
  }
}
