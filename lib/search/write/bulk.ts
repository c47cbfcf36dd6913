// Index records built in memory for a collection loaded at once (benchmarks' large collections, the bulk-load test).
import type { Item } from '../../items/schema.ts';
import { BLOCK_CAPACITY, type BlockPosting } from '../format/blocks.ts';
import { docKey, homeOf, statsKey, termPk } from '../format/keys.ts';
import { analyze, stored } from './indexer.ts';
import { appendedTerm, homeItem, postingsOf, sealedItem, type Tail } from './postings.ts';

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
