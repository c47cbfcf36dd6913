/**
 * Damerau–Levenshtein distance: the fewest insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn one string into the other, over code points. This is the unrestricted distance
 * (Lowrance–Wagner), so text may be edited between two swapped characters: `ca` → `abc` is 2 (swap, insert), where
 * the restricted "optimal string alignment" variant answers 3.
 *
 * `max` skips the work for strings whose lengths alone differ by more: then `max + 1` is returned.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  if (s.length === 0 || t.length === 0) return Math.max(s.length, t.length);
  const infinity = s.length + t.length;
  const width = t.length + 2;
  // d[(i + 1) * width + (j + 1)] is the distance between s's first i and t's first j code points; row and column 0
  // hold the infinity sentinel of the algorithm.
  const d = new Array<number>((s.length + 2) * width).fill(0);
  d[0] = infinity;
  for (let i = 0; i <= s.length; i++) {
    d[(i + 1) * width] = infinity;
    d[(i + 1) * width + 1] = i;
  }
  for (let j = 0; j <= t.length; j++) {
    d[j + 1] = infinity;
    d[width + j + 1] = j;
  }
  /** The last row where each character occurred in s. */
  const lastRow = new Map<string, number>();
  for (let i = 1; i <= s.length; i++) {
    let lastMatchColumn = 0;
    for (let j = 1; j <= t.length; j++) {
      const k = lastRow.get(t[j - 1] as string) ?? 0;
      const l = lastMatchColumn;
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      if (cost === 0) lastMatchColumn = j;
      const at = (row: number, column: number) => d[(row + 1) * width + column + 1] as number;
      const value = Math.min(
        at(i - 1, j - 1) + cost,
        at(i, j - 1) + 1,
        at(i - 1, j) + 1,
        at(k - 1, l - 1) + (i - k - 1) + 1 + (j - l - 1),
      );
      d[(i + 1) * width + j + 1] = value;
    }
    lastRow.set(s[i - 1] as string, i);
  }
  return d[(s.length + 1) * width + t.length + 1] as number;
}
