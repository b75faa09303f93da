// The nearest of a few known words to one a person mistyped ("--bandwith"
// for "--bandwidth", "asess" for "assess"): edit distance, small enough to
// be a slip of the fingers and not another word.

/** Levenshtein distance, insertions, deletions and substitutions costing one each. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? Math.max(a.length, b.length);
}

/** The candidate nearest to `typed`, if it is within a slip: 1 edit for short words, 2 from 5 letters, 3 from 10. */
export function didYouMean(typed: string, candidates: readonly string[]): string | undefined {
  const allowed = typed.length >= 10 ? 3 : typed.length >= 5 ? 2 : 1;
  let best: { word: string; distance: number } | undefined;
  for (const word of candidates) {
    const distance = editDistance(typed.toLowerCase(), word.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { word, distance };
  }
  return best?.word;
}
