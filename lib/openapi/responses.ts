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
} from '../http/errors.ts';
import { nextLink } from '../http/items.ts';
import { QUOTED_VERSION } from '../http/middleware/request-headers.ts';
import { toHttpError } from '../http/to-http-error.ts';
import { JSON_MEDIA_TYPE, MAX_BODY_BYTES } from '../http/types.ts';
import { createCursorCodec } from '../items/cursor.ts';
import { ItemNotFoundError } from '../items/errors.ts';
import { SCHEMA_REF } from './json-schema.ts';
import { lowercaseInputPattern } from './lowercase-pattern.ts';

/** A `Vary` list naming `Authorization` (in any case, as field names are), whatever else a proxy adds to it. */
const VARY_AUTHORIZATION = lowercaseInputPattern('(?:^|,)\\s*authorization\\s*(?:,|$)');

/** Reusable response headers. */
export const headers = {
  ETag: {
    description: "The item's version, quoted: send it back in `If-Match`.",
    required: true,
    schema: { type: 'string', pattern: QUOTED_VERSION.source, examples: ['"1"'] },
  },
  PageETag: {
    description:
      'A strong validator of the page: send it back in `If-None-Match` to get a 304 while the page is unchanged.',
    required: true,
    schema: { type: 'string', examples: ['"Yb8tA3m0c2VhcmNoLWluZGV4LWV4YW1w"'] },
  },
  'Cache-Control': {
    description:
      '`public, max-age=<N>` (N set per stage, 0 by default) on a response to a request made without ' +
      '`Authorization`; `no-store` on every other response (contract §4.1).',
    required: true,
    schema: { type: 'string', examples: ['public, max-age=0', 'no-store'] },
  },
  Vary: {
    description:
      'Lists `Authorization`, with `Cache-Control: public`: a cache keys its copies on the credentials. A proxy ' +
      'on the way may add other names to the list (`Authorization, Origin`).',
    required: false,
    // A pattern, not a const: a proxy may append names, and only `Authorization`'s presence is the service's.
    schema: {
      type: 'string',
      pattern: VARY_AUTHORIZATION,
      examples: ['Authorization', 'Authorization, Origin'],
    },
  },
  Location: {
    description: 'Where the new item is: `/items/{id}`.',
    required: true,
    schema: { type: 'string', examples: ['/items/42'] },
  },
  'Idempotent-Replayed': {
    description:
      'Present only on a replay: a repeat of an earlier create with the same `Idempotency-Key` and body, ' +
      'answered with the first response. Its value is then `true`.',
    required: false,
    schema: { type: 'string', const: 'true' },
  },
  Link: {
    description: 'Present when more items remain: `<URL>; rel="next"`, the URL of the next page.',
    required: false,
    schema: {
      type: 'string',
      examples: [nextLink('/items', 2, createCursorCodec('example'.repeat(5)).encode(2))],
    },
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
/** Components that describe a header under another name than their own (a list page's `ETag` is no version). */
export const headerNames: Partial<Record<HeaderName, string>> = { PageETag: 'ETag' };

/** One error response: its component name, and the body's schema with a real error of the service as example. */
const errorResponse = (
  name: string,
  description: string,
  example: HttpError,
  withHeaders: readonly HeaderName[] = [],
  schema: 'Error' | 'ItemNotFound' = 'Error',
) => ({
  name,
  response: {
    description,
    ...(withHeaders.length > 0 && {
      headers: Object.fromEntries(
        withHeaders.map((header) => [header, { $ref: `#/components/headers/${header}` }]),
      ),
    }),
    content: { [JSON_MEDIA_TYPE]: { schema: { $ref: `${SCHEMA_REF}${schema}` }, example: example.toJSON() } },
  },
});

/** Every error status of contract §1. */
export const errorResponses = {
  400: errorResponse(
    'BadRequest',
    'The body is not valid JSON, or a header is malformed: two `Authorization` values, an `If-Match` that is ' +
      'not a quoted version, an `Idempotency-Key` that is not 1–255 visible ASCII characters.',
    new BadRequestError('Request body is not valid JSON'),
  ),
  401: errorResponse(
    'Unauthorized',
    'No credentials on a restricted operation, or credentials that fail verification (on any operation).',
    new UnauthorizedError(true),
    ['WWW-Authenticate'],
  ),
  403: errorResponse('Forbidden', 'The caller verified but has no permitted role.', new ForbiddenError(), [
    'WWW-Authenticate',
  ]),
  404: errorResponse(
    'ItemNotFound',
    'No item has this id.',
    toHttpError(new ItemNotFoundError(1)),
    [],
    'ItemNotFound',
  ),
  409: errorResponse(
    'Conflict',
    'A request with this `Idempotency-Key` is still in progress.',
    new ConflictError(),
  ),
  412: errorResponse(
    'PreconditionFailed',
    '`If-Match` does not match the current version.',
    new PreconditionFailedError(),
  ),
  413: errorResponse('PayloadTooLarge', 'The body is over 64 KiB.', new PayloadTooLargeError(MAX_BODY_BYTES)),
  415: errorResponse(
    'UnsupportedMediaType',
    'Wrong or missing `Content-Type`.',
    new UnsupportedMediaTypeError([JSON_MEDIA_TYPE]),
  ),
  422: errorResponse(
    'ValidationFailed',
    'The values fail validation (body fields, path or query parameters); `details` lists every problem.',
    new ValidationError([{ path: 'name', message: 'must not be empty' }]),
  ),
  429: errorResponse('TooManyRequests', 'Throttled.', new TooManyRequestsError(1)),
  500: errorResponse('InternalServerError', 'Unexpected failure.', new InternalServerError()),
  502: errorResponse('BadGateway', 'The generator or the database failed.', new BadGatewayError()),
  503: errorResponse(
    'ServiceUnavailable',
    'The generator or the database is unavailable.',
    new ServiceUnavailableError(1),
    ['Retry-After'],
  ),
  504: errorResponse('GatewayTimeout', 'The generator or the database timed out.', new GatewayTimeoutError()),
} as const;
export type ErrorStatus = keyof typeof errorResponses;

/** `components.responses`: the error responses by name. */
export const responseComponents = Object.fromEntries(
  Object.values(errorResponses).map(({ name, response }) => [name, response]),
);
