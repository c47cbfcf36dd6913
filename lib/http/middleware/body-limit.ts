import { PayloadTooLargeError } from '../errors.ts';
import type { ApiMiddleware } from '../types.ts';

/**
 * Refuses a body over `maxBytes` (413) and leaves its text decoded in `event.body` for the media type check and the
 * JSON parser. No official middy middleware bounds a body's size, so this one is the service's own.
 */
export function bodyLimit(maxBytes: number): ApiMiddleware {
  return {
    name: 'bodyLimit',
    before: ({ event }) => {
      // API Gateway always sends a string; serverless-offline passes a bare JSON scalar body through as a value.
      const { body } = event;
      const text =
        typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
      const raw = event.isBase64Encoded ? Buffer.from(text, 'base64').toString('utf8') : text;
      if (Buffer.byteLength(raw, 'utf8') > maxBytes) throw new PayloadTooLargeError(maxBytes);
      event.body = raw;
      event.isBase64Encoded = false;
    },
  };
}
