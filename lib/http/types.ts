import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Caller } from '../auth/caller.ts';

/** What a handler returns; the response middleware serializes `body` as JSON. */
export interface HttpResult {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The request as the middleware chain leaves it for the handler. */
export interface ApiEvent<Input = unknown> extends Omit<APIGatewayProxyEventV2, 'body' | 'headers'> {
  /** Header names lower-cased; API Gateway joins repeated headers with commas. */
  headers: Record<string, string | undefined>;
  /**
   * The body: the text API Gateway sends (base64 when `isBase64Encoded`); after the body middlewares, the text
   * decoded, then the parsed JSON value.
   */
  body?: unknown;
  /** Set by the authenticate middleware when a token verified. */
  caller?: Caller | undefined;
  /** The `If-Match` version, when the header was sent. */
  ifMatch?: number | undefined;
  /** The `Idempotency-Key`, when the header was sent. */
  idempotencyKey?: string | undefined;
  /** Paths of keys the JSON parser refused (`__proto__`), left for validation to report with the rest. */
  forbiddenKeys?: readonly string[] | undefined;
  /** Path, query and body after validation. */
  input: Input;
}

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
