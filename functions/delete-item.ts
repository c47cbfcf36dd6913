import { httpRoute } from '../lib/http/route.ts';
import { ItemPathSchema } from '../lib/items/schema.ts';
import { getRuntime } from '../lib/runtime.ts';

const { items, verifier } = getRuntime();

export const handler = httpRoute('deleteItem', { verifier, inputs: { path: ItemPathSchema } }).handler(
  async ({ input: { path }, ifMatch }) => {
    await items.delete(path.item_id, { ifMatch });
    return { statusCode: 204 };
  },
);
