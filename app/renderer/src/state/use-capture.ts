// A capture's analysis as the UI drives it (use-cancellable-call.ts): the
// file named, read by the services on their machine, cancel, and the analysis
// or the error at the end. The sentences come from src/presentation.

import { useCallback } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CaptureAnalysis, CaptureInput } from '../../../../src/contract/capture.js';
import { useCancellableCall } from './use-cancellable-call.js';

/** A capture's analysis reports no progress on the way: the run state stays as it began. */
const noProgress = (state: null): null => state;

export function useCapture(api: PipefillApi) {
  const call = useCallback((input: CaptureInput, options: Parameters<PipefillApi['analyzeCapture']>[1]) => api.analyzeCapture(input, options), [api]);
  const { phase, result, error, start, cancel } = useCancellableCall<CaptureInput, CaptureAnalysis, null>(call, null, noProgress);
  return { phase, result, error, start, cancel };
}

/** The call's input from the form's two fields: the path, and the line's rate where one was typed. */
export const captureInput = (path: string, bandwidth: string): CaptureInput => ({
  path: path.trim(),
  ...(bandwidth.trim() ? { bandwidth: bandwidth.trim() } : {}),
});

/** The name a capture is shown by: its file's, wherever it lies. */
export const captureName = (path: string): string => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;
