// A capacity run as the UI drives it (use-cancellable-call.ts): start, live
// progress, cancel, and the result or the error at the end. The numbers come
// from ./capacity.ts.

import { useCallback } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CapacityInput, CapacityResult } from '../../../../src/contract/capacity.js';
import type { ProgressEvent } from '../../../../src/contract/copy-test.js';
import type { CapacityRunState } from './capacity.js';
import { applyCapacityProgress, INITIAL_CAPACITY_RUN } from './capacity.js';
import { useCancellableCall } from './use-cancellable-call.js';

/** Capacity progress stamped with the time it arrived (the live chart's x axis). */
const foldCapacity = (state: CapacityRunState, event: ProgressEvent): CapacityRunState => applyCapacityProgress(state, event, performance.now());

export function useCapacity(api: PipefillApi) {
  const call = useCallback((input: CapacityInput, options: Parameters<PipefillApi['capacity']>[1]) => api.capacity(input, options), [api]);
  const { phase, run, result, setResult, error, start, cancel } = useCancellableCall<CapacityInput, CapacityResult, CapacityRunState>(
    call,
    INITIAL_CAPACITY_RUN,
    foldCapacity,
  );
  return { phase, run, result, setResult, error, start, cancel };
}
