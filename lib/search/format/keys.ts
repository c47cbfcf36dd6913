/**
 * One codec for every index record's key and attribute names: nothing outside this file spells a prefix or parses a
 * key. The records, their attributes and invariants: docs/index-format.md (the items themselves: lib/items/keys.ts).
 * Postings are kept in item-id order, as Lucene and tantivy keep them, so a new item (ids increase) appends to the
 * tail of each of its terms.
 */
import { isExactForm, stemOfExactForm } from '../text/tokenizer.ts';
import { padId } from './counts.ts';

export {
  type Counts,
  countParts,
  countsQuery,
  ghostCounts,
  isShrunkPk,
  SEALED,
  SHRUNK_ENTRIES,
  SHRUNK_PARTITIONS,
  type Shrunk,
  type ShrunkSet,
  STATS_PK,
  STATS_SHARDS,
  shrunkBytes,
  shrunkEntry,
  shrunkKey,
  shrunkOf,
  shrunkQueries,
  shrunkReader,
  statsKey,
  sumCounts,
} from './counts.ts';

/** The fixed document length impacts are computed at, so a block's maximum never depends on corpus state. */
export const REFERENCE_LENGTH = 64;

const TERM_PREFIX = 'T#';
const DOC_PREFIX = 'D#';
const DOC_SK = 'IDX';
export const SEALED_PREFIX = 'K#';
/** The sort key of a term's tail: `~` sorts after every digit, so the tail comes after every sealed block. */
export const TAIL_SK = 'K#~';
export const PAGE_PREFIX = 'X#';
/** Item ids a directory page covers: a page holds the blocks of a range of ids, so it stays small (≈ 1 KB). */
export const PAGE_IDS = 16_384;

/** The partition key of a term's records: `T#<term>`. */
export const termPk = (term: string): string => `${TERM_PREFIX}${term}`;
/** The term a record belongs to (its pk is T#<term>, or T#<term>#<page> for a sealed block), or undefined. */
export function termOfPk(pk: unknown): string | undefined {
  if (typeof pk !== 'string' || !pk.startsWith(TERM_PREFIX)) return undefined;
  const rest = pk.slice(TERM_PREFIX.length);
  const page = rest.indexOf('#');
  return page < 0 ? rest : rest.slice(0, page);
}
/** The directory page of the ids a block ending at `end` ends in. */
export const pageOf = (end: number): number => Math.floor(end / PAGE_IDS);
/**
 * The partition key of a term's sealed blocks that end in one directory page: `T#<term>#<page>` (a term has no `#`:
 * tokenizer.ts), so a term's blocks spread over one key per PAGE_IDS ids.
 */
export const sealedPk = (term: string, end: number): string => sealedPagePk(term, pageOf(end));
/** The partition key of a term's sealed blocks that end in directory page `page`. */
export const sealedPagePk = (term: string, page: number): string => `${termPk(term)}#${page}`;
/** The key of a term's sealed block ending at `end`. */
export const sealedKey = (term: string, end: number) => ({ pk: sealedPk(term, end), sk: sealedSk(end) });
/** The item id of a doc record (D#<id> / IDX), or undefined for a record of another kind. */
export const idOfDocKey = (pk: unknown, sk: unknown): number | undefined =>
  typeof pk === 'string' && pk.startsWith(DOC_PREFIX) && sk === DOC_SK
    ? Number(pk.slice(DOC_PREFIX.length))
    : undefined;
/** The condition value that matches every term record's pk (`begins_with(pk, :prefix)`), and every doc record's. */
export const TERM_PK_PREFIX = TERM_PREFIX;
export const DOC_PK_PREFIX = DOC_PREFIX;

/**
 * The record that holds a term's tail: a stem's own (`T#<stem> / K#~`), and for an exact form its *home*, the tail
 * record of the stem of its text (tokenizer.ts `stemOfExactForm`), in the map attribute FORMS_ATTRIBUTE under the
 * form's term, so that a batch writes a stem and the forms that come with it in one record. Sealed blocks and
 * directory pages stay under each term's own key.
 */
