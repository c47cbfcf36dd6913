import { BLOCK_CAPACITY, tailDirectoryLimit } from '../format/blocks.ts';
import { dfClass, dfRangeOfClass, LENGTH_INDEX_MIN_LENGTH, PREFIX_PARTITION_LENGTH } from '../format/keys.ts';
import { editDistance } from '../text/edits.ts';
import { MAX_TOKEN_LENGTH, tokenize, words, wordTerms } from '../text/tokenizer.ts';
import { type ClassedTerm, type Dictionary, inTermOrder } from './dictionary.ts';

/** Contract §8.3–8.4. */
export const PREFIX_MIN_LENGTH = PREFIX_PARTITION_LENGTH;
export const PREFIX_TERMS = 50;
export const TYPO_MIN_LENGTH = 4;
/** Terms up to this many code points are allowed one edit whatever `typos` says. */
export const ONE_TYPO_MAX_LENGTH = 7;
export const CORRECTIONS_PER_WORD = 20;
/**
 * The weight of a word's stem beside its exact form (contract §8.6's last sentence): an item that holds only another
 * word with the same stem scores as a correction of one edit does, half; one that holds the word as written scores
 * its exact form's BM25 at weight 1, or its stem's at this weight, the better.
 */
export const STEM_WEIGHT = 0.5;

export interface ExpansionOptions {
  prefix?: boolean | undefined;
  typos?: 0 | 1 | 2 | undefined;
}

/**
 * How a query term entered the query: as written (a word's exact form, or the stem of a word that has none), as the
 * stem of a word written with a suffix, as a completion of the last word, or as a correction.
 */
export type TermOrigin =
  | { kind: 'exact' }
  | { kind: 'stem' }
  | { kind: 'prefix' }
  | { kind: 'typo'; of: string; edits: number };

/** A df under which a term's sealed blocks, full ones or not, are few enough for its tail to list them. */
const SMALL_DF = (BLOCK_CAPACITY * tailDirectoryLimit(BLOCK_CAPACITY)) / 2;

/** A query's terms with their weights (a multiplier of each term's BM25 score), in scoring order. */
export interface ExpandedQuery {
  weights: Map<string, number>;
  origins: Map<string, TermOrigin>;
  /**
   * Each term's word (contract §8.6), named by the word's stem: a word's exact form and its stem, its corrections, and
   * for the last word its completions; a word's alternatives score as one term, the best of them.
   */
  wordOf: Map<string, string>;
  /**
   * Completions whose df class puts them under half the sealed blocks a tail lists (postings.ts): their tails list
   * their directories unless they lost postings since (blocks are not merged), so the search reads them by key.
   */
  small: Set<string>;
}

/** The last word of the query as the tokenizer reads it (normalised, before stopwords and stemming), if any. */
export function lastWord(query: string): string | undefined {
  return words(query).at(-1);
}

/**
 * The `limit` terms with the most postings among `terms` (ties in term order), in term order. The dictionary gives
 * each term's df class, and every df of a class is above every df of a lower one (keys.ts), so whole classes are
 * taken from the top while they fit; only the class where the limit falls needs its terms' dfs, read by `dfOf` (and a
 * term whose class is not known is read first). A term whose df reads 0 has no postings left, and is not one.
 */
