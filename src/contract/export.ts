// Exporting a report or a capacity run for a ticket (issue 38): the formats,
// the paper a PDF is printed on, and the one contract call the app uses, so
// it exports HTML, PDF and CSV as the CLI does (the services print the PDF;
// a browser page cannot).

import { z } from 'zod';

export const EXPORT_FORMATS = ['html', 'pdf', 'csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const PAPERS = ['a4', 'letter'] as const;
export type Paper = (typeof PAPERS)[number];

/**
 * Where US Letter is the paper in the drawer: the United States, Canada,
 * Mexico, the Philippines and most of Central America, Chile, Colombia and
 * Venezuela (the regions CLDR's paper-size data gives US-Letter). A4 everywhere else.
 */
const LETTER_REGIONS: ReadonlySet<string> = new Set(['US', 'CA', 'MX', 'PH', 'PR', 'BZ', 'CL', 'CO', 'CR', 'GT', 'NI', 'PA', 'SV', 'VE']);

/**
 * The paper for a locale as POSIX (`en_US.UTF-8`, `fr_CA`) or a browser
 * (`en-US`, `es-419`) writes it: Letter in the regions above, A4 elsewhere
 * and where no region is named (`C`, `en`, nothing).
 */
export function paperForLocale(locale: string | undefined): Paper {
  const region = /^[a-z]{2,3}[_-]([A-Za-z]{2})(?:$|[.@_-])/i.exec(locale?.trim() ?? '')?.[1]?.toUpperCase();
  return region !== undefined && LETTER_REGIONS.has(region) ? 'letter' : 'a4';
}

export const ExportDocumentInputSchema = z
  .object({
    /** A report or a capacity run, checked as historySave checks it. */
    document: z.unknown(),
    format: z.enum(EXPORT_FORMATS),
    /** The PDF's (and the HTML's printed) paper; absent: the services' locale decides. */
    paper: z.enum(PAPERS).optional(),
  })
  .strict();

export const ExportDocumentResultSchema = z.object({
  /** "pipefill-report-2026-11-26-0900.pdf": a name for the saved file. */
  fileName: z.string(),
  mediaType: z.string(),
  /** The file's bytes, base64 (a PDF is binary; the transports carry JSON). */
  base64: z.string(),
});
export type ExportDocumentResult = z.infer<typeof ExportDocumentResultSchema>;
