import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { editDistance } from '../../../../lib/search/text/edits.ts';

/**
 * The definition itself, by breadth-first search: the fewest insertions, deletions, substitutions and adjacent swaps
 * (over the two strings' characters) that turn `a` into `b`, up to `limit` (then limit + 1).
 */
function fewestEdits(a: string, b: string, limit: number): number {
  const alphabet = [...new Set([...a, ...b])];
  let frontier = new Set([a]);
  const seen = new Set([a]);
  for (let distance = 0; distance <= limit; distance++) {
    if (frontier.has(b)) return distance;
    const next = new Set<string>();
    for (const text of frontier) {
      const s = [...text];
      const variants: string[] = [];
      for (let i = 0; i <= s.length; i++) {
        for (const c of alphabet) variants.push([...s.slice(0, i), c, ...s.slice(i)].join(''));
        if (i < s.length) {
          variants.push([...s.slice(0, i), ...s.slice(i + 1)].join(''));
          for (const c of alphabet) variants.push([...s.slice(0, i), c, ...s.slice(i + 1)].join(''));
        }
        if (i + 1 < s.length) variants.push([...s.slice(0, i), s[i + 1], s[i], ...s.slice(i + 2)].join(''));
      }
      for (const variant of variants)
        if (!seen.has(variant)) {
          seen.add(variant);
          next.add(variant);
        }
    }
    frontier = next;
  }
  return limit + 1;
}

describe('editDistance (Damerau–Levenshtein)', () => {
  it.each([
    ['boots', 'boots', 0],
    ['boot', 'boots', 1],
    ['boots', 'bots', 1],
    ['boots', 'boats', 1],
    ['boots', 'obots', 1],
    ['waterprof', 'waterproof', 1],
    ['ca', 'abc', 2],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['café', 'cafe', 1],
    ['😀a', 'a😀', 1],
  ])('%j → %j is %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
    expect(editDistance(b, a)).toBe(expected);
  });

  it('answers max + 1 for lengths too far apart to be within max', () => {
    expect(editDistance('boot', 'bootstrap', 2)).toBe(3);
  });

  test.prop([
    fc.string({ unit: fc.constantFrom('a', 'b', 'c', '😀'), maxLength: 5 }),
    fc.string({ unit: fc.constantFrom('a', 'b', 'c', '😀'), maxLength: 5 }),
  ])('equals the fewest edits found by search, up to 3', (a, b) => {
    expect(Math.min(editDistance(a, b), 4)).toBe(fewestEdits(a, b, 3));
  });

  test.prop([
    fc.string({ unit: fc.constantFrom('a', 'b', 'c', '😀'), maxLength: 7 }),
    fc.string({ unit: fc.constantFrom('a', 'b', 'c', '😀'), maxLength: 7 }),
    fc.integer({ min: 0, max: 3 }),
  ])('with a bound, equals the distance when within it and answers bound + 1 otherwise', (a, b, max) => {
    const exact = editDistance(a, b);
    expect(editDistance(a, b, max)).toBe(exact <= max ? exact : max + 1);
  });
});
