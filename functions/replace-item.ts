import { itemResponse } from '../lib/http/items.ts';
import { httpRoute } from '../lib/http/route.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { ItemPathSchema, ItemSchema, ItemWriteSchema } from '../lib/items/schema.ts';
import { getRuntime } from '../lib/runtime.ts';

const { table, verifier } = getRuntime();
const items = createItemRepository(table);

export const handler = httpRoute('replaceItem', {
  verifier,
  inputs: { path: ItemPathSchema, body: ItemWriteSchema },
  output: ItemSchema,
}).handler(async ({ input: { path, body }, ifMatch }) => {
  const item = await items.update(path.item_id, () => body, { ifMatch });
  return itemResponse(item);
});
