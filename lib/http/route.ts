import middy, { type MiddyfiedHandler } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import type * as v from 'valibot';
import type { Caller } from '../auth/caller.ts';
import type { Operation } from '../auth/policy.ts';
import type { TokenVerifier } from '../auth/verifier.ts';
import { logger, metrics } from '../observability.ts';
import { authenticate } from './middleware/authenticate.ts';
import { bodyLimit } from './middleware/body-limit.ts';
import { caching } from './middleware/caching.ts';
import { httpResponse } from './middleware/http-response.ts';
import { jsonBody } from './middleware/json-body.ts';
import { mediaType } from './middleware/media-type.ts';
import { observe } from './middleware/observe.ts';
import { requestHeaders } from './middleware/request-headers.ts';
import { type InputOf, type InputSchemas, inputValidation, validateOutput } from './middleware/validate.ts';
import {
  type ApiEvent,
  type ApiRequest,
  type HttpResult,
  JSON_MEDIA_TYPE,
  MAX_BODY_BYTES,
  type RequestState,
} from './types.ts';

export interface RouteOptions<I extends InputSchemas> {
  /** Verifies presented tokens (every route) and admits callers by the operation's roles. */
  verifier: TokenVerifier;
  /** Schemas of the path, query and body; a route with a body schema reads a JSON body. */
  inputs?: I;
  /** Schema of the response body. */
  output?: v.GenericSchema;
  /** The body's accepted media types (default `application/json`). */
  mediaTypes?: readonly string[];
  /**
   * A GET of a public operation (contract §4.1): cacheable for `maxAge` seconds when asked without `Authorization`;
   * with `validators`, `ETag` and `If-None-Match` (→ 304).
   */
  cache?: { maxAge: number; validators?: boolean };
}

/** What a route's handler is given: the request, and what the middlewares learnt of it, its input validated. */
export interface RouteRequest<Input> {
  event: ApiEvent;
  input: Input;
  caller: Caller | undefined;
  ifMatch: number | undefined;
  idempotencyKey: string | undefined;
}

/** An HTTP route, waiting for its handler. */
export interface HttpRoute<I extends InputSchemas> {
  /** The route's Lambda handler: the middleware chain around `handle`. */
  handler(
    handle: (request: RouteRequest<InputOf<I>>) => Promise<HttpResult>,
  ): MiddyfiedHandler<ApiEvent, HttpResult, Error, Context, RequestState>;
}

/**
 * middy gives its handler the event and the context only, so the event carries its middy request (and so the
 * request's state) under a symbol only this module knows: not a field of the event's type, never serialized. (The
 * request, not its `internal`: Powertools' middlewares replace `request.internal` with a copy. Not a WeakMap from
 * events to requests: that cost 4 to 9 µs a request, in garbage collection.)
 */
const REQUEST = Symbol('middy request');
type RequestCarrier = ApiEvent & { [REQUEST]?: ApiRequest };

/**
 * The standard middleware chain of an HTTP route, in this fixed order (each step runs only if the ones before it
 * passed, so this is also the order of the checks and of their statuses):
 *
 * 1. `observe` — Powertools' metrics and Lambda context, one log line and the metrics per request (outermost, so it
 *    sees every response);
 *    then, on a public GET, `caching` — `Cache-Control`, `Vary`, `ETag` and 304 on the serialized response;
 * 2. `httpResponse` — serializes the result, and turns any error into the contract's response;
 * 3. @middy/http-header-normalizer — lower-cased header names;
 * 4. `requestHeaders` — a malformed `Authorization`, `If-Match` or `Idempotency-Key` → 400;
 * 5. `authenticate` — a presented token that fails, or no permitted role → 401 / 403;
 * 6. with a body: `bodyLimit` (→ 413), `mediaType` (→ 415), `jsonBody`: middy's JSON parser (→ 400, or 422 for a
 *    `__proto__` key, with every other problem of the input);
 * 7. `validateInput` — path, query and body against their schemas (→ 422);
 * 8. `validateOutput` — the response body against its schema, on the way out (→ 500).
 *
 * What the middlewares learn (the caller, `If-Match`, `Idempotency-Key`, the validated input, the start time) stays
 * in middy's `request.internal`; the handler gets it as a `RouteRequest`.
 */
export function httpRoute<I extends InputSchemas = Record<never, never>>(
  operation: Operation,
  { verifier, inputs, output, mediaTypes = [JSON_MEDIA_TYPE], cache }: RouteOptions<I>,
): HttpRoute<I> {
  const route = middy<ApiEvent, HttpResult, Error, Context, RequestState>().use([
    {
      name: 'requestState',
      before: (request) => {
        const carrier: RequestCarrier = request.event;
        carrier[REQUEST] = request;
      },
    },
    ...observe(operation, { logger, metrics }),
  ]);
  if (cache) route.use(caching(cache));
  route
    .use(httpResponse())
    .use(httpHeaderNormalizer())
    .use(requestHeaders())
    .use(authenticate(verifier, operation));
  const validate = inputs && inputValidation(inputs);
  if (inputs?.body) route.use([bodyLimit(MAX_BODY_BYTES), mediaType(mediaTypes), ...jsonBody(validate)]);
  if (validate) route.use({ name: 'validateInput', before: validate });
  if (output) route.use(validateOutput(output));
  return {
    handler: (handle) =>
      route.handler((event) => {
        const carrier: RequestCarrier = event;
        const state: RequestState = carrier[REQUEST]?.internal ?? {};
        return handle({
          event,
          // Set by `validateInput`, which every route with inputs runs before its handler.
          input: state.input as InputOf<I>,
          caller: state.caller,
          ifMatch: state.ifMatch,
          idempotencyKey: state.idempotencyKey,
        });
      }),
  };
}
