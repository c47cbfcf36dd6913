import { type BlockPosting, type DirectoryEntry, encodeBlock, encodeDirectory } from '../format/blocks.ts';
import { dictionaryEntry, FORMS_ATTRIBUTE, isDictionaryTerm, sealedKey, tailKey } from '../format/keys.ts';

/** A term's tail, as docs/index-format.md defines its record. */
export interface Tail {
  postings: BlockPosting[];
  /** Every posting of the term, sealed or not. */
  df: number;
  /** The last sealed block's end (0: none); the tail holds the ids above it. */
  lo: number;
  /** An upper bound of the tail's impacts. */
  m: number;
  /** Incremented by every write of the tail: each rewrite is a compare-and-swap on it. */
  v: number;
  /**
   * The term's directory while it has at most `tailDirectoryLimit` sealed blocks ([] when none); undefined once it
   * had more: the directory pages alone then. Always exactly what the pages hold when defined.
   */
  directory: DirectoryEntry[] | undefined;
}

/**
 * A sealed block: every posting of its term with an id in (after, end]. Its `after` is the previous block's end (0 for
 * the first), stored with it so that a writer can tell from the block alone that it covers an id (home-read.ts
 * `covering`): its blocks are read under several keys, at different moments.
 */
export interface Sealed {
  after: number;
  end: number;
  postings: BlockPosting[];
  /** An upper bound of its impacts, as its directory entry holds it. */
  m: number;
  v: number;
}

/** The stored form of a stem's tail; a stem with postings carries its dictionary entry, an exact form never. */
export const tailItem = (term: string, tail: Tail) => ({
  ...tailKey(term),
  p: encodeBlock(tail.postings),
  df: tail.df,
  lo: tail.lo,
  m: tail.m,
  v: tail.v,
  ...(tail.directory?.length ? { d: encodeDirectory(tail.directory) } : {}),
  ...(tail.df > 0 && isDictionaryTerm(term) ? dictionaryEntry(term, tail.df) : {}),
});
/** The stored form of an exact form's tail in its home record (keys.ts `homeOf`): its tail's fields, but its key. */
export const formEntry = (tail: Tail) => ({
  p: encodeBlock(tail.postings),
  df: tail.df,
  lo: tail.lo,
  m: tail.m,
  ...(tail.directory?.length ? { d: encodeDirectory(tail.directory) } : {}),
});
/** A stem's own attributes in its home record: its tail's item but for the key and the home's version. */
export const ownFields = ({ pk: _pk, sk: _sk, v: _v, ...own }: Record<string, unknown>) => own;
/**
 * A home record (keys.ts `homeOf`) holding the tails `tails` (its stem's, under its own name, and its forms'), at
 * version `v`: what the writer puts, computed at once (write/bulk.ts builds it).
 */
export function homeItem(home: string, tails: ReadonlyMap<string, Tail>, v: number) {
  const forms = Object.fromEntries(
    [...tails].filter(([term]) => term !== home).map(([term, tail]) => [term, formEntry(tail)]),
  );
  const stem = tails.get(home);
  return homeRecord(home, stem && ownFields(tailItem(home, stem)), forms, v);
}
/** A home record from its stem's own attributes (none while the stem has no tail) and its forms' stored entries. */
export const homeRecord = (
  home: string,
  own: Record<string, unknown> | undefined,
  forms: Record<string, unknown>,
  v: number,
) => ({
  ...tailKey(home),
  ...own,
  v,
  ...(Object.keys(forms).length > 0 ? { [FORMS_ATTRIBUTE]: forms } : {}),
});
/** The stored form of a sealed block. */
export const sealedItem = (term: string, block: Sealed) => ({
  ...sealedKey(term, block.end),
  a: block.after,
  p: encodeBlock(block.postings),
  m: block.m,
  v: block.v,
});
