import middy from '@middy/core';
import { createAnswerer } from '../lib/generate/answer.ts';
import { createGenerator } from '../lib/generate/factory.ts';
import { GenerateRequestSchema, GenerateResponseSchema } from '../lib/generate/schema.ts';
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

const inputs = { body: GenerateRequestSchema };
const { client, config, items, verifier } = getRuntime();
const answer = createAnswerer({
  retrieve: createRetriever({
    search: createSearch({ client, tableName: config.tableName }),
    items,
    dictionary: createDictionary({ client, tableName: config.tableName }),
  }),
  generator: await createGenerator(config.generator),
});

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('generate', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'generate'))
  .use(jsonBody())
  .use(validateInput(inputs))
  .use(validateOutput(GenerateResponseSchema))
  .handler(async ({ input: { body } }) => ({ statusCode: 200, body: await answer(body) }));