export async function mostFrequent(
  terms: readonly ClassedTerm[],
  limit: number,
  dfOf: Dictionary['dfOf'],
): Promise<ClassedTerm[]> {
  if (terms.length <= limit) return [...terms].sort((a, b) => inTermOrder(a.term, b.term));
  const unknown = terms.filter((t) => t.dfClass === undefined).map((t) => t.term);
  const read = unknown.length > 0 ? await dfOf(unknown) : new Map<string, number>();
  const byClass = new Map<number, string[]>();
  for (const { term, dfClass: known } of terms) {
    const df = read.get(term);
    const c = known ?? (df !== undefined && df > 0 ? dfClass(df) : undefined);
    if (c !== undefined) byClass.set(c, [...(byClass.get(c) ?? []), term]);
  }
  const taken: ClassedTerm[] = [];
  for (const c of [...byClass.keys()].sort((a, b) => b - a)) {
    const members = byClass.get(c) ?? [];
    const room = limit - taken.length;
    if (members.length <= room) taken.push(...members.map((term) => ({ term, dfClass: c })));
    else {
      const unread = members.filter((term) => !read.has(term));
      const dfs = new Map([...read, ...(unread.length > 0 ? await dfOf(unread) : [])]);
      const ranked = members
        .map((term) => ({ term, df: dfs.get(term) ?? 0 }))
        .filter(({ df }) => df > 0)
        .sort((a, b) => b.df - a.df || inTermOrder(a.term, b.term));
      taken.push(...ranked.slice(0, room).map(({ term, df }) => ({ term, dfClass: dfClass(df) })));
    }
    if (taken.length >= limit) break;
  }
  return taken.sort((a, b) => inTermOrder(a.term, b.term));
}

/** The terms that complete `word` (§8.3): the `limit` with the most postings, in term order, with their df classes. */
export async function completions(
  dictionary: Dictionary,
  word: string,
  limit = PREFIX_TERMS,
): Promise<ClassedTerm[]> {
  const length = [...word].length;
  if (length < PREFIX_MIN_LENGTH || length > MAX_TOKEN_LENGTH) return [];
  return mostFrequent(await dictionary.withPrefix(word), limit, dictionary.dfOf);
}

/** The edits a term of this length may be corrected by, given the request's `typos` (§8.4). */
export function allowedEdits(term: string, typos: number): number {
  const length = [...term].length;
  if (length < TYPO_MIN_LENGTH) return 0;
  return length <= ONE_TYPO_MAX_LENGTH ? Math.min(typos, 1) : typos;
}

/**
 * Every indexed term that may be within `maxEdits` of `term`: they have L − d … L + d code points (L the term's,
 * d = maxEdits). One edit at code point i (a substitution or a deletion of i, an insertion before it, a swap of i and
 * i + 1) keeps the code points before i, and those after i + 1, which end the term. So with p + s = L − 1, a term
 * one edit away begins with the term's first p code points (the edit at i ≥ p) or ends with its last s (at i < p,
 * the edit reaches p at most, and p < L − s): the terms of the prefix index that begin with the first half (lengths
 * L − 1 … L + 1 kept) and those of each length that end with the second half (`endingWith`) are every candidate, a
 * few ranges of the index instead of whole lengths. Two edits may change both ends: the lengths are read whole.
 * The dictionary holds no term shorter than LENGTH_INDEX_MIN_LENGTH for typos (keys.ts): none is within the edits
 * `allowedEdits` gives a query term.
 */
async function candidates(
  dictionary: Pick<Dictionary, 'withPrefix' | 'ofLength' | 'endingWith'>,
  term: string,
  maxEdits: number,
): Promise<Iterable<string>> {
  const points = [...term];
  const lengths: number[] = [];
  for (
    let l = Math.max(LENGTH_INDEX_MIN_LENGTH, points.length - maxEdits);
    l <= Math.min(MAX_TOKEN_LENGTH, points.length + maxEdits);
    l++
  )
    lengths.push(l);
  if (maxEdits > 1 || points.length < TYPO_MIN_LENGTH)
    return (await Promise.all(lengths.map((l) => dictionary.ofLength(l)))).flat();
  // p ≥ 2 (PREFIX_PARTITION_LENGTH) and s ≥ 1 for every L ≥ 4 (TYPO_MIN_LENGTH).
  const s = Math.floor((points.length - 1) / 2);
  const p = points.length - 1 - s;
  const ending = points.slice(points.length - s).join('');
  const [starting, ...ended] = await Promise.all([
    dictionary.withPrefix(points.slice(0, p).join('')),
    ...lengths.map((l) => dictionary.endingWith(l, ending)),
  ]);
  const found = new Set(ended.flat());
  for (const { term: t } of starting) if (lengths.includes([...t].length)) found.add(t);
  return found;
}

