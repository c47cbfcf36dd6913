import { LENGTH_INDEX_MIN_LENGTH } from '../format/keys.ts';
import { editDistance } from '../text/edits.ts';
import { MAX_TOKEN_LENGTH } from '../text/tokenizer.ts';
import { mostFrequent } from './completions.ts';
import { type Dictionary, inTermOrder } from './dictionary.ts';

/** Contract §8.4. */
export const TYPO_MIN_LENGTH = 4;
/** Terms up to this many code points are allowed one edit whatever `typos` says. */
export const ONE_TYPO_MAX_LENGTH = 7;
export const CORRECTIONS_PER_WORD = 20;

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
