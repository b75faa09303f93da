// A capacity run as the UI drives it: start, live progress, cancel, and the
// result or the error at the end. The numbers come from ./capacity.ts.

import { useCallback, useRef, useState } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CapacityInput, CapacityResult } from '../../../../src/contract/capacity.js';
import type { CapacityRunState } from './capacity.js';
import { applyCapacityProgress, INITIAL_CAPACITY_RUN } from './capacity.js';
import type { AssessmentPhase, UiError } from './use-assessment.js';
import { toUiError } from './use-assessment.js';

export function useCapacity(api: PipefillApi) {
  const [phase, setPhase] = useState<AssessmentPhase>('idle');
  const [run, setRun] = useState<CapacityRunState>(INITIAL_CAPACITY_RUN);
  const [result, setResult] = useState<CapacityResult | undefined>();
  const [error, setError] = useState<UiError | undefined>();
  const controller = useRef<AbortController | null>(null);

  const start = useCallback(
    async (input: CapacityInput): Promise<CapacityResult | undefined> => {
      controller.current?.abort();
      const own = new AbortController();
      controller.current = own;
      setPhase('running');
      setRun(INITIAL_CAPACITY_RUN);
      setError(undefined);
      try {
        const finished = await api.capacity(input, {
          signal: own.signal,
          onProgress: (event) => setRun((state) => applyCapacityProgress(state, event, performance.now())),
        });
        setResult(finished);
        setPhase('done');
        return finished;
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

  return { phase, run, result, error, start, cancel };
}