/**
 * The indexed terms within `maxEdits` of `term` (other than `term` and the terms in `exclude`): closest first, then
 * the most frequent, then in term order; at most CORRECTIONS_PER_WORD. The candidates are read from the dictionary
 * (`candidates`) and their edit distances computed here. Their dfs are read only when there are more than
 * CORRECTIONS_PER_WORD at the distance where the limit falls; otherwise every candidate is one, and a term whose
 * postings are all gone (its entry lingers: dictionary.ts) matches nothing.
 */
export async function corrections(
  dictionary: Pick<Dictionary, 'withPrefix' | 'ofLength' | 'endingWith' | 'dfOf'>,
  term: string,
  maxEdits: number,
  exclude: ReadonlySet<string> = new Set(),
): Promise<{ term: string; edits: number }[]> {
  if (maxEdits <= 0) return [];
  const near: { term: string; edits: number }[] = [];
  for (const candidate of await candidates(dictionary, term, maxEdits)) {
    if (candidate === term || exclude.has(candidate)) continue;
    const edits = editDistance(term, candidate, maxEdits);
    if (edits <= maxEdits) near.push({ term: candidate, edits });
  }
  near.sort((a, b) => a.edits - b.edits || inTermOrder(a.term, b.term));
  if (near.length <= CORRECTIONS_PER_WORD) return near;
  // The closest distances that fit whole need no df; the distance where the limit falls is ranked by df.
  const chosen: { term: string; edits: number }[] = [];
  for (let edits = 1; edits <= maxEdits && chosen.length < CORRECTIONS_PER_WORD; edits++) {
    const at = near.filter((c) => c.edits === edits);
    const room = CORRECTIONS_PER_WORD - chosen.length;
    const kept = await mostFrequent(
      at.map((c) => ({ term: c.term, dfClass: undefined })),
      room,
      dictionary.dfOf,
    );
    chosen.push(...kept.map(({ term: t }) => ({ term: t, edits })));
  }
  return chosen;
}

/**
 * The terms a query searches for (contract §8.3–8.4, §8.6). Each word as written: its stem, and where stemming cut
 * a suffix its exact form (tokenizer.ts) at weight 1 and its stem at STEM_WEIGHT, all weighted by the word's count
 * (bm25.ts); with `prefix`, the completions of its last word, each weighted by the share typed; with `typos`, for each
 * stem long enough, its corrections, weight count / (1 + edits). A term reached several ways keeps its largest
 * weight, and a query term is never replaced by a completion or a correction of another.
 */
export async function expandQuery(
  query: string,
  { prefix = false, typos = 0 }: ExpansionOptions,
  dictionary: Dictionary,
): Promise<ExpandedQuery> {
  const weights = new Map<string, number>();
  const origins = new Map<string, TermOrigin>();
  const wordOf = new Map<string, string>();
  /** Words per stem, and the stems that are a word as written (the stem of a word without an exact form). */
  const counts = new Map<string, number>();
  const written = new Set<string>();
  for (const { term, exact } of wordTerms(query)) {
    counts.set(term, (counts.get(term) ?? 0) + 1);
    weights.set(term, (weights.get(term) ?? 0) + (exact === undefined ? 1 : STEM_WEIGHT));
    wordOf.set(term, term);
    if (exact === undefined) written.add(term);
    else {
      weights.set(exact, (weights.get(exact) ?? 0) + 1);
      wordOf.set(exact, term);
      origins.set(exact, { kind: 'exact' });
    }
  }
  for (const term of counts.keys()) origins.set(term, { kind: written.has(term) ? 'exact' : 'stem' });
  const stems = new Set(counts.keys());
  const offer = (term: string, weight: number, origin: TermOrigin, word: string) => {
    if (stems.has(term) || (weights.get(term) ?? 0) >= weight) return;
    weights.set(term, weight);
    origins.set(term, origin);
    wordOf.set(term, word);
  };
  const word = prefix ? lastWord(query) : undefined;
  // The completions join the last word's own stem (when it is one: not a stopword), or a word of their own.
  const typed = word === undefined ? undefined : tokenize(word)[0];
  const typedLength = word === undefined ? 0 : [...word].length;
  const [completed, whole, corrected] = await Promise.all([
    word === undefined ? [] : completions(dictionary, word),
    mayBeWhole(typedLength, typed, dictionary),
    Promise.all(
      [...stems].map(async (term) => ({
        term,
        found: await corrections(dictionary, term, allowedEdits(term, typos), stems),
      })),
    ),
  ]);
  const prefixWord = typed !== undefined && stems.has(typed) ? typed : '\u0000prefix';
  const small = new Set<string>();
  for (const { term, dfClass: c } of completed) {
    offer(term, completionWeight(typedLength, [...term].length, whole), { kind: 'prefix' }, prefixWord);
    if (c !== undefined && dfRangeOfClass(c).max < SMALL_DF && origins.get(term)?.kind === 'prefix')
      small.add(term);
  }
  for (const { term: of, found } of corrected)
    for (const { term, edits } of found)
      offer(term, (counts.get(of) ?? 1) / (1 + edits), { kind: 'typo', of, edits }, of);
  return { weights, origins, wordOf, small };
}

