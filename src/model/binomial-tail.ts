// The chance that a fair draw gives at least what was seen: how the loss
// split (src/model/loss-split.ts) asks whether losses crowd where a queue
// stood more than chance would put them there. Pure.

/**
 * P(X >= k) for X ~ Binomial(n, p): the chance that of n independent events,
 * each falling one way with probability p, at least k fall that way. Summed
 * in logarithms from the k-th term up, so a long copy's thousands of events
 * neither underflow nor cost more than n steps.
 */
export function binomialTailAtLeast(k: number, n: number, p: number): number {
  if (!Number.isInteger(k) || !Number.isInteger(n) || n < 0 || !(p >= 0 && p <= 1)) throw new RangeError(`no binomial tail for k=${k}, n=${n}, p=${p}`);
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p === 0) return 0;
  if (p === 1) return 1;
  // log C(n, k) + k log p + (n - k) log(1 - p): the first term of the tail.
  let logTerm = k * Math.log(p) + (n - k) * Math.log1p(-p);
  for (let j = 1; j <= k; j += 1) logTerm += Math.log((n - k + j) / j);
  const ratio = p / (1 - p);
  let [tail, term] = [0, Math.exp(logTerm)];
  for (let i = k; i <= n; i += 1) {
    tail += term;
    // Each next term is the last times (n - i) / (i + 1) * p / (1 - p); once they fall below a ten-billionth of the tail they change nothing.
    term *= ((n - i) / (i + 1)) * ratio;
    if (term < tail * 1e-10 && i > n * p) break;
  }
  return Math.min(1, tail);
}
