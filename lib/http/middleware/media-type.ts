import { UnsupportedMediaTypeError } from '../errors.ts';
import type { ApiMiddleware } from '../types.ts';

/**
 * Refuses a request whose `Content-Type` is not one of `mediaTypes` (415), parameters such as `charset` aside.
 * @middy/http-json-body-parser's own check is turned off in favour of this one: it admits every `+json` type (the
 * contract admits exactly these per route) and refuses the white space RFC 9110 allows before `;`.
 */
export function mediaType(mediaTypes: readonly string[]): ApiMiddleware {
  return {
    name: 'mediaType',
    before: ({ event }) => {
      const type = event.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (!type || !mediaTypes.includes(type)) throw new UnsupportedMediaTypeError(mediaTypes);
    },
  };
}
