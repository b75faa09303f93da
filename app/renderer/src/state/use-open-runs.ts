// The reports and capacity runs the views have open, with what was open
// before a reload restored from the services (they keep it), once per API.

import { useEffect, useState } from 'react';
import type { Dispatch, SetStateAction } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { Report } from '../../../../src/contract/report.js';
import { mergeCapacityRuns, mergeReports } from './compare.js';
import { fetchOpenDocuments, ignoreRestoreFailure, keepOpen } from './open-documents.js';

export function useOpenRuns(
  api: PipefillApi,
  setReport: Dispatch<SetStateAction<Report | undefined>>,
  setCapacity: Dispatch<SetStateAction<CapacityResult | undefined>>,
) {
  const [reports, setReports] = useState<readonly Report[]>([]);
  const [capacityRuns, setCapacityRuns] = useState<readonly CapacityResult[]>([]);
  useEffect(() => {
    fetchOpenDocuments(api).then((restored) => {
      setReports((current) => mergeReports(restored.reports, current));
      setCapacityRuns((current) => mergeCapacityRuns(restored.capacityRuns, current));
      if (restored.report) setReport((current) => current ?? restored.report);
      if (restored.capacity) setCapacity((current) => current ?? restored.capacity);
    }, ignoreRestoreFailure);
    // Once per API: the setters are stable.
  }, [api]);
  /** Files the person opened: shown beside the others, and kept open by the services (not shown by them). */
  const addOpened = (opened: { readonly reports: readonly Report[]; readonly capacityRuns: readonly CapacityResult[] }) => {
    setReports((current) => mergeReports(current, opened.reports));
    setCapacityRuns((current) => mergeCapacityRuns(current, opened.capacityRuns));
    for (const report of opened.reports) keepOpen(api, report, false);
    for (const run of opened.capacityRuns) keepOpen(api, run, false);
  };
  return { reports, setReports, capacityRuns, setCapacityRuns, addOpened };
}
