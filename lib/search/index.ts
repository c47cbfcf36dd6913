// The search library's public surface: what code outside lib/search/ (the benchmark kit, tools) builds on, so that the
// rooms behind it (text, format, write, read) can change shape without their callers changing with them.
import type { Item } from '../items/schema.ts';
import { BLOCK_CAPACITY, type BlockPosting } from './format/blocks.ts';
import { docKey, homeOf, statsKey, termPk } from './format/keys.ts';
import { analyze, stored } from './write/indexer.ts';
import { appendedTerm, homeItem, postingsOf, sealedItem, type Tail } from './write/postings.ts';

// Inspecting the index's records (docs/index-format.md), for cost meters and capacity models.
export { endOfPageEntry, PAGE_PREFIX, SEALED_PREFIX, STATS_SHARDS, TAIL_SK } from './format/keys.ts';
// Querying: the retriever POST /retrieve runs, its parts, and the same ranking over documents held in memory.
export { createDictionary, type DictionaryOptions } from './read/dictionary.ts';
export { dictionaryInMemory, expandQuery } from './read/expand.ts';
export { createSearch, type SearchOptions } from './read/query.ts';
export { indexInMemory } from './read/rank.ts';
export { createRetriever, type RetrieveInput } from './read/retrieve.ts';
// Text: the tokenizer the index and the queries share.
export { createTokenizer, indexTerms, isExactForm, itemText, tokenize } from './text/tokenizer.ts';
// Indexing: the writer the stream consumer and the reindex run, and the stream handler's entry.
export { COMPACT_AT, createIndexer } from './write/indexer.ts';
export { indexChanges } from './write/stream.ts';

/**
 * The index records of `items` (ids ascending) as a writer leaves them after indexing each once, in id order: doc
 * records, term records and the counts. Loads a large collection at once (test/integration/bulk-load.test.ts pins it).
 */
export function bulkIndexRecords(
  items: Iterable<Item>,
  blockCapacity = BLOCK_CAPACITY,
): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  const terms = new Map<string, BlockPosting[]>();
  let [docs, totalLength] = [0, 0];
  for (const item of items) {
    const indexed = analyze(item);
    records.push({ ...docKey(item.id), ...stored(indexed), rev: 2 });
    for (const { term, tf, dl } of postingsOf(item.id, indexed).values())
      terms.get(term)?.push({ id: item.id, tf, dl }) ?? terms.set(term, [{ id: item.id, tf, dl }]);
    docs++;
    totalLength += indexed.dl;
  }
  records.push(...termRecords(terms, blockCapacity));
  // One commit an item, all counted in the counts' first part.
  records.push({ ...statsKey(0), docs, len: totalLength, commits: docs });
  return records;
}

/** Each term's sealed blocks and directory pages, then each home record with its stem's and its forms' tails. */
function termRecords(terms: ReadonlyMap<string, BlockPosting[]>, blockCapacity: number) {
  const records: Record<string, unknown>[] = [];
  const homes = new Map<string, Map<string, Tail>>();
  for (const [term, postings] of terms) {
    const { tail, sealed, pages } = appendedTerm(postings, blockCapacity);
    homes.set(homeOf(term), (homes.get(homeOf(term)) ?? new Map()).set(term, tail));
    records.push(...sealed.map((block) => sealedItem(term, block)));
    for (const [sk, entries] of pages) records.push({ pk: termPk(term), sk, ...entries });
  }
  for (const [home, tails] of homes)
    records.push(homeItem(home, tails, Math.max(...[...tails.values()].map((tail) => tail.v))));
  return records;
}
