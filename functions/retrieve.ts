import { httpRoute } from '../lib/http/route.ts';
import { createItemLookup } from '../lib/items/reader.ts';
import { getRuntime } from '../lib/runtime.ts';
import { createServiceRetriever } from '../lib/search/read/retrieve.ts';
import { RetrieveRequestSchema, RetrieveResponseSchema } from '../lib/search/read/schema.ts';

const { table, verifier } = getRuntime();
const retrieve = createServiceRetriever({ ...table, items: createItemLookup(table) });

export const handler = httpRoute('retrieve', {
  verifier,
  inputs: { body: RetrieveRequestSchema },
  output: RetrieveResponseSchema,
}).handler(async ({ input: { body } }) => ({ statusCode: 200, body: await retrieve(body) }));
