// One export of a report or a capacity run in any format, for the CLI's
// `report export` and `capacity --out` and for the app (through the
// services): HTML and PDF on the paper asked for, CSV, or the JSON itself.

import type { RunDocument } from '../contract/history.js';
import type { ExportFormat, Paper } from '../contract/export.js';
import { paperForLocale } from '../contract/export.js';
import { capacityCsv, capacityHtml } from './capacity.js';
import { reportCsv } from './csv.js';
import { reportHtml } from './html.js';
import { htmlToPdf, htmlToPdfAsync } from './pdf.js';

const MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  html: 'text/html',
  pdf: 'application/pdf',
  csv: 'text/csv',
  json: 'application/json',
};

/** The document's HTML export on `paper`: what the PDF prints, too. */
const htmlOf = (document: RunDocument, paper: Paper): string =>
  document.kind === 'assessment' ? reportHtml(document.report, { paper }) : capacityHtml(document.capacity, { paper });

/** The document in `format`: text for HTML, CSV and JSON, bytes for a PDF (printed by Chromium). */
export function exportDocument(document: RunDocument, format: ExportFormat, paper: Paper): string | Buffer {
  if (format === 'pdf') return htmlToPdf(htmlOf(document, paper));
  if (format === 'html') return htmlOf(document, paper);
  if (format === 'csv') return document.kind === 'assessment' ? reportCsv(document.report) : capacityCsv(document.capacity);
  return `${JSON.stringify(document.kind === 'assessment' ? document.report : document.capacity, null, 2)}\n`;
}

/** The same, without holding the process while Chromium prints (the services answer other calls meanwhile). */
export async function exportDocumentAsync(document: RunDocument, format: ExportFormat, paper: Paper): Promise<string | Buffer> {
  if (format !== 'pdf') return exportDocument(document, format, paper);
  return htmlToPdfAsync(htmlOf(document, paper));
}

/** The paper of this machine's locale (LC_ALL, then LC_PAPER, then LANG): Letter in the Americas' Letter regions, else A4. */
export function localePaper(env: NodeJS.ProcessEnv = process.env): Paper {
  return paperForLocale(env['LC_ALL'] || env['LC_PAPER'] || env['LANG']);
}

export const mediaTypeOf = (format: ExportFormat): string => MEDIA_TYPES[format];

/** "pipefill-report-2026-11-26-0900.pdf", "pipefill-capacity-2026-11-26-0915.csv": from when the run started (UTC). */
export function exportFileName(document: RunDocument, format: ExportFormat): string {
  const started = document.kind === 'assessment' ? document.report.startedAt : document.capacity.startedAt;
  const stamp = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})/.exec(started);
  const when = stamp ? `${stamp[1]}-${stamp[2]}${stamp[3]}` : 'run';
  return `pipefill-${document.kind === 'assessment' ? 'report' : 'capacity'}-${when}.${format}`;
}
