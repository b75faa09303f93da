// The assessment as the UI runs it (use-cancellable-call.ts): start, live
// progress, cancel, and the report or the error at the end. The numbers come
// from state/run.ts.

import { useCallback } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { AssessInput, Report } from '../../../../src/contract/report.js';
import { applyProgress, INITIAL_RUN } from './run.js';
import { useCancellableCall } from './use-cancellable-call.js';

export function useAssessment(api: PipefillApi) {
  const call = useCallback((input: AssessInput, options: Parameters<PipefillApi['assess']>[1]) => api.assess(input, options), [api]);
  const { result: report, setResult: setReport, ...rest } = useCancellableCall<AssessInput, Report, typeof INITIAL_RUN>(call, INITIAL_RUN, applyProgress);
  return { ...rest, report, setReport };
}
