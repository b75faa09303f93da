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

export const OpenDocumentsAddInputSchema = z
  .object({
    /** A report or a capacity run, checked as historySave checks it (runDocumentOf). */
    document: z.unknown(),
    /** The Results (or Capacity) view shows it now. */
    show: z.boolean().default(false),
  })
  .strict();

export const OpenDocumentsAddResultSchema = z.object({ open: z.number().int().nonnegative() });

/** A document by what names it: its share and when it started. */
const DocumentKeySchema = z.object({ share: z.string(), startedAt: z.string() });

export const OpenDocumentsSchema = z.object({
  reports: z.array(ReportSchema),
  capacityRuns: z.array(CapacityResultSchema),
  /** The report the Results view shows, and the capacity run the Capacity view shows. */
  shownReport: DocumentKeySchema.nullable(),
  shownCapacity: DocumentKeySchema.nullable(),
});
export type OpenDocuments = z.infer<typeof OpenDocumentsSchema>;
