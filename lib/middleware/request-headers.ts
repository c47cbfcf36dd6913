import type { MiddlewareObj } from '@middy/core';
import type { ApiEvent, HttpResult } from '../http/types.ts';
import { BadRequestError } from '../http-errors.ts';
import { SAFE_POSITIVE_INTEGER } from '../validation.ts';

/** `If-Match: "<version>"`, 1 to 9007199254740991: anything else is a 400 (also the OpenAPI document's pattern). */
export const QUOTED_VERSION = new RegExp(`^"(${SAFE_POSITIVE_INTEGER})"$`);
/** `Idempotency-Key`: 1–255 visible ASCII characters (also the OpenAPI document's pattern). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/** Lower-cases header names and refuses malformed headers: two `Authorization` values, a bad `If-Match` or `Idempotency-Key`. */
export function requestHeaders(): MiddlewareObj<ApiEvent, HttpResult> {
  return {
    name: 'requestHeaders',
    before: ({ event }) => {
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(event.headers ?? {})) {
        const key = name.toLowerCase();
        // Repeated headers arrive joined with commas (API Gateway); keep that shape for any other source too.
        headers[key] = headers[key] === undefined ? value : `${headers[key]},${value}`;
      }
      event.headers = headers;
      // A bearer token never contains a comma, so a comma means two Authorization values.
      if (headers.authorization?.includes(',')) throw new BadRequestError('Malformed Authorization header');
      const ifMatch = headers['if-match'];
      if (ifMatch !== undefined) {
        const version = QUOTED_VERSION.exec(ifMatch.trim())?.[1];
        if (!version) {
          throw new BadRequestError(
            `If-Match must be a quoted version, like "3" (a positive integer, at most ${Number.MAX_SAFE_INTEGER})`,
          );
        }
        event.ifMatch = Number(version);
      }
      const idempotencyKey = headers['idempotency-key'];
      if (idempotencyKey !== undefined) {
        if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
          throw new BadRequestError('Idempotency-Key must be 1-255 visible ASCII characters');
        }
        event.idempotencyKey = idempotencyKey;
      }
    },
  };
}
