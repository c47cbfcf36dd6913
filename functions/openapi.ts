import middy from '@middy/core';
import type { ApiEvent, HttpResult } from '../lib/http/types.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { validateOutput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { buildOpenApiDocument } from '../lib/openapi/document.ts';
import { OpenApiDocumentSchema } from '../lib/openapi/schemas.ts';
import { getRuntime } from '../lib/runtime.ts';

const { verifier } = getRuntime();
// Built once per cold start; the same schemas the other handlers validate with.
const document = buildOpenApiDocument();

export const handler = middy<ApiEvent, HttpResult>()
  .use(observe('openapi', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'openapi'))
  .use(validateOutput(OpenApiDocumentSchema))
  .handler(async () => ({ statusCode: 200, body: document }));
