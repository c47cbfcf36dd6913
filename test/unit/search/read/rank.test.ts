import { describe, expect, it } from 'vitest';
import { idf, termScore } from '../../../../lib/search/format/bm25.ts';
import { indexInMemory, rankInMemory } from '../../../../lib/search/read/rank.ts';

const docs = [
  { id: 1, tokens: ['trail', 'boot', 'waterproof'] },
  { id: 2, tokens: ['rain', 'jacket', 'waterproof', 'waterproof', 'light', 'pack'] },
  { id: 3, tokens: ['hike', 'boot', 'leather'] },
  { id: 4, tokens: ['hike', 'boot', 'leather'] },
  { id: 5, tokens: ['tent'] },
];
// avgdl = (3 + 6 + 3 + 3 + 1) / 5 = 3.2
const avgdl = 3.2;

describe('rankInMemory', () => {
  it('scores by BM25 summed over the query terms each document contains', () => {
    const [first] = rankInMemory(docs, ['waterproof', 'boot'], 1);
    const expected =
      termScore({ tf: 1, dl: 3, avgdl, idf: idf(5, 2) }) + termScore({ tf: 1, dl: 3, avgdl, idf: idf(5, 3) });
    expect(first?.id).toBe(1);
    expect(first?.score).toBeCloseTo(expected, 12);
    expect(first?.matchedTerms).toStrictEqual(['waterproof', 'boot']);
  });

  it('sorts by score descending, ties by id ascending, and lists matched terms in query order', () => {
    const results = rankInMemory(docs, ['leather', 'hike', 'boot'], 10);
    expect(results.map(({ id, matchedTerms }) => ({ id, matchedTerms }))).toStrictEqual([
      { id: 3, matchedTerms: ['leather', 'hike', 'boot'] },
      { id: 4, matchedTerms: ['leather', 'hike', 'boot'] },
      { id: 1, matchedTerms: ['boot'] },
    ]);
    expect(results[0]?.score).toBe(results[1]?.score);
  });

  it('returns only documents with a query term, at most topK of them', () => {
    expect(rankInMemory(docs, ['boot'], 2).map((result) => result.id)).toStrictEqual([1, 3]);
    expect(rankInMemory(docs, ['sandal'], 10)).toStrictEqual([]);
    expect(rankInMemory(docs, [], 10)).toStrictEqual([]);
    expect(rankInMemory([], ['boot'], 10)).toStrictEqual([]);
  });

  it('takes a document’s length as given when its tokens are not all words (exact forms beside stems)', () => {
    const withExact = [{ id: 1, tokens: ['hike', '=hiking', 'boot'], dl: 2 }, ...docs.slice(1)];
    const [first] = rankInMemory(withExact, ['boot'], 1);
    // avgdl over the lengths given: (2 + 6 + 3 + 3 + 1) / 5.
    expect(first?.score).toBeCloseTo(termScore({ tf: 1, dl: 2, avgdl: 15 / 5, idf: idf(5, 3) }), 12);
  });

  it('counts a repeated query term once per occurrence and lists it once', () => {
    const once = rankInMemory(docs, ['tent', 'boot'], 10);
    const twice = rankInMemory(docs, ['tent', 'boot', 'boot'], 10);
    const bootScore = (results: typeof once) => results.find((result) => result.id === 1)?.score ?? 0;
    expect(bootScore(twice)).toBeCloseTo(2 * bootScore(once), 12);
    expect(twice.find((result) => result.id === 1)?.matchedTerms).toStrictEqual(['boot']);
  });

  it('answers a series of queries from one index exactly as a fresh index answers each of them alone', () => {
    const rank = indexInMemory(docs);
    const queries: (string[] | Map<string, number>)[] = [
      ['waterproof', 'hike'],
      new Map([
        ['boot', 0.5],
        ['tent', 2],
      ]),
      ['leather', 'leather', 'pack'],
      [],
      ['waterproof', 'hike'],
    ];
    for (const query of queries) {
      const alone = rankInMemory(docs, query, 3);
      expect(rank(query, 3)).toStrictEqual(alone);
    }
    // Not vacuous: the queries have different answers.
    expect(new Set(queries.map((query) => JSON.stringify(rank(query, 3)))).size).toBe(4);
  });

  it("scores a word's alternatives as one term: the best of them, never their sum (contract §8.6)", () => {
    // "hik" typed, completed to hike (3/4) and hiker (3/5); items 1 and 2 hold one completion each, item 3 both.
    const items = [
      { id: 1, tokens: ['hike', 'trail'] },
      { id: 2, tokens: ['hiker', 'trail'] },
      { id: 3, tokens: ['hike', 'hiker'] },
      { id: 4, tokens: ['boot', 'trail'] },
    ];
    const weights = new Map([
      ['hike', 3 / 4],
      ['hiker', 3 / 5],
      ['boot', 1],
    ]);
    const wordOf = new Map([
      ['hike', 'hik'],
      ['hiker', 'hik'],
      ['boot', 'boot'],
    ]);
    const one = (term: string) => rankInMemory(items, new Map([[term, weights.get(term) ?? 0]]), 10);
    const scoreOf = (results: ReturnType<typeof one>, id: number) =>
      results.find((r) => r.id === id)?.score ?? 0;
    const byWord = rankInMemory(items, weights, 10, wordOf);
    const summed = rankInMemory(items, weights, 10);
    const best = Math.max(scoreOf(one('hike'), 3), scoreOf(one('hiker'), 3));
    expect(scoreOf(byWord, 3)).toBeCloseTo(best, 12);
    expect(scoreOf(summed, 3)).toBeGreaterThan(best * 1.5);
    expect(byWord.find((r) => r.id === 3)?.matchedTerms).toStrictEqual(['hike', 'hiker']);
    // A word of its own adds as before.
    expect(scoreOf(byWord, 4)).toBeCloseTo(scoreOf(summed, 4), 12);
  });
});
