// The app's own exports (issue 38): a report or a capacity run as HTML, PDF,
// CSV or JSON, made by the services (they print the PDF with Chromium) on the
// paper of the browser's locale, then saved from the page.

import { useCallback, useState } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { ExportFormat } from '../../../../src/contract/export.js';
import { paperForLocale } from '../../../../src/contract/export.js';
import type { Report } from '../../../../src/contract/report.js';
import { bytesOfBase64, download } from '../download.js';
import type { UiError } from './use-cancellable-call.js';
import { toUiError } from './use-cancellable-call.js';

export interface Exporter {
  /** The format being made now (a PDF takes a few seconds). */
  readonly busy: ExportFormat | undefined;
  readonly error: UiError | undefined;
  readonly save: (document: Report | CapacityResult, format: ExportFormat) => void;
}

export function useExport(api: PipefillApi): Exporter {
  const [busy, setBusy] = useState<ExportFormat | undefined>();
  const [error, setError] = useState<UiError | undefined>();
  const save = useCallback(
    (document: Report | CapacityResult, format: ExportFormat) => {
      setBusy(format);
      setError(undefined);
      api
        .exportDocument({ document, format, paper: paperForLocale(navigator.language) })
        .then(
          (file) => download(file.fileName, bytesOfBase64(file.base64), file.mediaType),
          (caught: unknown) => setError(toUiError(caught)),
        )
        .finally(() => setBusy(undefined));
    },
    [api],
  );
  return { busy, error, save };
}
