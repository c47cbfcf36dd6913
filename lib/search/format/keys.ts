/**
 * Index records in the items table (see lib/items/keys.ts for the items themselves), layout 2: postings in item-id
 * order, as Lucene and tantivy keep them, so a new item (ids increase) appends to the tail of each of its terms.
 *   T#<term> / K#~               the term's *tail*: its newest postings (ids above `lo`), its df (every posting of
 *                                the term), the tail's maximum impact `m`, `lo` (the last sealed block's end, 0 when
 *                                none) and the dictionary entry. Every change of the term's postings rewrites it, under
 *                                a compare-and-swap on its version, in the same write as the postings it changes.
 *   T#<term> / K#<16-digit id>   a *sealed* block: the term's postings with ids after the previous block's end, up to
 *                                and including <id>; `m` its maximum impact. Written when a tail fills, and when an
 *                                edit or a deletion changes an older item.
 *   T#<term> / X#<page>          a *directory page*: one attribute `<end in base 36>` = maximum impact for each sealed
 *                                block whose end falls in the page (PAGE_IDS ids a page), so a query knows every
 *                                block's range and maximum without reading the blocks. Changed in the same
 *                                transaction as its blocks.
 *   D#<id>   / IDX               what is indexed for item <id>: version, dl, terms {term: tf}, rev, pending (at most
 *                                one state), and the lease of the writer working on it
 *   STATS    / INDEX, INDEX#<k>  the corpus counts in STATS_SHARDS parts: docs (N) and len (sum of dl) over indexed
 *                                items and `commits`, summed by the reader; each commit of a batch adds to one part
 * The term dictionary (search as you type, typo tolerance) is two global secondary indexes over each term's tail,
 * which carries `wt` (the term), `wp` (P#<its first two code points>) and `wl` (L#<its length in code points>):
 * `terms-by-prefix` is keyed (wp, wt) and `terms-by-length` (wl, wt), both projecting df.
 *
 * Layout 1 (before issue #19: impact-ordered blocks `B#…`, `DF` records, doc records `DOC`, counts `CORPUS`) is only
 * read by the migration (`npm run reindex -- --migrate`), which removes it: its keys are under LEGACY.
 */
/**
 * The corpus counts' parts. Each commit adds its docs' counts to one part, chosen at random, in its transaction:
 * DynamoDB applies transactions on one item one at a time, so a single counts record touched by every commit would cap
 * the whole index's ingest (about 1 / (commits per item × a transaction's time): ~5,000 items/s), however many writers
 * run; parts in one partition are read together by one Query (charged by its bytes: half a read unit).
 */
export const STATS_PK = 'STATS';
export const STATS_SHARDS = 16;
const STATS_SK = 'INDEX';
/** Part 0 is the counts record of tables written before the parts (`STATS` / `INDEX`). */
export const statsKey = (part: number) => ({
  pk: STATS_PK,
  sk: part === 0 ? STATS_SK : `${STATS_SK}#${part}`,
});
/** Every part of the counts, in one Query (`consistent` for the operations that repair them). */
export const countsQuery = (tableName: string, consistent = false) => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
  ExpressionAttributeValues: { ':pk': STATS_PK, ':sk': STATS_SK },
  ConsistentRead: consistent,
});
export interface Counts {
  docs: number;
  len: number;
  commits: number;
}
/** The counts, summed over the parts read. */
export const sumCounts = (parts: readonly Record<string, unknown>[]): Counts => {
  const sum = (name: string) =>
    parts.reduce((total, part) => total + (typeof part[name] === 'number' ? (part[name] as number) : 0), 0);
  return { docs: sum('docs'), len: sum('len'), commits: sum('commits') };
};

/** The fixed document length impacts are computed at, so a block's maximum never depends on corpus state. */
export const REFERENCE_LENGTH = 64;

