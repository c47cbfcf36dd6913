import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { jsonBody } from '../lib/middleware/json-body.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput, validateOutput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';
import { createDictionary } from '../lib/search/dictionary.ts';
import { createSearch } from '../lib/search/query.ts';
import { createRetriever } from '../lib/search/retrieve.ts';
import { RetrieveRequestSchema, RetrieveResponseSchema } from '../lib/search/schema.ts';

const inputs = { body: RetrieveRequestSchema };
const { client, config, items, verifier } = getRuntime();
const retrieve = createRetriever({
  search: createSearch({ client, tableName: config.tableName }),
  items,
  dictionary: createDictionary({ client, tableName: config.tableName }),
});

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('retrieve', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'retrieve'))
  .use(jsonBody())
  .use(validateInput(inputs))
  .use(validateOutput(RetrieveResponseSchema))
  .handler(async ({ input: { body } }) => ({ statusCode: 200, body: await retrieve(body) }));
