import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { etag } from '../lib/items/http.ts';
import { ItemPathSchema, ItemSchema, ItemWriteSchema } from '../lib/items/schema.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { jsonBody } from '../lib/middleware/json-body.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput, validateOutput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';

const inputs = { path: ItemPathSchema, body: ItemWriteSchema };
const { items, verifier } = getRuntime();

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('replaceItem', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'replaceItem'))
  .use(jsonBody())
  .use(validateInput(inputs))
  .use(validateOutput(ItemSchema))
  .handler(async ({ input: { path, body }, ifMatch }) => {
    const item = await items.update(path.item_id, () => body, { ifMatch });
    return { statusCode: 200, body: item, headers: { ETag: etag(item) } };
  });
