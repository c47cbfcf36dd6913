import type { MiddlewareObj } from '@middy/core';
import { toHttpError } from '../http/to-http-error.ts';
import type { ApiEvent, ApiResult, HttpResult } from '../http/types.ts';
import type { HttpError } from '../http-errors.ts';
import { logger } from '../logger.ts';

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** Serializes a handler's result: JSON body with its content type, plus the security headers. */
export function toApiResult({ statusCode, body, headers = {} }: HttpResult): ApiResult {
  if (body === undefined) return { statusCode, headers: { ...SECURITY_HEADERS, ...headers } };
  return {
    statusCode,
    headers: { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

function errorResult(error: HttpError): ApiResult {
  return toApiResult({ statusCode: error.statusCode, body: error.toJSON(), headers: { ...error.headers } });
}

/** First in every chain: turns the handler's result into the HTTP response and every error into the contract's. */
export function httpResponse(): MiddlewareObj<ApiEvent, HttpResult> {
  return {
    name: 'httpResponse',
    after: (request) => {
      if (request.response) request.response = toApiResult(request.response);
    },
    onError: (request) => {
      const httpError = toHttpError(request.error);
      if (!httpError.expose) {
        logger.error('request failed', {
          statusCode: httpError.statusCode,
          error: httpError.cause ?? request.error,
        });
      }
      request.response = errorResult(httpError);
    },
  };
}
