// The documents a front end has open (issue 38): the reports and capacity
// runs in its Results, Capacity and Reports views. The services keep them, so
// a reload of the web page (or of Electron's window) shows them again instead
// of an empty app. A run's own result is kept by the services as it ends; a
// document the person opened or showed from the history is sent here.

import { z } from 'zod';
import { CapacityResultSchema } from './capacity.js';
import { ReportSchema } from './report.js';

/** What the services hold, newest last: at most this many of each kind (a long session's oldest drop off). */
export const MAX_OPEN_DOCUMENTS = 20;
/**
 * And at most this many bytes (as JSON) of them all, on every transport:
 * counted alone, 20 long runs held 1.7 GB. One document is held to what
 * Pipefill opens anywhere (MAX_REPORT_BYTES).
 */
export const MAX_OPEN_DOCUMENTS_BYTES = 64 * 1024 * 1024;

export const OpenDocumentsAddInputSchema = z
  .object({
    /** A report or a capacity run, checked as historySave checks it (runDocumentOf). */
    document: z.unknown(),
    /** The Results (or Capacity) view shows it now. */
    show: z.boolean().default(false),
  })
  .strict();

export const OpenDocumentsAddResultSchema = z.object({ open: z.number().int().nonnegative() });

const OpenDocumentIdSchema = z.string().regex(/^open-\d{1,9}$/);

/** One kept document, by what names it; the document itself is asked for by its id (openDocument). */
const OpenEntrySchema = z.object({
  id: OpenDocumentIdSchema,
  kind: z.enum(['assessment', 'capacity']),
  share: z.string(),
  startedAt: z.string(),
});

/** What is kept, oldest first: ids, never the documents (twenty of those once made a 343 MB reply). */
export const OpenDocumentsSchema = z.object({
  entries: z.array(OpenEntrySchema).max(2 * MAX_OPEN_DOCUMENTS),
  /** The report the Results view shows, and the capacity run the Capacity view shows, by id. */
  shownReport: OpenDocumentIdSchema.nullable(),
  shownCapacity: OpenDocumentIdSchema.nullable(),
});
export type OpenDocuments = z.infer<typeof OpenDocumentsSchema>;

export const OpenDocumentInputSchema = z.object({ id: OpenDocumentIdSchema }).strict();

/** One kept document, whole. */
export const OpenDocumentSchema = z.union([z.object({ report: ReportSchema }).strict(), z.object({ capacity: CapacityResultSchema }).strict()]);
export type OpenDocument = z.infer<typeof OpenDocumentSchema>;
