import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stopSignals } from './stop-signals.js';

const signalListeners = (name: 'SIGINT' | 'SIGTERM'): NodeJS.SignalsListener[] => process.listeners(name) as NodeJS.SignalsListener[];

describe('Ctrl-C for a command that runs until stopped', () => {
  let before: Record<'SIGINT' | 'SIGTERM', NodeJS.SignalsListener[]>;
  beforeEach(() => {
    before = { SIGINT: signalListeners('SIGINT'), SIGTERM: signalListeners('SIGTERM') };
  });
  afterEach(() => {
    // A stop leaves its listeners for the rest of the process: this one goes on, so they go here.
    for (const name of ['SIGINT', 'SIGTERM'] as const)
      for (const listener of signalListeners(name)) if (!before[name].includes(listener)) process.off(name, listener);
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('stops at the first signal and keeps listening from then on, so a second one (npm passing the same Ctrl-C on) cannot end the process half-way or with 130', async () => {
    const onFirst = vi.fn();
    const signals = stopSignals(onFirst);
    process.emit('SIGINT', 'SIGINT');
    await signals.stopped;
    expect(onFirst).toHaveBeenCalledTimes(1);
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM');
    expect(onFirst).toHaveBeenCalledTimes(1);
    // Node ends a process at a signal nobody listens to: the listeners stay even once the command is over.
    signals.dispose();
    expect(process.listenerCount('SIGINT')).toBe(before.SIGINT.length + 1);
    expect(process.listenerCount('SIGTERM')).toBe(before.SIGTERM.length + 1);
  });

  it('gives signals back to Node when the command ends without one', () => {
    stopSignals().dispose();
    expect(process.listenerCount('SIGINT')).toBe(before.SIGINT.length);
    expect(process.listenerCount('SIGTERM')).toBe(before.SIGTERM.length);
  });

  it('quits through process.exit (whose listeners kill the demo) when the process outlasts the grace after a signal, with that signal’s code', async () => {
    vi.useFakeTimers();
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    const signals = stopSignals(() => undefined, 1_000);
    process.emit('SIGTERM', 'SIGTERM');
    await signals.stopped;
    signals.dispose();
    vi.advanceTimersByTime(999);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledWith(143);
  });
});
