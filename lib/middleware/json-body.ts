import type { MiddlewareObj } from '@middy/core';
import { type ApiEvent, type HttpResult, JSON_MEDIA_TYPE, MAX_BODY_BYTES } from '../http/types.ts';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../http-errors.ts';

/** Checks the body's size (413) and media type (415), then parses it as JSON (400). */
export function jsonBody(
  mediaTypes: readonly string[] = [JSON_MEDIA_TYPE],
): MiddlewareObj<ApiEvent, HttpResult> {
  return {
    name: 'jsonBody',
    before: ({ event }) => {
      // API Gateway always sends a string; serverless-offline passes a bare JSON scalar body through as a value.
      const body: unknown = event.body;
      const text =
        typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
      const raw = event.isBase64Encoded ? Buffer.from(text, 'base64').toString('utf8') : text;
      if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
      const mediaType = event.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (!mediaType || !mediaTypes.includes(mediaType)) throw new UnsupportedMediaTypeError(mediaTypes);
      try {
        event.jsonBody = JSON.parse(raw);
      } catch {
        throw new BadRequestError('Request body is not valid JSON');
      }
    },
  };
}
