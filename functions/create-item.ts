import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { etag } from '../lib/items/http.ts';
import { ItemSchema, ItemWriteSchema } from '../lib/items/schema.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { jsonBody } from '../lib/middleware/json-body.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput, validateOutput } from '../lib/middleware/validate.ts';
import { getRuntime } from '../lib/runtime.ts';

const inputs = { body: ItemWriteSchema };
const { items, verifier } = getRuntime();

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'createItem'))
  .use(jsonBody())
  .use(validateInput(inputs))
  .use(validateOutput(ItemSchema))
  .handler(async ({ input: { body } }) => {
    const item = await items.create(body);
    return { statusCode: 201, body: item, headers: { Location: `/items/${item.id}`, ETag: etag(item) } };
  });
