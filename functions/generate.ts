import { createAnswerer } from '../lib/generate/answer.ts';
import { createGenerator } from '../lib/generate/factory.ts';
import { GenerateRequestSchema, GenerateResponseSchema } from '../lib/generate/schema.ts';
import { httpRoute } from '../lib/http/route.ts';
import { createItemLookup } from '../lib/items/reader.ts';
import { getRuntime } from '../lib/runtime.ts';
import { createServiceRetriever } from '../lib/search/read/retrieve.ts';

const { config, table, verifier } = getRuntime();
const answer = createAnswerer({
  retrieve: createServiceRetriever({ ...table, items: createItemLookup(table) }),
  generator: await createGenerator(config.generator),
});

export const handler = httpRoute('generate', {
  verifier,
  inputs: { body: GenerateRequestSchema },
  output: GenerateResponseSchema,
}).handler(async ({ input: { body } }) => ({ statusCode: 200, body: await answer(body) }));
