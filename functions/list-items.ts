import { nextLink } from '../lib/http/items.ts';
import { httpRoute } from '../lib/http/route.ts';
import { createCursorCodec } from '../lib/items/cursor.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { ItemListSchema, ListQuerySchema } from '../lib/items/schema.ts';
import { getRuntime } from '../lib/runtime.ts';

const { table, verifier, config } = getRuntime();
const items = createItemRepository(table);
const cursors = createCursorCodec(config.cursorKey);

export const handler = httpRoute('listItems', {
  verifier,
  inputs: { query: ListQuerySchema },
  output: ItemListSchema,
  cache: { maxAge: config.cacheMaxAge, validators: true },
}).handler(async ({ input: { query }, event: { rawPath } }) => {
  const afterId = query.cursor === undefined ? undefined : cursors.decode(query.cursor);
  const page = await items.list({ limit: query.limit, afterId });
  const last = page.items.at(-1);
  const headers: Record<string, string> =
    page.hasMore && last ? { Link: nextLink(rawPath, query.limit, cursors.encode(last.id)) } : {};
  return { statusCode: 200, body: page.items, headers };
});
