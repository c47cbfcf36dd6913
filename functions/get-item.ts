import { itemResponse } from '../lib/http/items.ts';
import { httpRoute } from '../lib/http/route.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { ItemPathSchema, ItemSchema } from '../lib/items/schema.ts';
import { getRuntime } from '../lib/runtime.ts';

const { table, verifier, config } = getRuntime();
const items = createItemRepository(table);

export const handler = httpRoute('getItem', {
  verifier,
  inputs: { path: ItemPathSchema },
  output: ItemSchema,
  cache: { maxAge: config.cacheMaxAge, validators: true },
}).handler(async ({ input: { path } }) => {
  const item = await items.get(path.item_id);
  return itemResponse(item);
});
