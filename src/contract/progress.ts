// Progress events: how far a test copy's phase is through the whole copy,
// and a throttle so that fast copies (hundreds of completed requests a
// second) do not flood a transport or a UI.

import type { ProgressEvent } from './copy-test.js';

export type CopyPhase = 'connect' | 'prepare' | 'copy' | 'verify' | 'clean-up';

/** Where each phase starts, and its share of a test copy (rough time shares on a typical path). */
const PHASES: Readonly<Record<CopyPhase, { start: number; span: number }>> = {
  connect: { start: 0, span: 0.05 },
  prepare: { start: 0.05, span: 0.25 },
  copy: { start: 0.3, span: 0.5 },
  verify: { start: 0.8, span: 0.15 },
  'clean-up': { start: 0.95, span: 0.05 },
};

/** 0..1 through one test copy, from its phase and the bytes moved in it. */
export function copyFraction(phase: CopyPhase, bytes: number, totalBytes: number): number {
  const { start, span } = PHASES[phase];
  const within = totalBytes > 0 ? Math.min(1, Math.max(0, bytes / totalBytes)) : 0;
  return start + span * within;
}

/** Events at most every `intervalMs`, but every change of step and the last event of a step go through. */
export function throttleProgress(onProgress: (event: ProgressEvent) => void, intervalMs = 100, now: () => number = Date.now): (event: ProgressEvent) => void {
  let lastStep: string | undefined;
  let lastAt = -Infinity;
  return (event) => {
    const at = now();
    const finished = event.totalBytes > 0 && event.bytes >= event.totalBytes;
    if (event.step !== lastStep || finished || at - lastAt >= intervalMs) {
      lastStep = event.step;
      lastAt = at;
      onProgress(event);
    }
  };
}
