import { describe, expect, it } from 'vitest';
import type { Observation } from './lab-fidelity.js';
import { CONFIRMATION_RUNS, failures, holdBounds, withinRelative } from './lab-fidelity.js';

const observe = (cell: string, measured: number): Observation => ({
  cell,
  measured,
  model: 100,
  unit: 'Mb/s',
  bound: 'within 15% of the model',
  holds: withinRelative(measured, 100, 0.15),
});

/** An experiment that answers from a script of measurements per cell, and counts what it was asked. */
function scripted(script: Record<string, number[]>) {
  const asked: (string[] | undefined)[] = [];
  const next = new Map(Object.keys(script).map((cell) => [cell, 0]));
  const run = async (only?: ReadonlySet<string>) => {
    asked.push(only ? [...only] : undefined);
    return Object.entries(script)
      .filter(([cell]) => !only || only.has(cell))
      .map(([cell, values]) => {
        const index = next.get(cell) ?? 0;
        next.set(cell, index + 1);
        return observe(cell, values[index] ?? NaN);
      });
  };
  return { run, asked };
}

describe('holding a lab bound', () => {
  it('passes a cell that holds on its first run, and runs nothing more', async () => {
    const { run, asked } = scripted({ a: [100], b: [110] });
    const verdicts = await holdBounds('x', run);
    expect(failures(verdicts)).toEqual([]);
    expect(asked).toEqual([undefined]);
  });

  it('measures again only the cells that missed, and passes one whose misses were noise', async () => {
    const { run, asked } = scripted({ a: [100], b: [80, 95, 70, 99, 101] });
    const verdicts = await holdBounds('x', run);
    expect(failures(verdicts)).toEqual([]);
    expect(asked).toEqual([undefined, ['b'], ['b'], ['b'], ['b']]);
    expect(verdicts.find((verdict) => verdict.cell === 'b')?.observations).toHaveLength(1 + CONFIRMATION_RUNS);
  });

  it('fails a cell that misses on its first run and twice more, and says what it measured', async () => {
    const { run } = scripted({ a: [80, 95, 70, 60, 101] });
    const [line] = failures(await holdBounds('queue', run));
    expect(line).toContain('queue | a: FAILS');
    expect(line).toContain('3 of 5 runs missed');
  });

  it('fails a cell whose further runs measure nothing', async () => {
    const { run } = scripted({ a: [80] });
    expect(failures(await holdBounds('x', run))).toHaveLength(1);
  });

  it('reads a relative error against the reference it is given', () => {
    expect(withinRelative(86, 100, 0.15)).toBe(true);
    expect(withinRelative(86, 100, 0.15, 'measured')).toBe(false);
    expect(withinRelative(Number.NaN, 100, 0.15)).toBe(false);
  });
});
