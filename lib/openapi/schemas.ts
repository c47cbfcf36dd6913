import * as v from 'valibot';
import { toHttpError } from '../http/to-http-error.ts';
import { ItemNotFoundError } from '../items/errors.ts';

/** One problem with a request value, as `HttpError#toJSON` lists it in `details`. */
export const ErrorDetailSchema = v.strictObject({
  path: v.pipe(v.string(), v.description('The field: `name`, `tags.2`, `query.limit`, `path.item_id`.')),
  message: v.string(),
});

/** Every error body (contract §1): a string `error`, and `details` for validation errors. */
export const ErrorSchema = v.pipe(
  v.strictObject({
    error: v.string(),
    details: v.optional(v.pipe(v.array(ErrorDetailSchema), v.description('One entry per problem.'))),
  }),
  v.description('An error. Server errors (5xx) carry only a fixed message, never internals.'),
);

const notFound = toHttpError(new ItemNotFoundError(1)).toJSON();

/** The 404 body for an unknown item: exactly `{"error":"Item not found"}`, as the one error mapping builds it. */
export const ItemNotFoundSchema = v.pipe(
  v.strictObject({ error: v.literal(notFound.error) }),
  v.description('Exactly this body for an unknown `item_id`.'),
);

/** The outline of an OpenAPI 3.1 document: what `GET /openapi.json` answers. */
export const OpenApiDocumentSchema = v.pipe(
  v.looseObject({
    openapi: v.pipe(v.string(), v.startsWith('3.1.')),
    info: v.looseObject({ title: v.string(), version: v.string() }),
    paths: v.record(v.string(), v.record(v.string(), v.unknown())),
  }),
  v.description('This API described in OpenAPI 3.1.'),
);
