import type { ItemRepository } from '../items/repository.ts';
import type { Item } from '../items/schema.ts';
import { queryWeights } from './bm25.ts';
import type { createSearch } from './query.ts';
import type { Filter, RetrieveRequest, RetrieveResponse } from './schema.ts';
import { tokenize } from './tokenizer.ts';

/** True when the item carries every filter tag and has every filter attribute with exactly that value. */
export function matchesFilter(item: Item, filter: Filter | undefined): boolean {
  if (!filter) return true;
  if (filter.tags && !filter.tags.every((tag) => item.tags.includes(tag))) return false;
  if (filter.attributes) {
    for (const [key, value] of Object.entries(filter.attributes)) {
      if (!Object.hasOwn(item.attributes, key) || item.attributes[key] !== value) return false;
    }
  }
  return true;
}

export type Retriever = (request: RetrieveRequest) => Promise<RetrieveResponse>;

/** Retrieval: tokenize the query, take the BM25 top k that pass the filter, and return them with their items. */
export function createRetriever({
  search,
  items,
}: {
  search: ReturnType<typeof createSearch>;
  items: ItemRepository;
}): Retriever {
  return async ({ query, topK, filter, minScore }) => {
    const terms = queryWeights(tokenize(query));
    if (terms.size === 0) return { query, results: [] };
    const fetched = new Map<number, Item>();
    const accept = async (ids: number[]) => {
      const missing = ids.filter((id) => !fetched.has(id));
      for (const [id, item] of await items.getMany(missing)) fetched.set(id, item);
      // Items missing here were deleted after they were indexed: they never appear.
      return new Set(
        ids.filter((id) => {
          const item = fetched.get(id);
          return item !== undefined && matchesFilter(item, filter);
        }),
      );
    };
    const hits = await search({ terms, topK, minScore, accept });
    const results = hits.flatMap((hit) => {
      const item = fetched.get(hit.id);
      return item ? [{ score: hit.score, item, matchedTerms: hit.matchedTerms }] : [];
    });
    return { query, results: results.map((result, index) => ({ rank: index + 1, ...result })) };
  };
}
