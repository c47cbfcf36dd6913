import { queryWeights } from '../format/bm25.ts';
import { PREFIX_PARTITION_LENGTH } from '../format/keys.ts';
import { editDistance } from '../text/edits.ts';
import { MAX_TOKEN_LENGTH, tokenize, words } from '../text/tokenizer.ts';
import type { Dictionary, DictionaryTerm } from './dictionary.ts';

/** Contract §8.3–8.4. */
export const PREFIX_MIN_LENGTH = PREFIX_PARTITION_LENGTH;
export const PREFIX_TERMS = 50;
export const TYPO_MIN_LENGTH = 4;
/** Terms up to this many code points are allowed one edit whatever `typos` says. */
export const ONE_TYPO_MAX_LENGTH = 7;
export const CORRECTIONS_PER_WORD = 20;

export interface ExpansionOptions {
  prefix?: boolean | undefined;
  typos?: 0 | 1 | 2 | undefined;
}

/** How a query term entered the query: as written, as a completion of the last word, or as a correction. */
export type TermOrigin = { kind: 'exact' } | { kind: 'prefix' } | { kind: 'typo'; of: string; edits: number };

/** A query's terms with their weights (a multiplier of each term's BM25 score), in scoring order. */
export interface ExpandedQuery {
  weights: Map<string, number>;
  origins: Map<string, TermOrigin>;
  /**
   * Each term's word (contract §8.6): a query term is its own, a correction joins the term it corrects, and a
   * completion the last word; a word's alternatives score as one term, the best of them.
   */
  groups: Map<string, string>;
}

const byDfThenTerm = (a: DictionaryTerm, b: DictionaryTerm) =>
  b.df - a.df || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);

/** The last word of the query as the tokenizer reads it (normalised, before stopwords and stemming), if any. */
export function lastWord(query: string): string | undefined {
  return words(query).at(-1);
}

/** The terms that complete `word` (§8.3): the PREFIX_TERMS with the most postings, then in term order. */
export async function completions(dictionary: Dictionary, word: string): Promise<DictionaryTerm[]> {
  const length = [...word].length;
  if (length < PREFIX_MIN_LENGTH || length > MAX_TOKEN_LENGTH) return [];
  return (await dictionary.withPrefix(word)).sort(byDfThenTerm).slice(0, PREFIX_TERMS);
}

/** The edits a term of this length may be corrected by, given the request's `typos` (§8.4). */
export function allowedEdits(term: string, typos: number): number {
  const length = [...term].length;
  if (length < TYPO_MIN_LENGTH) return 0;
  return length <= ONE_TYPO_MAX_LENGTH ? Math.min(typos, 1) : typos;
}

/**
 * The indexed terms within `maxEdits` of `term` (other than `term` and the terms in `exclude`): closest first, then
 * the most frequent, then in term order; at most CORRECTIONS_PER_WORD. Only terms within `maxEdits` of the term's
 * length can be within `maxEdits` edits, so `ofLength` lists the candidates; `dfOf` gives the dfs of those in reach.
 */
export async function corrections(
  dictionary: Pick<Dictionary, 'ofLength' | 'dfOf'>,
  term: string,
  maxEdits: number,
  exclude: ReadonlySet<string> = new Set(),
): Promise<(DictionaryTerm & { edits: number })[]> {
  if (maxEdits <= 0) return [];
  const length = [...term].length;
  const lengths: number[] = [];
  for (let l = Math.max(1, length - maxEdits); l <= Math.min(MAX_TOKEN_LENGTH, length + maxEdits); l++)
    lengths.push(l);
  const near: { term: string; edits: number }[] = [];
  for (const terms of await Promise.all(lengths.map((l) => dictionary.ofLength(l)))) {
    for (const candidate of terms) {
      if (candidate === term || exclude.has(candidate)) continue;
      const edits = editDistance(term, candidate, maxEdits);
      if (edits <= maxEdits) near.push({ term: candidate, edits });
    }
  }
  if (near.length === 0) return [];
  const dfs = await dictionary.dfOf(near.map((c) => c.term));
  return near
    .map((candidate) => ({ ...candidate, df: dfs.get(candidate.term) ?? 0 }))
    .filter((candidate) => candidate.df > 0)
    .sort((a, b) => a.edits - b.edits || byDfThenTerm(a, b))
    .slice(0, CORRECTIONS_PER_WORD);
}

