import { logger } from '../../observability.ts';
import { toHttpError } from '../to-http-error.ts';
import type { ApiMiddleware, ApiResult, HttpResult } from '../types.ts';

// Six fixed headers for a JSON API, set here rather than by @middy/http-security-headers: that package is built for
// HTML pages (its defaults add a dozen more, such as a 40-feature Permissions-Policy, and a weaker CSP), and even
// configured down to these it adds 5.7 KB to every bundle, which the 300 KB budget of an item handler cannot take.
// It has no Cache-Control either.
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

/**
 * Turns the handler's result into the HTTP response and any error into the contract's (`toHttpError`); an error
 * whose message is not exposed (a server error) is logged with its cause, which never reaches the client.
 * @middy/http-error-handler does not fit: it answers with the bare message as text/plain, and the contract's error
 * is a JSON object with `details`.
 */
export function httpResponse(): ApiMiddleware {
  return {
    name: 'httpResponse',
    after: (request) => {
      if (request.response) request.response = toApiResult(request.response);
    },
    onError: (request) => {
      const error = toHttpError(request.error);
      if (!error.expose)
        logger.error('request failed', { statusCode: error.statusCode, error: error.cause ?? request.error });
      request.response = toApiResult({
        statusCode: error.statusCode,
        body: error.toJSON(),
        headers: { ...error.headers },
      });
    },
  };
}
