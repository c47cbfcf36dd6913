import { SAFE_POSITIVE_INTEGER } from '../../validation.ts';
import { BadRequestError } from '../errors.ts';
import type { ApiMiddleware } from '../types.ts';

/** `If-Match: "<version>"`, 1 to 9007199254740991: anything else is a 400 (also the OpenAPI document's pattern). */
export const QUOTED_VERSION = new RegExp(`^"(${SAFE_POSITIVE_INTEGER})"$`);
/** `Idempotency-Key`: 1–255 visible ASCII characters (also the OpenAPI document's pattern). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/**
 * Refuses malformed headers (400): two `Authorization` values, a bad `If-Match` or `Idempotency-Key`; keeps the
 * two values in `request.internal` for the handler. Runs after @middy/http-header-normalizer has lower-cased the names.
 */
export function requestHeaders(): ApiMiddleware {
  return {
    name: 'requestHeaders',
    before: ({ event, internal }) => {
      // API Gateway always sends headers; an event from elsewhere may have none.
      event.headers ??= {};
      const { headers } = event;
      // API Gateway joins repeated headers with commas, and a bearer token never contains one: a comma means two
      // Authorization values.
      if (headers.authorization?.includes(',')) throw new BadRequestError('Malformed Authorization header');
      const ifMatch = headers['if-match'];
      if (ifMatch !== undefined) {
        const version = QUOTED_VERSION.exec(ifMatch.trim())?.[1];
        if (!version) {
          throw new BadRequestError(
            `If-Match must be a quoted version, like "3" (a positive integer, at most ${Number.MAX_SAFE_INTEGER})`,
          );
        }
        internal.ifMatch = Number(version);
      }
      const idempotencyKey = headers['idempotency-key'];
      if (idempotencyKey !== undefined) {
        if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
          throw new BadRequestError('Idempotency-Key must be 1-255 visible ASCII characters');
        }
        internal.idempotencyKey = idempotencyKey;
      }
    },
  };
}
