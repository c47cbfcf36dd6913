// Events as API Gateway (HTTP API, payload 2.0) sends them, and a way to run one middleware on its own, as middy
// tests its packages: a middy chain of that middleware alone around a handler that returns what it was given.
import { fc } from '@fast-check/vitest';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { HttpError } from '../../../lib/http/errors.ts';
import { toHttpError } from '../../../lib/http/to-http-error.ts';
import type { ApiEvent, HttpResult, RequestState } from '../../../lib/http/types.ts';

export const context = {
  awsRequestId: 'req-1',
  functionName: 'items-test',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

export interface EventOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  pathParameters?: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
}

/** An API Gateway HTTP API (v2) event: header names lower-case, repeated values joined with commas. */
export function apiGatewayEvent({
  method = 'GET',
  path = '/items',
  headers = {},
  pathParameters,
  queryStringParameters,
  body,
  isBase64Encoded = false,
}: EventOptions = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'api.example.com', 'user-agent': 'test', ...headers },
    ...(pathParameters ? { pathParameters } : {}),
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
      requestId: 'api-1',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 1_767_225_600_000,
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded,
  };
}

/** What the handler behind the middleware saw, or what the chain threw; and the request's state either way. */
export type Outcome = ({ event: ApiEvent } | { error: unknown }) & { state: RequestState };

type Chain = ReturnType<typeof middy<ApiEvent, HttpResult, Error, Context, RequestState>>;

/**
 * Runs `middleware` alone in front of a handler that records the event it receives; `state` is what earlier
 * middlewares would have left in `request.internal`.
 */
export async function runAlone(
  middleware: Parameters<Chain['use']>[0],
  event: APIGatewayProxyEventV2,
  state: RequestState = {},
): Promise<Outcome> {
  let seen: ApiEvent | undefined;
  let internal: RequestState = state;
  const handler = middy<ApiEvent, HttpResult, Error, Context, RequestState>()
    .use({
      before: (request) => {
        Object.assign(request.internal, state);
        internal = request.internal;
      },
    })
    .use(middleware)
    .handler(async (received) => {
      seen = received;
      return { statusCode: 200 };
    });
  try {
    await handler(event as unknown as ApiEvent, context);
  } catch (error) {
    return { error, state: internal };
  }
  if (!seen) throw new Error('the handler did not run');
  return { event: seen, state: internal };
}

/** What the middlewares left in `request.internal` of a request they let through. */
export function stateOf(outcome: Outcome): RequestState {
  passed(outcome);
  return outcome.state;
}

/** The error a chain threw, or a failure naming what happened instead. */
export function thrown(outcome: Outcome): unknown {
  if (!('error' in outcome)) throw new Error('the middleware let the request through');
  return outcome.error;
}

/** The HTTP error a chain's refusal becomes (`toHttpError`: domain errors, such as authorization's, by class). */
export const refused = (outcome: Outcome): HttpError => toHttpError(thrown(outcome));

/** The event the handler saw, or a failure naming the error. */
export function passed(outcome: Outcome): ApiEvent {
  if ('error' in outcome) throw new Error(`the middleware refused the request: ${String(outcome.error)}`);
  return outcome.event;
}

const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
/** Header values as a client may send them: visible ASCII and spaces, no commas (API Gateway's separator). */
const headerValue = fc.stringMatching(/^[\x21-\x2B\x2D-\x7E][\x20-\x2B\x2D-\x7E]{0,40}$/);

/** Headers as API Gateway delivers them: lower-case names, each once, repeated values joined with commas. */
export const gatewayHeaders: fc.Arbitrary<Record<string, string>> = fc
  .dictionary(token, fc.array(headerValue, { minLength: 1, maxLength: 3 }), { maxKeys: 6 })
  .map((headers) =>
    Object.fromEntries(
      Object.entries(headers)
        .filter(([name]) => !['authorization', 'if-match', 'idempotency-key', 'content-type'].includes(name))
        .map(([name, values]) => [name, values.join(',')]),
    ),
  );

/** A request API Gateway may send, with arbitrary other headers, path and method. */
export const gatewayEvent = (extra: fc.Arbitrary<EventOptions> = fc.constant({})) =>
  fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      path: fc.constantFrom('/items', '/items/1', '/retrieve', '/generate', '/openapi.json'),
      headers: gatewayHeaders,
      extra,
    })
    .map(({ extra: more, headers, ...rest }) =>
      apiGatewayEvent({ ...rest, ...more, headers: { ...headers, ...more.headers } }),
    );

/** The headers every response carries (lib/http/middleware/http-response.ts), pinned as the contract sees them. */
export const SECURITY = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};
export const JSON_TYPE = 'application/json; charset=utf-8';
