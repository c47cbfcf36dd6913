import { BLOCK_CAPACITY, tailDirectoryLimit } from '../format/blocks.ts';
import { dfRangeOfClass } from '../format/keys.ts';
import { tokenize, words, wordTerms } from '../text/tokenizer.ts';
import { completions } from './completions.ts';
import { allowedEdits, corrections, TYPO_MIN_LENGTH } from './corrections.ts';
import type { ClassedTerm, Dictionary } from './dictionary.ts';

export { completions, mostFrequent, PREFIX_MIN_LENGTH, PREFIX_TERMS } from './completions.ts';
export {
  allowedEdits,
  CORRECTIONS_PER_WORD,
  corrections,
  ONE_TYPO_MAX_LENGTH,
  TYPO_MIN_LENGTH,
} from './corrections.ts';
export { dictionaryInMemory } from './dictionary-in-memory.ts';

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
  const terms = new QueryTerms(query);
  const stems = new Set(terms.counts.keys());
  const last = prefix ? typedLastWord(query) : undefined;
  const [completed, whole, corrected] = await Promise.all([
    last === undefined ? [] : completions(dictionary, last.word),
    mayBeWhole(last, dictionary),
    Promise.all(
      [...stems].map(async (term) => ({
        term,
        found: await corrections(dictionary, term, allowedEdits(term, typos), stems),
      })),
    ),
  ]);
  const small = terms.offerCompletions(completed, last, whole);
  for (const { term: of, found } of corrected) terms.offerCorrections(of, found);
  const { weights, origins, wordOf } = terms;
  return { weights, origins, wordOf, small };
}

/** The last word as typed, its stem (undefined for a stopword) and its length in code points. */
interface TypedWord {
  word: string;
  stem: string | undefined;
  length: number;
}

function typedLastWord(query: string): TypedWord | undefined {
  const word = lastWord(query);
  return word === undefined ? undefined : { word, stem: tokenize(word)[0], length: [...word].length };
}

/**
 * A query's terms as they are gathered: the words as written first, then completions and corrections offered
 * one by one, each kept only where it weighs more than what its term already has.
 */
class QueryTerms {
  readonly weights = new Map<string, number>();
  readonly origins = new Map<string, TermOrigin>();
  readonly wordOf = new Map<string, string>();
  /** Words per stem: the query's own stems, which no completion or correction displaces. */
  readonly counts = new Map<string, number>();

  /** The words as written: each stem, and beside it the exact form where stemming cut a suffix. */
  constructor(query: string) {
    /** The stems that are a word as written (the stem of a word without an exact form). */
    const written = new Set<string>();
    for (const { term, exact } of wordTerms(query)) {
      this.counts.set(term, (this.counts.get(term) ?? 0) + 1);
      this.weights.set(term, (this.weights.get(term) ?? 0) + (exact === undefined ? 1 : STEM_WEIGHT));
      this.wordOf.set(term, term);
      if (exact === undefined) written.add(term);
      else {
        this.weights.set(exact, (this.weights.get(exact) ?? 0) + 1);
        this.wordOf.set(exact, term);
        this.origins.set(exact, { kind: 'exact' });
      }
    }
    for (const term of this.counts.keys())
      this.origins.set(term, { kind: written.has(term) ? 'exact' : 'stem' });
  }

  /**
   * Offers the last word's completions, and returns those whose df class makes them small (see
   * ExpandedQuery.small).
   */
  offerCompletions(
    completed: readonly ClassedTerm[],
    last: TypedWord | undefined,
    whole: boolean,
  ): Set<string> {
    // The completions join the last word's own stem (when it is one: not a stopword), or a word of their own.
    const stem = last?.stem;
    const word = stem !== undefined && this.counts.has(stem) ? stem : '\u0000prefix';
    const typedLength = last?.length ?? 0;
    const small = new Set<string>();
    for (const { term, dfClass: c } of completed) {
      this.#offer(term, completionWeight(typedLength, [...term].length, whole), { kind: 'prefix' }, word);
      if (c !== undefined && dfRangeOfClass(c).max < SMALL_DF && this.origins.get(term)?.kind === 'prefix')
        small.add(term);
    }
    return small;
  }

  /** Offers the corrections `found` of the query's stem `of`, weighted by its count and their edits. */
  offerCorrections(of: string, found: readonly { term: string; edits: number }[]): void {
    for (const { term, edits } of found)
      this.#offer(term, (this.counts.get(of) ?? 1) / (1 + edits), { kind: 'typo', of, edits }, of);
  }

  #offer(term: string, weight: number, origin: TermOrigin, word: string): void {
    if (this.counts.has(term) || (this.weights.get(term) ?? 0) >= weight) return;
    this.weights.set(term, weight);
    this.origins.set(term, origin);
    this.wordOf.set(term, word);
  }
}

/** A typed last word this long whose stem is an indexed term may be a whole word (see completionWeight). */
export const WHOLE_WORD_MIN_LENGTH = TYPO_MIN_LENGTH;
/** What a completion of a last word that may be whole weighs, times the share typed. */
export const WHOLE_WORD_COMPLETION = 0.1;

/** Whether the last word as typed may be a whole word. */
async function mayBeWhole(last: TypedWord | undefined, dictionary: Dictionary) {
  if (last?.stem === undefined || last.length < WHOLE_WORD_MIN_LENGTH) return false;
  return ((await dictionary.dfOf([last.stem])).get(last.stem) ?? 0) > 0;
}

/**
 * A completion's weight (contract §8.6): the share of it that was typed, so it scores below the word written in
 * full, and the less of it typed the lower ("aer" → "aerodynam": 3/9). A last word of WHOLE_WORD_MIN_LENGTH code
 * points or more whose stem is indexed may be whole ("mode", not yet "model"): its completions weigh a tenth of
 * that, so they rank after the items that hold the word and do not displace them (a whole query with `prefix` would
 * otherwise score below the same query without it). Measured on Cranfield as typed and whole, with `prefix` and
 * `typos`: BENCHMARKS.md, Ranking quality.
 */
export function completionWeight(typed: number, completion: number, whole = false): number {
  const share = Math.min(1, typed / Math.max(1, completion));
  return whole ? WHOLE_WORD_COMPLETION * share : share;
}
