// The printed page of the HTML exports (and so of the PDFs Chromium prints
// from them): the paper, and margins a printer keeps. Pure.

import type { Paper } from '../contract/export.js';

/** @page rules for a paper: "A4" or "letter", 14 mm top and bottom, 12 mm at the sides. */
export function pageStyle(paper: Paper): string {
  return `@page{size:${paper === 'letter' ? 'letter' : 'A4'};margin:14mm 12mm}`;
}
