import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Caller } from '../auth/verifier.ts';

/** What a handler returns; the response middleware serializes `body` as JSON. */
export interface HttpResult {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The request as the middleware chain leaves it for the handler. */
export interface ApiEvent<Input = unknown> extends APIGatewayProxyEventV2 {
  /** Header names lower-cased; API Gateway joins repeated headers with commas. */
  headers: Record<string, string | undefined>;
  /** Set by the authenticate middleware when a token verified. */
  caller?: Caller | undefined;
  /** The `If-Match` version, when the header was sent. */
  ifMatch?: number | undefined;
  /** The `Idempotency-Key`, when the header was sent. */
  idempotencyKey?: string | undefined;
  /** The parsed JSON body. */
  jsonBody?: unknown;
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
