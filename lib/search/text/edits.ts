/**
 * Damerau–Levenshtein distance: the fewest insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn one string into the other, over code points. This is the unrestricted distance
 * (Lowrance–Wagner), so text may be edited between two swapped characters: `ca` → `abc` is 2 (swap, insert), where
 * the restricted "optimal string alignment" variant answers 3.
 *
 * `max` bounds the work: when the answer is above it, `max + 1` is returned as soon as that is certain. Two
 * lower bounds come first: the lengths' difference, and the bag distance (the characters one string has more of than
 * the other: an edit changes that count by one at most, a swap not at all); then the table's rows stop once the
 * smallest value of a row is above `max` (no later row can go below it: each row's minimum is at least the previous
 * row's). Typo correction (lib/search/read/corrections.ts) compares a word with every term of nearby lengths, nearly all
 * of them far away, so nearly all end at a bound.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  if (s.length === 0 || t.length === 0) return Math.max(s.length, t.length);
  if (Number.isFinite(max) && bagDistance(s, t) > max) return max + 1;
  return tableDistance(s, t, max);
}

/** The distance by the table of the algorithm, row by row, stopping with `max + 1` once a row is all above `max`. */
function tableDistance(s: readonly string[], t: readonly string[], max: number): number {
  const infinity = s.length + t.length;
  const width = t.length + 2;
  const d = sentinelTable(s.length, t.length, infinity);
  /** The last row where each character occurred in s. */
  const lastRow = new Map<string, number>();
  for (let i = 1; i <= s.length; i++) {
    const rowMin = fillRow(d, i, s[i - 1] as string, t, lastRow, infinity);
    if (Math.min(rowMin, d[(i + 1) * width + 1] as number) > max) return max + 1;
    lastRow.set(s[i - 1] as string, i);
  }
  // A row's minimum within the bound does not make the last cell so (the minimum may lie in another column).
  const distance = d[(s.length + 1) * width + t.length + 1] as number;
  return distance > max ? max + 1 : distance;
}

/**
 * The table for strings of `m` and `n` code points, its first row and column filled: d[(i + 1) * (n + 2) + (j + 1)]
 * is the distance between s's first i and t's first j code points; row and column 0 hold the infinity sentinel of
 * the algorithm.
 */
function sentinelTable(m: number, n: number, infinity: number): Int32Array {
  const width = n + 2;
  const d = new Int32Array((m + 2) * width);
  d[0] = infinity;
  for (let i = 0; i <= m; i++) {
    d[(i + 1) * width] = infinity;
    d[(i + 1) * width + 1] = i;
  }
  for (let j = 0; j <= n; j++) {
    d[j + 1] = infinity;
    d[width + j + 1] = j;
  }
  return d;
}

/** Fills row `i` (s's code point `c`) against every code point of t; returns the row's smallest value. */
function fillRow(
  d: Int32Array,
  i: number,
  c: string,
  t: readonly string[],
  lastRow: ReadonlyMap<string, number>,
  infinity: number,
): number {
  const width = t.length + 2;
  const row = (i + 1) * width;
  const above = i * width;
  let lastMatchColumn = 0;
  let rowMin = infinity;
  for (let j = 1; j <= t.length; j++) {
    const k = lastRow.get(t[j - 1] as string) ?? 0;
    const l = lastMatchColumn;
    const cost = c === t[j - 1] ? 0 : 1;
    if (cost === 0) lastMatchColumn = j;
    const value = Math.min(
      (d[above + j] as number) + cost,
      (d[row + j] as number) + 1,
      (d[above + j + 1] as number) + 1,
      (d[k * width + l] as number) + (i - k - 1) + 1 + (j - l - 1),
    );
    d[row + j + 1] = value;
    if (value < rowMin) rowMin = value;
  }
  return rowMin;
}

/** The most characters (counted with repeats) that one of two strings has and the other lacks. */
function bagDistance(s: readonly string[], t: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  for (const c of t) counts.set(c, (counts.get(c) ?? 0) - 1);
  let more = 0;
  let fewer = 0;
  for (const n of counts.values()) {
    if (n > 0) more += n;
    else fewer -= n;
  }
  return Math.max(more, fewer);
}
