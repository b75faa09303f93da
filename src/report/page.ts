// The printed page of the HTML exports (and so of the PDFs Chromium prints
// from them): the paper, and margins a printer keeps. Pure.

import type { Paper } from '../contract/export.js';

/**
 * The Content-Security-Policy of every exported page (report, capacity run):
 * nothing is fetched or run, only its own inline style and data: images. The
 * pages are opened by people from mail and tickets, and printed by Chromium.
 */
export const EXPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
export const EXPORT_CSP_META = `<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`;

/** @page rules for a paper: "A4" or "letter", 14 mm top and bottom, 12 mm at the sides. */
export function pageStyle(paper: Paper): string {
  return `@page{size:${paper === 'letter' ? 'letter' : 'A4'};margin:14mm 12mm}`;
}
