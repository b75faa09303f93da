// A seeded generator for the fuzz tests: xorshift32 (Marsaglia, "Xorshift
// RNGs", J. Stat. Software 8(14), 2003), so a failing mutation is the same
// bytes on every run.

/** The next 32-bit value on each call, from `seed` (0 taken as 1). */
export function xorshift32(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}
