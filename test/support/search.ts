import type { ItemRepository } from '../../lib/items/repository.ts';
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
