import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { createIdempotency } from '../lib/idempotency/store.ts';
import { createItemOperation } from '../lib/items/create.ts';
import { ItemSchema, ItemWriteSchema } from '../lib/items/schema.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { jsonBody } from '../lib/middleware/json-body.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput, validateOutput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';

const inputs = { body: ItemWriteSchema };
const { client, config, items, verifier } = getRuntime();
const create = createItemOperation({
  items,
  once: createIdempotency({ client, tableName: config.tableName }),
});

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('createItem', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'createItem'))
  .use(jsonBody())
  .use(validateInput(inputs))
  .use(validateOutput(ItemSchema))
  .handler(({ input: { body }, caller, idempotencyKey, jsonBody }) =>
    create(body, { caller, idempotencyKey, payload: jsonBody }),
  );
