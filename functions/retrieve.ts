import { httpRoute } from '../lib/http/route.ts';
import { getRuntime } from '../lib/runtime.ts';
import { createDictionary } from '../lib/search/dictionary.ts';
import { createSearch } from '../lib/search/query.ts';
import { createRetriever } from '../lib/search/retrieve.ts';
import { RetrieveRequestSchema, RetrieveResponseSchema } from '../lib/search/schema.ts';

const { client, config, items, verifier } = getRuntime();
const retrieve = createRetriever({
  search: createSearch({ client, tableName: config.tableName }),
  items,
  dictionary: createDictionary({ client, tableName: config.tableName }),
});

export const handler = httpRoute('retrieve', {
  verifier,
  inputs: { body: RetrieveRequestSchema },
  output: RetrieveResponseSchema,
}).handler(async ({ input: { body } }) => ({ statusCode: 200, body: await retrieve(body) }));