export const homeOf = (term: string): string => (isExactForm(term) ? stemOfExactForm(term) : term);
export const FORMS_ATTRIBUTE = 'f';
/** The tail key under a term's own pk (an exact form's tail is not there but in its home: homeOf). */
export const tailKey = (term: string) => ({ pk: termPk(term), sk: TAIL_SK });
/** The key of the record that holds a term's tail. */
export const homeKey = (term: string) => tailKey(homeOf(term));
/** The tail fields of an exact form in its home record `row`, with the home's version; undefined when not there. */
export function formInHome(
  row: Record<string, unknown> | undefined,
  form: string,
): Record<string, unknown> | undefined {
  const forms = row?.[FORMS_ATTRIBUTE];
  const entry = forms && typeof forms === 'object' ? (forms as Record<string, unknown>)[form] : undefined;
  return entry && typeof entry === 'object'
    ? { ...(entry as Record<string, unknown>), ...tailKey(form), v: row?.v }
    : undefined;
}
/**
 * A record of the index as one row a term: a home record gives its stem's tail (when it has one: `df`) and each of its
 * forms' tails as a row of its own (`formInHome`); any other record is itself.
 */
export function termRows(row: Record<string, unknown>): Record<string, unknown>[] {
  const forms = row[FORMS_ATTRIBUTE];
  if (row.sk !== TAIL_SK || !forms || typeof forms !== 'object') return [row];
  const { [FORMS_ATTRIBUTE]: _, ...own } = row;
  return [
    ...(own.df === undefined ? [] : [own]),
    ...Object.keys(forms).flatMap((form): Record<string, unknown>[] => {
      const tail = formInHome(row, form);
      return tail ? [tail] : [];
    }),
  ];
}
/** The sort key of a sealed block ending at `end`: `K#<16-digit id>`. */
export const sealedSk = (end: number): string => `${SEALED_PREFIX}${padId(end)}`;
/** The end id of a sealed block's sort key (K#<id>); undefined for the tail or a record of another kind. */
export const endOfSealedSk = (sk: unknown): number | undefined =>
  typeof sk === 'string' && sk.startsWith(SEALED_PREFIX) && sk !== TAIL_SK
    ? Number(sk.slice(SEALED_PREFIX.length))
    : undefined;
/** The sort key of the directory page that lists a block ending at `end`: `X#<8-digit page>`. */
export const pageSk = (end: number): string => `${PAGE_PREFIX}${String(pageOf(end)).padStart(8, '0')}`;
/** A directory page's attribute name for a block ending at `end` (base 36: short, and never a key attribute). */
export const pageEntry = (end: number): string => `e${end.toString(36)}`;
/** The block end of a directory page's attribute name, or undefined for any other attribute. */
export const endOfPageEntry = (name: string): number | undefined =>
  /^e[0-9a-z]+$/.test(name) ? Number.parseInt(name.slice(1), 36) : undefined;
/** Every directory page of the term whose records have partition key `pk`, in one Query. */
export const directoryQuery = (tableName: string, pk: unknown, consistent = false) => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :x)',
  ExpressionAttributeValues: { ':pk': pk, ':x': PAGE_PREFIX },
  ConsistentRead: consistent,
});
/** The entries of a term's directory pages (each block's end and bound), in id order; other records are skipped. */
export function directoryEntries(pages: readonly Record<string, unknown>[]): [end: number, max: number][] {
  const entries: [number, number][] = [];
  for (const page of pages)
    for (const [name, max] of Object.entries(page)) {
      const end = endOfPageEntry(name);
      if (end !== undefined && typeof max === 'number') entries.push([end, max]);
    }
  return entries.sort((a, b) => a[0] - b[0]);
}
/** The key of an item's doc record: `D#<id> / IDX`. */
export const docKey = (id: number) => ({ pk: `${DOC_PREFIX}${id}`, sk: DOC_SK });

