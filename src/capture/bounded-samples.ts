// Samples kept in bounded memory for a median and a 95th percentile: every
// value until the store is full, then every second one seen and every second
// one kept, and so on. Deterministic (the same capture gives the same
// figures), and even across the capture, unlike a store of the first values.

const DEFAULT_CAPACITY = 4096;

export class BoundedSamples {
  private values: number[] = [];
  private stride = 1;
  private seen = 0;
  count = 0;
  sum = 0;
  max = Number.NEGATIVE_INFINITY;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  add(value: number): void {
    if (!Number.isFinite(value)) return;
    this.count++;
    this.sum += value;
    this.max = Math.max(this.max, value);
    if (this.seen++ % this.stride !== 0) return;
    this.values.push(value);
    if (this.values.length >= this.capacity) {
      this.values = this.values.filter((_, index) => index % 2 === 0);
      this.stride *= 2;
    }
  }

  /** The value below which `share` of the samples lie (nearest rank); undefined with none. */
  quantile(share: number): number | undefined {
    if (this.values.length === 0) return undefined;
    const sorted = [...this.values].sort((a, b) => a - b);
    const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1));
    return sorted[index];
  }
}
