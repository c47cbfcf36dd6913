import type { BlockPosting } from '../format/blocks.ts';

/** One posting: `term` occurs `tf` times in item `id`, of length `dl`. */
export interface Posting extends BlockPosting {
  term: string;
}

/**
 * How much shorter than its item the length a posting carries (its item's *norm*) is made when an edit rewrites the
 * item's postings: an eighth (docs/index-format.md, "norm"). A new item's postings carry its length. Postings err one
 * way only: every posting carries at most its item's norm and the norm is at most its length, or the item is in the
 * shrunk set, so every score and bound computed from a posting is an upper bound of what the item scores. Not for
 * new items: at 100,000 items, postings an eighth short on every item cost a query 1.4 × the read units.
 */
export const LENGTH_SLACK = 1 / 8;

/**
 * The norm an edit that rewrites an item of length `dl` gives its postings: `dl` less its slack, rounded down, and
 * at least 1 (a block's lengths are positive: blocks.ts).
 */
export const normOf = (dl: number, slack = LENGTH_SLACK): number =>
  Math.min(dl, Math.max(1, dl - Math.ceil(dl * slack)));

/** The postings of an indexed state, by term: each carries the state's norm as its length. */
export function postingsOf(
  id: number,
  indexed: { norm: number; terms: Record<string, number> },
): Map<string, Posting> {
  return new Map(
    Object.entries(indexed.terms).map(([term, tf]) => [term, { term, id, tf, dl: indexed.norm }]),
  );
}