const LEASE_PREFIX = 'LEASE#';
/** The key of a renewed lease's record: `LEASE#<owner> / L`. */
export const leaseKey = (owner: string) => ({ pk: `${LEASE_PREFIX}${owner}`, sk: 'L' });
/** The owner a lease record's partition key names. */
export const ownerOfLeaseKey = (pk: unknown): string | undefined =>
  typeof pk === 'string' && pk.startsWith(LEASE_PREFIX) ? pk.slice(LEASE_PREFIX.length) : undefined;

/**
 * The term dictionary's two global secondary indexes over each term's tail. The prefix index projects a term's df
 * class, not its df, so it is written when a term enters or leaves it or its class changes, not at every df change
 * (AWS writes a global secondary index only when an item enters or leaves it or a key or projected attribute changes).
 */
export const PREFIX_INDEX = 'terms-by-prefix-v2';
/** Keyed (wl, wr), so that the terms of a length that end in given letters are one range. */
export const LENGTH_INDEX = 'terms-by-length-v2';
/** Code points a prefix partition is named by: a prefix query needs at least this many. */
export const PREFIX_PARTITION_LENGTH = 2;
/** A term's partition in the prefix index: `P#` and its first PREFIX_PARTITION_LENGTH code points. */
export const prefixPartition = (word: string): string =>
  `P#${[...word].slice(0, PREFIX_PARTITION_LENGTH).join('')}`;
/** A length's partition in the length index: `L#<code points>`. */
export const lengthPartition = (length: number): string => `L#${length}`;
/**
 * The fewest code points a term of the length index has: 3. Only typo tolerance reads that index (read/expand.ts),
 * and a correction (contract §8.4) of a word of at least TYPO_MIN_LENGTH (4) code points by the edits it is allowed
 * (one up to 7 code points, two from 8) is at least 3 long. So a shorter term is left out, as a term of one code
 * point is left out of the prefix index, which no prefix of PREFIX_PARTITION_LENGTH reaches: of Cranfield's 4,813
 * stems, 240 and 35, each an index write saved at its birth.
 */
export const LENGTH_INDEX_MIN_LENGTH = 3;
/** A term's code points in reverse order: `terms-by-length-v2`'s sort key, so a suffix is a `begins_with`. */
export const reversed = (term: string): string => [...term].reverse().join('');
/**
 * A df's class in the prefix index: ⌊log₂ df⌋ (1 → 0, 2–3 → 1, 4–7 → 2, …), so a term's entry is rewritten about
 * log₂ df times over its life, not df times. Every df of a higher class is larger than every df of a lower one: a
 * reader ranks terms by class and needs exact dfs only within the class where its limit falls.
 */
export const dfClass = (df: number): number => Math.floor(Math.log2(Math.max(1, df)));
/** The df range of a class: [2^c, 2^(c+1)). */
export const dfRangeOfClass = (c: number): { min: number; max: number } => ({
  min: 2 ** c,
  max: 2 ** (c + 1) - 1,
});
/** The attribute that holds a tail's df class. A write that changes df without knowing it removes it (postings.ts). */
export const DF_CLASS_ATTRIBUTE = 'wf';
/** Whether a term belongs in the dictionary: every stem does, an exact form (`=…`, tokenizer.ts) does not. */
export const isDictionaryTerm = (term: string): boolean => !isExactForm(term);
/**
 * The attributes that put a term's tail in the dictionary, for a df above 0: in the prefix index from
 * PREFIX_PARTITION_LENGTH code points, in the length index from LENGTH_INDEX_MIN_LENGTH (a sparse index leaves out
 * an item without its key attributes).
 */
export const dictionaryEntry = (term: string, df: number) => {
  const length = [...term].length;
  return {
    wt: term,
    ...(length >= LENGTH_INDEX_MIN_LENGTH ? { wr: reversed(term), wl: lengthPartition(length) } : {}),
    ...(length >= PREFIX_PARTITION_LENGTH ? { wp: prefixPartition(term) } : {}),
    [DF_CLASS_ATTRIBUTE]: dfClass(df),
  };
};
/** 0..999999, larger = stronger: the BM25 saturation at the reference length, quantized (rounded up). */
export const impactOf = (saturationAtReference: number): number =>
  Math.min(999_999, Math.ceil(saturationAtReference * 1_000_000));
