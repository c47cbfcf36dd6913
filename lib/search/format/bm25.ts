/**
 * Lucene's BM25, as the contract fixes it: k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5) / (n + 0.5)), and
 * a document's score for a query is the sum over the query's tokens of
 *   idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl)).
 *
 * A token repeated in the query counts once per occurrence, as in Lucene: its query parser makes one SHOULD
 * clause per token and `BooleanQuery.rewrite` merges duplicate SHOULD clauses into one whose boost is their
 * count. So "boot boot hiking" weighs `boot` twice; `queryWeights` gives each distinct term its count.
 */

/** Term-frequency saturation. */
export const K1 = 1.2;
/** Document-length normalization. */
export const B = 0.75;

/** Inverse document frequency of a term found in `docFreq` of `docCount` documents. */
export function idf(docCount: number, docFreq: number): number {
  return Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
}

/** What is known of one term in one document: its frequency, the document's length and the average length. */
export interface TermInDoc {
  readonly tf: number;
  readonly dl: number;
  readonly avgdl: number;
}

/** tf / (tf + k1 · (1 − b + b · dl / avgdl)): the document-only part of a term's score, in [0, 1). */
export function saturation({ tf, dl, avgdl }: TermInDoc): number {
  // An empty corpus has avgdl 0; any document in it is empty too, so treat its length as average.
  const relativeLength = avgdl > 0 ? dl / avgdl : 1;
  return tf / (tf + K1 * (1 - B + B * relativeLength));
}

/** One term's BM25 contribution to a document's score: idf · (k1 + 1) · saturation. */
export function termScore(term: TermInDoc & { readonly idf: number }): number {
  return term.idf * (K1 + 1) * saturation(term);
}

/** How often each token occurs, keyed in first-occurrence order. */
export function termFrequencies(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/** The weight of each distinct query term: how many times it occurs in the query, in query order. */
export const queryWeights = (queryTokens: readonly string[]): Map<string, number> =>
  termFrequencies(queryTokens);
