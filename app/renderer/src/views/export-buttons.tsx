// A row of export buttons for a report or a capacity run: HTML, PDF, CSV and
// JSON, each saved as a file; a PDF says it is being printed.

import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { ExportFormat } from '../../../../src/contract/export.js';
import type { Report } from '../../../../src/contract/report.js';
import type { Exporter } from '../state/use-export.js';

const FORMATS: readonly { readonly format: ExportFormat; readonly label: string }[] = [
  { format: 'pdf', label: 'PDF' },
  { format: 'html', label: 'HTML' },
  { format: 'csv', label: 'CSV' },
  { format: 'json', label: 'JSON' },
];

export function ExportButtons({
  exporter,
  document,
  what,
}: {
  readonly exporter: Exporter;
  readonly document: Report | CapacityResult;
  readonly what: string;
}) {
  return (
    <div className="row" role="group" aria-label={`Export the ${what}`}>
      <span className="hint">Export the {what}:</span>
      {FORMATS.map(({ format, label }) => (
        <button
          key={format}
          type="button"
          className="secondary"
          disabled={exporter.busy !== undefined}
          aria-label={`Export the ${what} as ${label}`}
          onClick={() => exporter.save(document, format)}
        >
          {exporter.busy === format ? `${label}…` : label}
        </button>
      ))}
      {exporter.busy === 'pdf' && (
        <span className="hint" role="status">
          Printing the PDF…
        </span>
      )}
      {exporter.error && (
        <span className="error" role="alert">
          {exporter.error.message} {exporter.error.hint}
        </span>
      )}
    </div>
  );
}
