import { itemSk } from '../../items/keys.ts';

/**
 * Index records in the items table (see lib/items/keys.ts for the items themselves):
 *   T#<term> / B#<end key>       a block of the term's postings (see blocks.ts): every posting key after the
 *                                previous block's end, up to and including <end key>; the last block is B#~
 *   T#<term> / DF                the term's document frequency (= its number of postings), once the term has had
 *                                more than one block; a term without it has one block, whose count is its df
 *   D#<id>   / DOC               what is indexed for item <id>: version, dl, terms {term: tf}, rev, pending (at
 *                                most one state), and the lease of the writer working on it
 *   STATS    / CORPUS            docs (N) and len (sum of dl) over indexed items, changed once per commit of a batch
 * The term dictionary (search as you type, typo tolerance) is two global secondary indexes over each term's *head*
 * record, the one that holds its df: the DF record when the term has one, else its only block (B#~, which then
 * carries `df` too). A head record carries `wt` (the term), `wp` (P#<its first two code points>) and `wl`
 * (L#<its length in code points>); `terms-by-prefix` is keyed (wp, wt) and `terms-by-length` (wl, wt), both
 * projecting df. So the dictionary changes in the same writes as the postings, at no extra request.
 * A posting key is `<999999 - impact, 6 digits>#<16-digit id>`: ascending key order is descending impact, so a
 * query reads the strongest postings of a term first, many to a DynamoDB item.
 */
export const STATS_KEY = { pk: 'STATS', sk: 'CORPUS' } as const;
export const BLOCK_PREFIX = 'B#';
/** The sort key of a term's last block: `~` sorts after every digit, so it covers every key past the others. */
export const LAST_BLOCK_SK = 'B#~';

/** The fixed document length impacts are computed at, so a posting's key never depends on corpus state. */
export const REFERENCE_LENGTH = 64;

/** One codec for every index record's key: nothing outside this file spells a prefix or parses a key. */
const TERM_PREFIX = 'T#';
const DOC_PREFIX = 'D#';
/** The sort key of a term's DF record. */
export const DF_SK = 'DF';

export const termPk = (term: string): string => `${TERM_PREFIX}${term}`;
/** The term a record belongs to (its pk is T#<term>), or undefined for a record of another kind. */
export const termOfPk = (pk: unknown): string | undefined =>
  typeof pk === 'string' && pk.startsWith(TERM_PREFIX) ? pk.slice(TERM_PREFIX.length) : undefined;
/** The item id of a doc record's pk (D#<id>), or undefined for a record of another kind. */
export const idOfDocPk = (pk: unknown): number | undefined =>
  typeof pk === 'string' && pk.startsWith(DOC_PREFIX) ? Number(pk.slice(DOC_PREFIX.length)) : undefined;
/** The condition value that matches every term record's pk (`begins_with(pk, :prefix)`), and every doc record's. */
export const TERM_PK_PREFIX = TERM_PREFIX;
export const DOC_PK_PREFIX = DOC_PREFIX;

/** The dictionary's two indexes (see above). */
export const PREFIX_INDEX = 'terms-by-prefix';
export const LENGTH_INDEX = 'terms-by-length';
/** Code points a prefix partition is named by: a prefix query needs at least this many. */
export const PREFIX_PARTITION_LENGTH = 2;
export const prefixPartition = (word: string): string =>
  `P#${[...word].slice(0, PREFIX_PARTITION_LENGTH).join('')}`;
export const lengthPartition = (length: number): string => `L#${length}`;
/** The attributes that put a term's head record in the dictionary. */
export const dictionaryEntry = (term: string) => ({
  wt: term,
  wp: prefixPartition(term),
  wl: lengthPartition([...term].length),
});
export const dfKey = (term: string) => ({ pk: termPk(term), sk: DF_SK });
export const docKey = (id: number) => ({ pk: `${DOC_PREFIX}${id}`, sk: 'DOC' });
export const blockSk = (endKey: string): string => `${BLOCK_PREFIX}${endKey}`;

/** 0..999999, larger = stronger: the BM25 saturation at the reference length, quantized (rounded up). */
export const impactOf = (saturationAtReference: number): number =>
  Math.min(999_999, Math.ceil(saturationAtReference * 1_000_000));

/** Posting key: inverted impact first (ascending key = descending impact), then the item id. */
export const postingKey = (impact: number, id: number): string =>
  `${String(999_999 - impact).padStart(6, '0')}#${itemSk(id)}`;

/** The impact encoded in a posting key. */
export const impactOfKey = (key: string): number => 999_999 - Number(key.slice(0, 6));

/** The item id encoded in a posting key. */
export const idOfKey = (key: string): number => Number(key.slice(7));
