// The assessment as the UI runs it: start, live progress, cancel, and the
// report or the error at the end. The numbers come from state/run.ts.

import { useCallback, useRef, useState } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { AssessInput, Report } from '../../../../src/contract/report.js';
import type { RunState } from './run.js';
import { applyProgress, INITIAL_RUN } from './run.js';

export interface UiError {
  readonly message: string;
  readonly hint: string;
}

export function toUiError(error: unknown): UiError {
  if (error && typeof error === 'object' && 'message' in error) {
    const hint = 'hint' in error && typeof error.hint === 'string' ? error.hint : '';
    return { message: String(error.message), hint };
  }
  return { message: String(error), hint: '' };
}

export type AssessmentPhase = 'idle' | 'running' | 'done' | 'cancelled' | 'failed';

export function useAssessment(api: PipefillApi) {
  const [phase, setPhase] = useState<AssessmentPhase>('idle');
  const [run, setRun] = useState<RunState>(INITIAL_RUN);
  const [report, setReport] = useState<Report | undefined>();
  const [error, setError] = useState<UiError | undefined>();
  const controller = useRef<AbortController | null>(null);

  const start = useCallback(
    async (input: AssessInput) => {
      controller.current?.abort();
      const own = new AbortController();
      controller.current = own;
      setPhase('running');
      setRun(INITIAL_RUN);
      setError(undefined);
      try {
        const result = await api.assess(input, { signal: own.signal, onProgress: (event) => setRun((state) => applyProgress(state, event)) });
        setReport(result);
        setPhase('done');
        return result;
      } catch (caught) {
        setPhase(own.signal.aborted ? 'cancelled' : 'failed');
        setError(toUiError(caught));
        return undefined;
      } finally {
        if (controller.current === own) controller.current = null;
      }
    },
    [api],
  );

  const cancel = useCallback(() => controller.current?.abort(), []);

  return { phase, run, report, error, start, cancel, setReport };
}
