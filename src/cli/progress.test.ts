import { afterEach, describe, expect, it, vi } from 'vitest';
import { interruptSignal } from './progress.js';

describe('interruptSignal', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  function fakeProcess() {
    vi.useFakeTimers();
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    return { exit, stderr };
  }

  it('cancels on the first SIGTERM, and quits with 143 once the clean-up outlasts its grace', () => {
    const { exit, stderr } = fakeProcess();
    const interrupt = interruptSignal(30_000);
    try {
      process.emit('SIGTERM', 'SIGTERM');
      expect(interrupt.signal.aborted).toBe(true);
      vi.advanceTimersByTime(29_999);
      expect(exit).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(exit).toHaveBeenCalledWith(143);
      expect(stderr.mock.calls.map(([text]) => String(text)).join('')).toMatch(/did not finish within 30 s; quitting/);
    } finally {
      interrupt.dispose();
    }
  });

  it('a run that ends within the grace is not cut short, and a second Ctrl-C quits at once with 130', () => {
    const { exit } = fakeProcess();
    const finished = interruptSignal(30_000);
    process.emit('SIGINT', 'SIGINT');
    finished.dispose();
    vi.advanceTimersByTime(60_000);
    expect(exit).not.toHaveBeenCalled();

    const impatient = interruptSignal(30_000);
    try {
      process.emit('SIGINT', 'SIGINT');
      process.emit('SIGINT', 'SIGINT');
      expect(exit).toHaveBeenCalledWith(130);
    } finally {
      impatient.dispose();
    }
  });
});
