import { httpRoute } from '../lib/http/route.ts';
import { OpenApiDocumentSchema } from '../lib/openapi/schemas.ts';
import { getRuntime } from '../lib/runtime.ts';
import document from '../openapi.json' with { type: 'json' };

const { verifier, config } = getRuntime();

// The committed openapi.json, bundled at build time (`npm run openapi` regenerates it from the schemas; a test fails
// when it is stale), so a cold start serves it instead of building it.
export const handler = httpRoute('openapi', {
  verifier,
  output: OpenApiDocumentSchema,
  cache: { maxAge: config.cacheMaxAge },
}).handler(async () => ({
  statusCode: 200,
  body: document,
}));
