import type { Item } from '../../items/schema.ts';
import { termFrequencies } from '../format/bm25.ts';
import { termsChange, withChange } from '../format/terms.ts';
import { indexTerms, itemText } from '../text/tokenizer.ts';
import type { Indexed } from './doc-record.ts';
import { normOf } from './norms.ts';

/**
 * What an item contributes to the index: its version, length (its words) and term frequencies, its words' exact
 * forms beside their stems (tokenizer.ts, step 7); its norm is its length, as a new item's postings carry it.
 */
export function analyze(item: Item): Indexed {
  const { tokens, dl } = indexTerms(itemText(item));
  return { version: item.version, dl, norm: dl, terms: Object.fromEntries(termFrequencies(tokens)), cut: {} };
}

/**
 * The state a rebuild from `committed` writes for `target` (what `analyze` gives now): its postings' norm
 * (norms.ts `LENGTH_SLACK`) and tfs, and its cut (docs/index-format.md, "norm" and "the shrunk set"). A new item's
 * postings carry its length and tfs, so they score exactly. An edit keeps the committed norm while the item's new
 * length is at most twice it, and keeps every posting it would lower: a term whose tf rose (or that is new) is
 * written with its tf, and one whose tf fell (or that the item no longer holds) keeps its posting, the item's tf in
 * the cut. A compaction (`renorm`), an edit past twice the norm, and one whose cut would hold more than twice the
 * terms the item holds (its ghosts outgrowing it) rewrite the postings as they are now, the first two with the
 * length less the slack, so that it can shrink again by up to an eighth and keep them.
 */
export const postingTarget = (committed: Indexed, target: Indexed, renorm: boolean): Indexed => {
  if (Object.keys(committed.terms).length === 0 || Object.keys(target.terms).length === 0) return target;
  const kept = !renorm && committed.norm * 2 >= target.dl;
  if (!kept) return { ...target, norm: normOf(target.dl) };
  const terms = { ...target.terms };
  for (const [term, tf] of Object.entries(committed.terms))
    if (!Object.hasOwn(terms, term) || (terms[term] ?? 0) < tf) terms[term] = tf;
  const cut = termsChange(terms, target.terms);
  const outgrown = Object.keys(cut).length > 2 * Object.keys(target.terms).length;
  return outgrown ? { ...target, norm: committed.norm } : { ...target, norm: committed.norm, terms, cut };
};
/**
 * Whether a state's postings carry more than the item: a length above its own, or a cut. Its item is in the shrunk
 * set once it is committed.
 */
export const isShrunk = (state: Indexed): boolean =>
  state.norm > state.dl || Object.keys(state.cut).length > 0;

/**
 * Whether a committed state is what `analyze` gives now: not after the analysis changed, so that `npm run reindex`
 * rewrites every item (how an index moves to a new format: docs/index-format.md).
 */
export const sameAnalysis = (committed: Indexed, target: Indexed): boolean => {
  const terms = Object.entries(target.terms);
  const held = withChange(committed.terms, committed.cut);
  return (
    committed.dl === target.dl &&
    terms.length === Object.keys(held).length &&
    terms.every(([term, tf]) => held[term] === tf)
  );
};