/** A typed last word this long whose stem is an indexed term may be a whole word (see completionWeight). */
export const WHOLE_WORD_MIN_LENGTH = TYPO_MIN_LENGTH;
/** What a completion of a last word that may be whole weighs, times the share typed. */
export const WHOLE_WORD_COMPLETION = 0.1;

/** Whether the last word, typed `typedLength` code points long with stem `typed`, may be a whole word. */
async function mayBeWhole(typedLength: number, typed: string | undefined, dictionary: Dictionary) {
  if (typed === undefined || typedLength < WHOLE_WORD_MIN_LENGTH) return false;
  return ((await dictionary.dfOf([typed])).get(typed) ?? 0) > 0;
}

/**
 * A completion's weight (contract §8.6): the share of it that was typed, so it scores below the word written in
 * full, and the less of it typed the lower ("aer" → "aerodynam": 3/9). A last word of WHOLE_WORD_MIN_LENGTH code
 * points or more whose stem is indexed may be whole ("mode", not yet "model"): its completions weigh a tenth of
 * that, so they rank after the items that hold the word and do not displace them (a whole query with `prefix` would
 * otherwise score below the same query without it). Measured on Cranfield as typed and whole: BENCHMARKS.md, Ranking
 * with `prefix` and `typos`.
 */
export function completionWeight(typed: number, completion: number, whole = false): number {
  const share = Math.min(1, typed / Math.max(1, completion));
  return whole ? WHOLE_WORD_COMPLETION * share : share;
}

/**
 * A dictionary over terms held in memory (every term with its df), as the table's holds them (its length index from
 * LENGTH_INDEX_MIN_LENGTH code points): the exhaustive reference, and for tests.
 */
export function dictionaryInMemory(terms: ReadonlyMap<string, number>): Dictionary {
  const all = [...terms]
    .filter(([, df]) => df > 0)
    .map(([term, df]) => ({ term, df }))
    .sort((a, b) => inTermOrder(a.term, b.term));
  // The length index's terms (keys.ts `dictionaryEntry`).
  const ofLength = (length: number) =>
    length < LENGTH_INDEX_MIN_LENGTH ? [] : all.filter(({ term }) => [...term].length === length);
  return {
    withPrefix: async (word) =>
      all.filter(({ term }) => term.startsWith(word)).map(({ term, df }) => ({ term, dfClass: dfClass(df) })),
    ofLength: async (length) => ofLength(length).map(({ term }) => term),
    endingWith: async (length, ending) =>
      ofLength(length)
        .filter(({ term }) => term.endsWith(ending))
        .map(({ term }) => term),
    dfOf: async (list) => new Map(list.map((term) => [term, terms.get(term) ?? 0])),
  };
}
