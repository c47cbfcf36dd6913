import { idf, queryWeights, termFrequencies, termScore } from './bm25.ts';

/** A document as the ranker sees it: an id and its tokens, in order. */
export interface TokenizedDoc {
  readonly id: number;
  readonly tokens: readonly string[];
}

/** One ranked document. `matchedTerms`: the distinct query terms it contains, in query order. */
export interface RankedDoc {
  id: number;
  score: number;
  matchedTerms: string[];
}

/** Ranks documents for a query's tokens: at most `topK`, by score descending, then id ascending. */
export type Ranker = (queryTokens: readonly string[], topK: number) => RankedDoc[];

/**
 * Exact BM25 over every document, in memory: the reference the DynamoDB-backed index is checked against.
 * Term frequencies and lengths are computed once, so one index serves many queries.
 */
export function indexInMemory(docs: readonly TokenizedDoc[]): Ranker {
  const stats = docs.map((doc) => ({ id: doc.id, tf: termFrequencies(doc.tokens), dl: doc.tokens.length }));
  const avgdl = stats.length > 0 ? stats.reduce((sum, doc) => sum + doc.dl, 0) / stats.length : 0;
  const docFreq = new Map<string, number>();
  for (const doc of stats) for (const term of doc.tf.keys()) docFreq.set(term, (docFreq.get(term) ?? 0) + 1);

  return (queryTokens, topK) => {
    const weights = queryWeights(queryTokens);
    const ranked: RankedDoc[] = [];
    if (topK < 1) return ranked;
    const termIdf = new Map(
      [...weights.keys()].map((term) => [term, idf(stats.length, docFreq.get(term) ?? 0)]),
    );
    for (const { id, tf: frequencies, dl } of stats) {
      let score = 0;
      const matchedTerms: string[] = [];
      for (const [term, weight] of weights) {
        const tf = frequencies.get(term);
        if (tf === undefined) continue;
        score += weight * termScore({ tf, dl, avgdl, idf: termIdf.get(term) ?? 0 });
        matchedTerms.push(term);
      }
      if (matchedTerms.length > 0 && score > 0) ranked.push({ id, score, matchedTerms });
    }
    return ranked.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, topK);
  };
}

/** Exact BM25 of `docs` for one query: the documents with a query term, best `topK` first (ties: id ascending). */
export function rankInMemory(
  docs: readonly TokenizedDoc[],
  queryTokens: readonly string[],
  topK: number,
): RankedDoc[] {
  return indexInMemory(docs)(queryTokens, topK);
}
