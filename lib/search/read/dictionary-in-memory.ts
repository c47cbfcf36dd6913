import { dfClass, LENGTH_INDEX_MIN_LENGTH } from '../format/keys.ts';
import { type Dictionary, inTermOrder } from './dictionary.ts';

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