/**
 * The terms a query searches for (contract §8.3–8.4): its own terms, weighted by their count (bm25.ts); with
 * `prefix`, the completions of its last word, weight 1 each; with `typos`, for each of its terms long enough, its
 * corrections, weight count / (1 + edits). A term reached several ways keeps its largest weight, and a query term
 * is never replaced by a completion or a correction of another. Dictionary partitions are read once per query.
 */
export async function expandQuery(
  query: string,
  { prefix = false, typos = 0 }: ExpansionOptions,
  dictionary: Dictionary,
): Promise<ExpandedQuery> {
  const weights = queryWeights(tokenize(query));
  const origins = new Map<string, TermOrigin>([...weights.keys()].map((term) => [term, { kind: 'exact' }]));
  const exact = new Set(weights.keys());
  const groups = new Map<string, string>([...exact].map((term) => [term, term]));
  const offer = (term: string, weight: number, origin: TermOrigin, group: string) => {
    if (exact.has(term) || (weights.get(term) ?? 0) >= weight) return;
    weights.set(term, weight);
    origins.set(term, origin);
    groups.set(term, group);
  };
  const byLength = new Map<number, Promise<string[]>>();
  const ofLength = (length: number) => {
    let terms = byLength.get(length);
    if (!terms) {
      terms = dictionary.ofLength(length);
      byLength.set(length, terms);
    }
    return terms;
  };
  const reader = { ofLength, dfOf: dictionary.dfOf };
  const word = prefix ? lastWord(query) : undefined;
  const [completed, corrected] = await Promise.all([
    word === undefined ? [] : completions(dictionary, word),
    Promise.all(
      [...exact].map(async (term) => ({
        term,
        found: await corrections(reader, term, allowedEdits(term, typos), exact),
      })),
    ),
  ]);
  // The completions join the last word's own term (when it is one: not a stopword), or a word of their own.
  const typed = word === undefined ? undefined : tokenize(word)[0];
  const prefixGroup = typed !== undefined && exact.has(typed) ? typed : '\u0000prefix';
  const typedLength = word === undefined ? 0 : [...word].length;
  for (const { term } of completed)
    offer(term, completionWeight(typedLength, [...term].length), { kind: 'prefix' }, prefixGroup);
  for (const { term: of, found } of corrected)
    for (const { term, edits } of found)
      offer(term, (weights.get(of) ?? 1) / (1 + edits), { kind: 'typo', of, edits }, of);
  return { weights, origins, groups };
}

/**
 * A completion's weight (contract §8.6): the share of it that was typed, so it scores below the word written in
 * full, and the less of it typed the lower ("aer" → "aerodynam": 3/9). Measured against a weight of 1 and its square
 * root on Cranfield as typed: BENCHMARKS.md, Ranking with `prefix` and `typos`.
 */
export function completionWeight(typed: number, completion: number): number {
  return Math.min(1, typed / Math.max(1, completion));
}

/** A dictionary over terms held in memory (every term with its df): the exhaustive reference, and for tests. */
export function dictionaryInMemory(terms: ReadonlyMap<string, number>): Dictionary {
  const all = [...terms].filter(([, df]) => df > 0).map(([term, df]) => ({ term, df }));
  const inOrder = (list: DictionaryTerm[]) => list.sort((a, b) => (a.term < b.term ? -1 : 1));
  return {
    withPrefix: async (word) => inOrder(all.filter(({ term }) => term.startsWith(word))),
    ofLength: async (length) =>
      inOrder(all.filter(({ term }) => [...term].length === length)).map(({ term }) => term),
    dfOf: async (list) => new Map(list.map((term) => [term, terms.get(term) ?? 0])),
  };
}
