import { httpRoute } from '../lib/http/route.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { ItemPathSchema } from '../lib/items/schema.ts';
import { getRuntime } from '../lib/runtime.ts';

const { table, verifier } = getRuntime();
const items = createItemRepository(table);

export const handler = httpRoute('deleteItem', { verifier, inputs: { path: ItemPathSchema } }).handler(
  async ({ input: { path }, ifMatch }) => {
    await items.delete(path.item_id, { ifMatch });
    return { statusCode: 204 };
  },
);
