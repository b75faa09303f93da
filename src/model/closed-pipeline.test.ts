import { describe, expect, it } from 'vitest';
import { closedPipelineSecondsPerRequest } from './closed-pipeline.js';

describe('closedPipelineSecondsPerRequest', () => {
  it('with one request in flight, every station works in series', () => {
    expect(closedPipelineSecondsPerRequest([0.004, 0.005, 0.001], 1)).toBeCloseTo(0.01, 12);
  });

  it('two equal stations and two requests: one and a half demands per request (Reiser and Lavenberg)', () => {
    // N=2: R_i = D(1 + 1/2), cycle 3D, throughput 2/3D.
    expect(closedPipelineSecondsPerRequest([0.01, 0.01], 2)).toBeCloseTo(0.015, 12);
  });

  it('a deep pipeline comes down to the slowest station', () => {
    expect(closedPipelineSecondsPerRequest([0.004, 0.01], 200)).toBeCloseTo(0.01, 6);
    expect(closedPipelineSecondsPerRequest([0.004, 0.01], 1_000_000)).toBeCloseTo(0.01, 9);
  });

  it('never beats the slowest station nor loses to series, and falls as requests are added', () => {
    const demands = [0.003, 0.005, 0.002];
    let previous = Infinity;
    for (let inFlight = 1; inFlight <= 12; inFlight++) {
      const perRequest = closedPipelineSecondsPerRequest(demands, inFlight);
      expect(perRequest).toBeGreaterThanOrEqual(0.005 - 1e-15);
      expect(perRequest).toBeLessThanOrEqual(0.01 + 1e-15);
      expect(perRequest).toBeLessThan(previous);
      previous = perRequest;
    }
  });

  it('refuses a count that is not a whole number of requests, and demands that are not times', () => {
    expect(() => closedPipelineSecondsPerRequest([1], 0)).toThrow(RangeError);
    expect(() => closedPipelineSecondsPerRequest([1], 1.5)).toThrow(RangeError);
    expect(() => closedPipelineSecondsPerRequest([], 1)).toThrow(RangeError);
    expect(() => closedPipelineSecondsPerRequest([1, Number.NaN], 1)).toThrow(RangeError);
    expect(() => closedPipelineSecondsPerRequest([-1], 1)).toThrow(RangeError);
    expect(closedPipelineSecondsPerRequest([0, 0], 3)).toBe(0);
  });
});
