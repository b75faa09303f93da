import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProgressEvent } from '../contract/copy-test.js';
import { interruptSignal, terminalProgress } from './progress.js';

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

describe('terminalProgress', () => {
  const event = (step: string, fraction: number, bytes = 0, totalBytes = 0): ProgressEvent => ({ step, fraction, bytes, totalBytes });

  it("without a terminal, prints one line per step with the whole run's share, whatever the updates between", () => {
    const written: string[] = [];
    const progress = terminalProgress('assess', { isTTY: false, write: (text: string) => written.push(text) });
    progress.update(event('probe', 0));
    progress.update(event('probe', 0.02));
    progress.update(event('win11-24h2 write file:256MiB (1 of 8): copy', 0.1, 1e6, 256e6));
    progress.update(event('win11-24h2 write file:256MiB (1 of 8): copy', 0.15, 9e7, 256e6));
    progress.update(event('done', 1));
    progress.done();
    expect(written).toEqual(['assess: 0% probe\n', 'assess: 10% win11-24h2 write file:256MiB (1 of 8): copy\n', 'assess: 100% done\n']);
  });

  it('on a terminal, leaves out a step\'s bytes where it has none (no "0 B of 0 B"), and clears its line at the end', () => {
    const written: string[] = [];
    const progress = terminalProgress('assess', { isTTY: true, write: (text: string) => written.push(text) });
    progress.update(event('probe', 0));
    expect(written.at(-1)).toBe('\r\x1b[Kassess: [--------------------] 0% probe');
    progress.update(event('done', 1));
    expect(written.at(-1)).toBe('\r\x1b[Kassess: [####################] 100% done');
    progress.done();
    expect(written.at(-1)).toBe('\r\x1b[K');
    expect(written.join('')).not.toContain('0 B of 0 B');
  });
});
