// The shared-queue simulation against golden outputs: fixed inputs and
// seeds, every figure of every step as the simulation gave it before it was
// split into its event queue, sender, congestion control and loss recovery
// (issue 36). A change of behaviour, however small, fails here; a change
// meant to alter it regenerates the golden file and says why in its commit.

import { describe, expect, it } from 'vitest';
import { GOLDEN_CASES } from './shared-queue-sim.golden.js';
import { simulateSharedQueue } from './shared-queue-sim.js';

/** Twelve significant digits: the same arithmetic gives the same figures; a changed step does not. */
const rounded = (value: number) => (Number.isFinite(value) && value !== 0 ? Number(value.toPrecision(12)) : value);
const roundAll = (value: unknown): unknown =>
  typeof value === 'number'
    ? rounded(value)
    : Array.isArray(value)
      ? value.map(roundAll)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, roundAll(inner)]))
        : value;

describe('the shared-queue simulation, against its golden outputs', () => {
  it.each(GOLDEN_CASES)('$name, seed $input.seed', ({ input, steps }) => {
    expect(roundAll(simulateSharedQueue(input).steps)).toEqual(roundAll(steps));
  });
});
