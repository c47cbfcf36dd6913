import type { JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { JSON_MEDIA_TYPE, MAX_BODY_BYTES } from '../http/types.ts';
import {
  BadGatewayError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GatewayTimeoutError,
  type HttpError,
  InternalServerError,
  PayloadTooLargeError,
  PreconditionFailedError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../http-errors.ts';
import { toHttpError } from '../http/to-http-error.ts';
import { createCursorCodec } from '../items/cursor.ts';
import { ItemNotFoundError } from '../items/errors.ts';
import { nextLink } from '../items/http.ts';
import { ItemPathSchema, ListQuerySchema } from '../items/schema.ts';
import { parameterSchema, SCHEMA_REF } from './json-schema.ts';

/** `If-Match: "<version>"` (contract §4); anything else is a 400. */
const IfMatchSchema = v.pipe(v.string(), v.regex(/^"[1-9][0-9]{0,15}"$/));
/** `Idempotency-Key`: 1–255 visible ASCII characters (contract §4). */
const IdempotencyKeySchema = v.pipe(v.string(), v.regex(/^[\x21-\x7e]{1,255}$/));

type Place = 'path' | 'query' | 'header';
interface Parameter {
  name: string;
  in: Place;
  required: boolean;
  description: string;
  schema: JsonSchema;
}

/** One parameter per property of an object schema (path or query), required as the schema says. */
function parametersOf(schema: v.GenericSchema, place: Place, descriptions: Record<string, string>) {
  const { properties = {}, required = [] } = parameterSchema(schema);
  return Object.entries(properties).map(([name, property]): Parameter => {
    if (typeof property === 'boolean') throw new Error(`The ${place} parameter ${name} has no schema`);
    const description = descriptions[name];
    if (description === undefined) throw new Error(`The ${place} parameter ${name} has no description`);
    return { name, in: place, required: required.includes(name) || place === 'path', description, schema: property };
  });
}

const header = (name: string, schema: v.GenericSchema, description: string): Parameter => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: parameterSchema(schema),
});

/** Reusable parameters, keyed `<in>.<name>`. */
export const parameters: Record<string, Parameter> = Object.fromEntries(
  [
    ...parametersOf(ItemPathSchema, 'path', {
      item_id: "The item's id: a positive integer within JavaScript's safe range (at most 9007199254740991).",
    }),
    ...parametersOf(ListQuerySchema, 'query', {
      limit: 'Page size, an integer from 1 to 100.',
      cursor: 'Opaque: only as found in the `Link` header of the previous page.',
    }),
    header('If-Match', IfMatchSchema, 'Apply the change only at this version (412 otherwise), e.g. `"3"`.'),
    header(
      'Idempotency-Key',
      IdempotencyKeySchema,
      'A repeat by the same caller with the same key and body within 24 hours returns the first response and ' +
        'creates nothing; the same key with a different body is a 422, and 409 while the first is in progress.',
    ),
  ].map((parameter) => [`${parameter.in}.${parameter.name}`, parameter]),
);

/** Reusable response headers. */
export const headers = {
  ETag: {
    description: "The item's version, quoted: send it back in `If-Match`.",
    required: true,
    schema: { type: 'string', pattern: '^"[1-9][0-9]*"$', examples: ['"1"'] },
  },
  Location: {
    description: 'Where the new item is: `/items/{id}`.',
    required: true,
    schema: { type: 'string', examples: ['/items/42'] },
  },
  Link: {
    description: 'Present when more items remain: `<URL>; rel="next"`, the URL of the next page.',
    required: false,
    schema: { type: 'string', examples: [nextLink('/items', 2, createCursorCodec('example'.repeat(5)).encode(2))] },
  },
  'WWW-Authenticate': {
    description:
      'The bearer challenge: `Bearer realm="items"`, with `, error="invalid_token"` when a token was presented ' +
      'and `, error="insufficient_scope"` on 403.',
    required: true,
    schema: { type: 'string', examples: [new UnauthorizedError(true).headers['WWW-Authenticate'] ?? ''] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
} as const;
type HeaderName = keyof typeof headers;

const errorResponse = (description: string, example: HttpError, withHeaders: HeaderName[] = [], schema = 'Error') => ({
  description,
  headers: Object.fromEntries(withHeaders.map((name) => [name, { $ref: `#/components/headers/${name}` }])),
  content: { [JSON_MEDIA_TYPE]: { schema: { $ref: `${SCHEMA_REF}${schema}` }, example: example.toJSON() } },
});

/** Every error status of contract §1, by status. */
export const errorResponses = {
  400: errorResponse(
    'The body is not valid JSON, or a header is malformed (two `Authorization` values, a bad `If-Match`).',
    new BadRequestError('Request body is not valid JSON'),
  ),
  401: errorResponse(
    'No credentials on a restricted operation, or credentials that fail verification (on any operation).',
    new UnauthorizedError(true),
    ['WWW-Authenticate'],
  ),
  403: errorResponse('The caller verified but has no permitted role.', new ForbiddenError(), ['WWW-Authenticate']),
  404: errorResponse('No item has this id.', toHttpError(new ItemNotFoundError(1)), [], 'ItemNotFound'),
  409: errorResponse('A request with this `Idempotency-Key` is still in progress.', new ConflictError()),
  412: errorResponse('`If-Match` does not match the current version.', new PreconditionFailedError()),
  413: errorResponse('The body is over 64 KiB.', new PayloadTooLargeError(MAX_BODY_BYTES)),
  415: errorResponse('Wrong or missing `Content-Type`.', new UnsupportedMediaTypeError([JSON_MEDIA_TYPE])),
  422: errorResponse(
    'The values fail validation (body fields, path or query parameters); `details` lists every problem.',
    new ValidationError([{ path: 'name', message: 'must not be empty' }]),
  ),
  429: errorResponse('Throttled.', new TooManyRequestsError(1)),
  500: errorResponse('Unexpected failure.', new InternalServerError()),
  502: errorResponse('The generator or the database failed.', new BadGatewayError()),
  503: errorResponse('The generator or the database is unavailable.', new ServiceUnavailableError(1), ['Retry-After']),
  504: errorResponse('The generator or the database timed out.', new GatewayTimeoutError()),
} as const;
export type ErrorStatus = keyof typeof errorResponses;

/** The one security scheme: a Cognito access token as a bearer token. */
export const securitySchemes = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An Amazon Cognito user pool access token (`token_use` = `access`, signed RS256, with `exp`). Its ' +
      '`cognito:groups` claim carries the roles: `reader`, `editor`, `admin`.',
  },
} as const;
