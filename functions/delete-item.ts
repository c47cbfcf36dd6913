import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { ItemPathSchema } from '../lib/items/schema.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';

const inputs = { path: ItemPathSchema };
const { items, verifier } = getRuntime();

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('deleteItem', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'deleteItem'))
  .use(validateInput(inputs))
  .handler(async ({ input: { path }, ifMatch }) => {
    await items.delete(path.item_id, { ifMatch });
    return { statusCode: 204 };
  });
