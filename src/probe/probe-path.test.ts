import { describe, expect, it } from 'vitest';
import { pathRttMs } from './probe-path.js';

const stats = (medianMs: number) => ({ samples: 10, minMs: medianMs / 2, medianMs, p95Ms: medianMs * 2, jitterMs: 0.1 });

describe('pathRttMs: the round trip the model uses', () => {
  it('is the lowest median: handshakes, spaced ECHOs and, on a fast path, ECHOs back to back', () => {
    expect(pathRttMs(stats(1.7), stats(1.36))).toBe(1.36);
    // The lab at 1 Gb/s / 0.5 ms: spaced ECHOs pay every hop's wake-up; back to back they read what a copy's requests see.
    expect(pathRttMs(stats(1.7), stats(1.36), stats(0.87))).toBe(0.87);
    expect(pathRttMs(stats(32.4), stats(32.9))).toBe(32.4);
  });
});