/** One codec for every index record's key: nothing outside this file spells a prefix or parses a key. */
const TERM_PREFIX = 'T#';
const DOC_PREFIX = 'D#';
const DOC_SK = 'IDX';
export const SEALED_PREFIX = 'K#';
/** The sort key of a term's tail: `~` sorts after every digit, so the tail comes after every sealed block. */
export const TAIL_SK = 'K#~';
export const PAGE_PREFIX = 'X#';
/** Item ids a directory page covers: a page holds the blocks of a range of ids, so it stays small (≈ 1 KB). */
export const PAGE_IDS = 16_384;

const pad = (id: number): string => String(id).padStart(16, '0');

export const termPk = (term: string): string => `${TERM_PREFIX}${term}`;
/** The term a record belongs to (its pk is T#<term>), or undefined for a record of another kind. */
export const termOfPk = (pk: unknown): string | undefined =>
  typeof pk === 'string' && pk.startsWith(TERM_PREFIX) ? pk.slice(TERM_PREFIX.length) : undefined;
/** The item id of a doc record (D#<id> / IDX), or undefined for a record of another kind. */
export const idOfDocKey = (pk: unknown, sk: unknown): number | undefined =>
  typeof pk === 'string' && pk.startsWith(DOC_PREFIX) && sk === DOC_SK
    ? Number(pk.slice(DOC_PREFIX.length))
    : undefined;
/** The condition value that matches every term record's pk (`begins_with(pk, :prefix)`), and every doc record's. */
export const TERM_PK_PREFIX = TERM_PREFIX;
export const DOC_PK_PREFIX = DOC_PREFIX;

export const tailKey = (term: string) => ({ pk: termPk(term), sk: TAIL_SK });
export const sealedSk = (end: number): string => `${SEALED_PREFIX}${pad(end)}`;
/** The end id of a sealed block's sort key (K#<id>); undefined for the tail or a record of another kind. */
export const endOfSealedSk = (sk: unknown): number | undefined =>
  typeof sk === 'string' && sk.startsWith(SEALED_PREFIX) && sk !== TAIL_SK
    ? Number(sk.slice(SEALED_PREFIX.length))
    : undefined;
export const pageSk = (end: number): string =>
  `${PAGE_PREFIX}${String(Math.floor(end / PAGE_IDS)).padStart(8, '0')}`;
/** A directory page's attribute name for a block ending at `end` (base 36: short, and never a key attribute). */
export const pageEntry = (end: number): string => `e${end.toString(36)}`;
/** The block end of a directory page's attribute name, or undefined for any other attribute. */
export const endOfPageEntry = (name: string): number | undefined =>
  /^e[0-9a-z]+$/.test(name) ? Number.parseInt(name.slice(1), 36) : undefined;
export const docKey = (id: number) => ({ pk: `${DOC_PREFIX}${id}`, sk: DOC_SK });

/** The dictionary's two indexes (see above). */
export const PREFIX_INDEX = 'terms-by-prefix';
export const LENGTH_INDEX = 'terms-by-length';
/** Code points a prefix partition is named by: a prefix query needs at least this many. */
export const PREFIX_PARTITION_LENGTH = 2;
export const prefixPartition = (word: string): string =>
  `P#${[...word].slice(0, PREFIX_PARTITION_LENGTH).join('')}`;
export const lengthPartition = (length: number): string => `L#${length}`;
/** The attributes that put a term's tail in the dictionary. */
export const dictionaryEntry = (term: string) => ({
  wt: term,
  wp: prefixPartition(term),
  wl: lengthPartition([...term].length),
});
/** Whether a dictionary index row is a term's entry in this layout (layout 1's head records may linger). */
export const isDictionaryEntry = (row: { sk?: unknown }): boolean => row.sk === TAIL_SK;

/** 0..999999, larger = stronger: the BM25 saturation at the reference length, quantized (rounded up). */
export const impactOf = (saturationAtReference: number): number =>
  Math.min(999_999, Math.ceil(saturationAtReference * 1_000_000));

/** Layout 1's keys, for the migration that removes them (see above). */
export const LEGACY = {
  blockPrefix: 'B#',
  dfSk: 'DF',
  docSk: 'DOC',
  statsKey: { pk: 'STATS', sk: 'CORPUS' },
} as const;
