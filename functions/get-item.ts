import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { etag } from '../lib/items/http.ts';
import { ItemPathSchema, ItemSchema } from '../lib/items/schema.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput, validateOutput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';

const inputs = { path: ItemPathSchema };
const { items, verifier } = getRuntime();

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('getItem', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'getItem'))
  .use(validateInput(inputs))
  .use(validateOutput(ItemSchema))
  .handler(async ({ input: { path } }) => {
    const item = await items.get(path.item_id);
    return { statusCode: 200, body: item, headers: { ETag: etag(item) } };
  });
