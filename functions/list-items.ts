import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { nextLink } from '../lib/items/http.ts';
import { ItemListSchema, ListQuerySchema } from '../lib/items/schema.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput, validateOutput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';

const inputs = { query: ListQuerySchema };
const { items, verifier, cursors } = getRuntime();

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('listItems', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'listItems'))
  .use(validateInput(inputs))
  .use(validateOutput(ItemListSchema))
  .handler(async ({ input: { query }, rawPath }) => {
    const afterId = query.cursor === undefined ? undefined : cursors.decode(query.cursor);
    const page = await items.list({ limit: query.limit, afterId });
    const last = page.items.at(-1);
    const headers: Record<string, string> =
      page.hasMore && last ? { Link: nextLink(rawPath, query.limit, cursors.encode(last.id)) } : {};
    return { statusCode: 200, body: page.items, headers };
  });
