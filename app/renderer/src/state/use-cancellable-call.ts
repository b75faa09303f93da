// One long service call as the UI runs it: start (cancelling any call still
// running), its progress folded into a run state, cancel, and the result or
// the error at the end. The assessment and the capacity run are two of these.

import { useCallback, useRef, useState } from 'react';
import type { CallOptions } from '../../../../src/contract/api.js';
import type { ProgressEvent } from '../../../../src/contract/copy-test.js';

export interface UiError {
  readonly message: string;
  readonly hint: string;
  /** The error's kind where it has one ('unauthorised': this page has no session). */
  readonly kind?: string;
}

/** The services' texts quote commands in backticks for a terminal; a page shows the command itself. */
const unquoted = (text: string) => text.replace(/`([^`]*)`/g, '$1');

export function toUiError(error: unknown): UiError {
  if (error && typeof error === 'object' && 'message' in error) {
    const hint = 'hint' in error && typeof error.hint === 'string' ? error.hint : '';
    const kind = 'kind' in error && typeof error.kind === 'string' ? { kind: error.kind } : {};
    return { message: unquoted(String(error.message)), hint: unquoted(hint), ...kind };
  }
  return { message: unquoted(String(error)), hint: '' };
}

export type CallPhase = 'idle' | 'running' | 'done' | 'cancelled' | 'failed';

/** A call the services answer with progress events on the way (CallOptions.onProgress). */
export type ProgressCall<Input, Result> = (input: Input, options: CallOptions) => Promise<Result>;

/** `call` run from the UI; `fold` takes each progress event into the run state (stable references: useCallback or module functions). */
export function useCancellableCall<Input, Result, Run>(call: ProgressCall<Input, Result>, initialRun: Run, fold: (run: Run, event: ProgressEvent) => Run) {
  const [phase, setPhase] = useState<CallPhase>('idle');
  const [run, setRun] = useState<Run>(initialRun);
  const [result, setResult] = useState<Result | undefined>();
  const [error, setError] = useState<UiError | undefined>();
  const controller = useRef<AbortController | null>(null);

  const start = useCallback(
    async (input: Input): Promise<Result | undefined> => {
      controller.current?.abort();
      const own = new AbortController();
      controller.current = own;
      setPhase('running');
      setRun(initialRun);
      setError(undefined);
      try {
        const finished = await call(input, { signal: own.signal, onProgress: (event) => setRun((state) => fold(state, event)) });
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
    [call, initialRun, fold],
  );

  const cancel = useCallback(() => controller.current?.abort(), []);

  return { phase, run, result, error, start, cancel, setResult };
}
