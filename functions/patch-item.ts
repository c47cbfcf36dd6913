import middy from '@middy/core';
import {
  type ApiEvent,
  type HttpResult,
  JSON_MEDIA_TYPE,
  MERGE_PATCH_MEDIA_TYPE,
} from '../lib/http/types.ts';
import { etag } from '../lib/items/http.ts';
import { applyMergePatch, writableFields } from '../lib/items/merge-patch.ts';
import { ItemPatchSchema, ItemPathSchema, ItemSchema, ItemWriteSchema } from '../lib/items/schema.ts';
import { authenticate } from '../lib/middleware/authenticate.ts';
import { httpResponse } from '../lib/middleware/http-response.ts';
import { jsonBody } from '../lib/middleware/json-body.ts';
import { observe } from '../lib/middleware/observe.ts';
import { requestHeaders } from '../lib/middleware/request-headers.ts';
import { type InputOf, validateInput, validateOutput } from '../lib/middleware/validate.ts';
import { logger, metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';
import { parseOrReject } from '../lib/validation.ts';

const inputs = { path: ItemPathSchema, body: ItemPatchSchema };
const { items, verifier } = getRuntime();

export const handler = middy<ApiEvent<InputOf<typeof inputs>>, HttpResult>()
  .use(observe('patchItem', { logger, metrics }))
  .use(httpResponse())
  .use(requestHeaders())
  .use(authenticate(verifier, 'patchItem'))
  .use(jsonBody([JSON_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE]))
  .use(validateInput(inputs))
  .use(validateOutput(ItemSchema))
  .handler(async ({ input: { path, body }, ifMatch }) => {
    // The merged result is validated again: a patch can push attributes past 20 keys.
    const change = (current: Parameters<typeof writableFields>[0]) =>
      parseOrReject(ItemWriteSchema, applyMergePatch(writableFields(current), body));
    const item = await items.update(path.item_id, change, { ifMatch });
    return { statusCode: 200, body: item, headers: { ETag: etag(item) } };
  });
