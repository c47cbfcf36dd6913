import { idf, queryWeights, termFrequencies, termScore } from '../format/bm25.ts';

/**
 * A document as the ranker sees it: an id and its tokens, in order, and its length when the tokens are not all
 * words (an item's exact forms stand beside their stems: `indexTerms`); otherwise the number of tokens.
 */
export interface TokenizedDoc {
  readonly id: number;
  readonly tokens: readonly string[];
  readonly dl?: number;
}

/** One ranked document. `matchedTerms`: the distinct query terms it contains, in query order. */
export interface RankedDoc {
  id: number;
  score: number;
  matchedTerms: string[];
}

/**
 * Ranks documents for a query: at most `topK`, by score descending, then id ascending. The query is its tokens, or
 * each term with its weight (a multiplier of its BM25 score: a count, or a prefix or typo match's weight).
 */
export type Ranker = (
  query: readonly string[] | ReadonlyMap<string, number>,
  topK: number,
  wordOf?: ReadonlyMap<string, string>,
) => RankedDoc[];

/** What the ranker keeps of one document. */
interface DocStats {
  readonly id: number;
  readonly tf: ReadonlyMap<string, number>;
  readonly dl: number;
}

/** What one query is scored with: each term's weight and idf, the corpus's average length, each term's word. */
interface ScoringQuery {
  readonly weights: ReadonlyMap<string, number>;
  readonly termIdf: ReadonlyMap<string, number>;
  readonly avgdl: number;
  readonly wordOf: ReadonlyMap<string, string> | undefined;
}

/**
 * Exact BM25 over every document, in memory: the reference the DynamoDB-backed index is checked against.
 * Term frequencies and lengths are computed once, so one index serves many queries.
 */
export function indexInMemory(docs: readonly TokenizedDoc[]): Ranker {
  const stats: DocStats[] = docs.map((doc) => ({
    id: doc.id,
    tf: termFrequencies(doc.tokens),
    dl: doc.dl ?? doc.tokens.length,
  }));
  const avgdl = stats.length > 0 ? stats.reduce((sum, doc) => sum + doc.dl, 0) / stats.length : 0;
  const docFreq = new Map<string, number>();
  for (const doc of stats) for (const term of doc.tf.keys()) docFreq.set(term, (docFreq.get(term) ?? 0) + 1);

  return (query, topK, wordOf) => {
    const weights = query instanceof Map ? query : queryWeights(query as readonly string[]);
    if (topK < 1) return [];
    const termIdf = new Map(
      [...weights.keys()].map((term) => [term, idf(stats.length, docFreq.get(term) ?? 0)]),
    );
    const scoring: ScoringQuery = { weights, termIdf, avgdl, wordOf };
    const ranked: RankedDoc[] = [];
    for (const doc of stats) {
      const hit = scoreDoc(doc, scoring);
      if (hit !== undefined) ranked.push(hit);
    }
    return ranked.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, topK);
  };
}

/** One document's BM25 for the query, with the query terms it holds; undefined when it holds none or scores 0. */
function scoreDoc({ id, tf: frequencies, dl }: DocStats, query: ScoringQuery): RankedDoc | undefined {
  const { weights, termIdf, avgdl, wordOf } = query;
  // A word's alternatives are one term (contract §8.6): each word adds its best alternative's score.
  const best = new Map<string, number>();
  const matchedTerms: string[] = [];
  for (const [term, weight] of weights) {
    const tf = frequencies.get(term);
    if (tf === undefined) continue;
    // The weight scales the idf, as the query does (query.ts), so both add the very same numbers.
    const score = termScore({ tf, dl, avgdl, idf: weight * (termIdf.get(term) ?? 0) });
    const word = wordOf?.get(term) ?? term;
    best.set(word, Math.max(best.get(word) ?? 0, score));
    matchedTerms.push(term);
  }
  let score = 0;
  for (const value of best.values()) score += value;
  return matchedTerms.length > 0 && score > 0 ? { id, score, matchedTerms } : undefined;
}

/** Exact BM25 of `docs` for one query: the documents with a query term, best `topK` first (ties: id ascending). */
export function rankInMemory(
  docs: readonly TokenizedDoc[],
  queryTokens: readonly string[] | ReadonlyMap<string, number>,
  topK: number,
  wordOf?: ReadonlyMap<string, string>,
): RankedDoc[] {
  return indexInMemory(docs)(queryTokens, topK, wordOf);
}
