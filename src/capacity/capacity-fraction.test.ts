import { describe, expect, it } from 'vitest';
import type { CapacityProgress } from './run-capacity.js';
import { capacityFraction } from './capacity.js';

describe('capacityFraction', () => {
  it('rises through every phase of every step to the clean-up, and never falls back', () => {
    const steps = 4;
    const phases: [CapacityProgress['phase'], number][] = [
      ['connect', 0],
      ['idle', 0],
      ...[1, 2, 3, 4].flatMap((step): [CapacityProgress['phase'], number][] => [
        ['join', step],
        ['warm-up', step],
        ['measure', step],
        ['measure', step],
      ]),
      ['clean-up', steps],
    ];
    const fractions = phases.map(([phase, step]) => capacityFraction(phase, step, steps));
    for (let index = 1; index < fractions.length; index++) expect(fractions[index]).toBeGreaterThanOrEqual(fractions[index - 1] ?? 0);
    // The clean-up after the last measurement: 4 of 5 units, not step 4's start (75%) below its measurement (87.5%).
    expect(capacityFraction('measure', 4, steps)).toBeCloseTo(0.7);
    expect(capacityFraction('clean-up', 4, steps)).toBeCloseTo(0.8);
    expect(capacityFraction('measure', 1, 0)).toBe(0);
  });
});
