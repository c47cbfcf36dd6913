import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Caller } from '../auth/caller.ts';

/** What a handler returns; the response middleware serializes `body` as JSON. */
export interface HttpResult {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The request as API Gateway sends it, as the middlewares leave it: header names lower-cased, the body parsed. */
export interface ApiEvent extends Omit<APIGatewayProxyEventV2, 'body' | 'headers'> {
  /** Header names lower-cased; API Gateway joins repeated headers with commas. */
  headers: Record<string, string | undefined>;
  /**
   * The body: the text API Gateway sends (base64 when `isBase64Encoded`); after the body middlewares, the text
   * decoded, then the parsed JSON value.
   */
  body?: unknown;
}

/**
 * What the middlewares learn of one request, kept in middy's `request.internal` (as middy's and Powertools' own
 * middlewares keep theirs) rather than on the event.
 */
export type RequestState = {
  /** When `observe` first saw the request (`process.hrtime.bigint()`). */
  startedAt?: bigint;
  /** Set by the authenticate middleware when a token verified. */
  caller?: Caller;
  /** The `If-Match` version, when the header was sent. */
  ifMatch?: number;
  /** The `Idempotency-Key`, when the header was sent. */
  idempotencyKey?: string;
  /** Paths of keys the JSON parser refused (`__proto__`), left for validation to report with the rest. */
  forbiddenKeys?: readonly string[];
  /** Path, query and body after validation. */
  input?: unknown;
};

/** A request going through a route's middleware chain. */
export type ApiRequest = Request<ApiEvent, HttpResult, Error, Context, RequestState>;
/** One of a route's middlewares. */
export type ApiMiddleware = MiddlewareObj<ApiEvent, HttpResult, Error, Context, RequestState>;

/** The serialized response, as API Gateway (HTTP API, payload 2.0) takes it. */
export interface ApiResult {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
}

export const JSON_MEDIA_TYPE = 'application/json';
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_AUTHORIZATION_BYTES = 8 * 1024;
