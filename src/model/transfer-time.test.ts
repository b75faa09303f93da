import { describe, expect, it } from 'vitest';
import type { LayerBudget, TransferShape } from './in-flight.js';
import { fileDataSeconds, slowStartPenaltySeconds } from './transfer-time.js';

const MB = 1e6;

function shape(requestLatencyMs: number, bandwidthBytesPerSecond: number, windowed: LayerBudget[]): TransferShape {
  return {
    requestBytes: 64 * 1024,
    depth: 1,
    chunkBytes: 64 * 1024,
    requestLatencyMs,
    budgets: [{ layer: 'bandwidth', bytesInFlight: 0, bytesPerSecond: bandwidthBytesPerSecond }, ...windowed],
  };
}

describe('fileDataSeconds', () => {
  it('charges a synchronous client n x (latency + serialisation)', () => {
    const request = 64 * 1024;
    const bandwidth = 10 * MB;
    const latency = 0.05;
    const pipeline: LayerBudget = { layer: 'copy-pipeline', bytesInFlight: request, bytesPerSecond: request / (latency + request / bandwidth) };
    const seconds = fileDataSeconds(10 * request, shape(50, bandwidth, [pipeline]));
    expect(seconds).toBeCloseTo(10 * (latency + request / bandwidth), 9);
  });

  it('charges a deep pipeline one latency plus the bytes at line rate', () => {
    const deep: LayerBudget = { layer: 'copy-pipeline', bytesInFlight: 100 * MB, bytesPerSecond: 1e12 };
    expect(fileDataSeconds(50 * MB, shape(30, 10 * MB, [deep]))).toBeCloseTo(0.03 + 5, 9);
  });

  it('charges a window-bound transfer one window per round trip', () => {
    const window: LayerBudget = { layer: 'server-tcp-window', bytesInFlight: 1 * MB, bytesPerSecond: (1 * MB) / 0.1 };
    expect(fileDataSeconds(100 * MB, shape(100, 1e9, [window]))).toBeCloseTo(10, 6);
  });
});

describe('slowStartPenaltySeconds', () => {
  const base = { rttMs: 100, steadyBytesPerSecond: 10 * MB, totalBytes: 1e9 };

  it('is zero when the initial window already fills the path', () => {
    expect(slowStartPenaltySeconds({ ...base, initialWindowBytes: 2 * MB })).toBe(0);
  });

  it('grows by about one RTT per doubling of the window the path needs', () => {
    const small = slowStartPenaltySeconds({ ...base, initialWindowBytes: 14_600, steadyBytesPerSecond: 1 * MB });
    const large = slowStartPenaltySeconds({ ...base, initialWindowBytes: 14_600, steadyBytesPerSecond: 8 * MB });
    expect(large - small).toBeGreaterThan(0.2);
    expect(large - small).toBeLessThan(0.35);
  });

  it('never exceeds the ramp rounds, even for a tiny transfer', () => {
    const penalty = slowStartPenaltySeconds({ ...base, initialWindowBytes: 14_600, totalBytes: 20_000 });
    expect(penalty).toBeGreaterThan(0.1);
    expect(penalty).toBeLessThanOrEqual(0.2);
  });
});
