import type { ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import type { ItemTerms } from '../../lib/search/read/query.ts';
import { itemTerms } from '../../lib/search/read/retrieve.ts';

/**
 * A search request's `accept` and `itemOf` as the retriever gives them (retrieve.ts): every item that exists is
 * accepted, and scored from what it holds, for tests that call the search itself.
 */
export function acceptItems(items: ItemRepository) {
  const held = new Map<number, ItemTerms>();
  return {
    accept: async (ids: number[]) => {
      for (const [id, item] of await items.getMany(ids)) held.set(id, itemTerms(item));
      return new Set(ids.filter((id) => held.has(id)));
    },
    itemOf: (id: number) => held.get(id),
  };
}

/**
 * A search request's `itemOf` from items held in memory (analysed on the first call, so an array filled later is
 * read then), as the retriever gives it: what a search given its own `accept` needs to score its answers exactly
 * wherever a posting carries less than its item's length (indexer.ts `postingTarget`).
 */
export function itemsOf(items: readonly Item[]) {
  let held: Map<number, ItemTerms> | undefined;
  return (id: number) => {
    held ??= new Map(items.map((item) => [item.id, itemTerms(item)]));
    return held.get(id);
  };
}
