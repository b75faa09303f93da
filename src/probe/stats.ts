// Summaries of latency samples, as the probes report them.

export interface LatencyStats {
  readonly samples: number;
  readonly minMs: number;
  readonly medianMs: number;
  readonly p95Ms: number;
  /** Mean absolute difference of consecutive samples (RFC 3550's jitter, unsmoothed). */
  readonly jitterMs: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] ?? NaN;
  const high = sorted[upper] ?? NaN;
  return low + (high - low) * (position - lower);
}

export function summarizeLatency(samplesMs: readonly number[]): LatencyStats {
  if (samplesMs.length === 0) throw new Error('No latency samples to summarise.');
  const sorted = [...samplesMs].sort((a, b) => a - b);
  let jitter = 0;
  for (let i = 1; i < samplesMs.length; i++) jitter += Math.abs((samplesMs[i] ?? 0) - (samplesMs[i - 1] ?? 0));
  return {
    samples: samplesMs.length,
    minMs: sorted[0] ?? NaN,
    medianMs: quantile(sorted, 0.5),
    p95Ms: quantile(sorted, 0.95),
    jitterMs: samplesMs.length > 1 ? jitter / (samplesMs.length - 1) : 0,
  };
}
