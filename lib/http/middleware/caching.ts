import { createHash } from 'node:crypto';
import type { ApiEvent, ApiMiddleware, ApiResult } from '../types.ts';

/** The entity tags an `If-None-Match` names (weak ones by their opaque tag, RFC 9110 §13.1.2), or `*`. */
function namedTags(header: string): Set<string> | '*' {
  if (header.trim() === '*') return '*';
  return new Set(
    header
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .filter((tag) => tag.length > 0),
  );
}

/** A strong validator of a body: a quoted digest of its exact bytes. */
export const bodyTag = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * Contract §4.1, for a GET of a public operation. On the way out (outside `httpResponse`, so it sees the serialized
 * response): a request made without `Authorization` is answered with `Cache-Control: public, max-age=<maxAge>` and
 * `Vary: Authorization` (any other keeps the `no-store` every response has); with `validators`, a 200 carries an
 * `ETag` (the handler's, or a digest of the exact body) and an `If-None-Match` that names it, or `*`, turns it into a
 * 304 with that `ETag` and no body.
 */
export function caching({
  maxAge,
  validators = false,
}: {
  maxAge: number;
  validators?: boolean;
}): ApiMiddleware {
  const finish = (request: { event: ApiEvent; response: unknown }) => {
    const response = request.response as ApiResult | undefined;
    if (!response) return;
    const headers = { ...response.headers };
    if (request.event.headers.authorization === undefined) {
      headers['Cache-Control'] = `public, max-age=${maxAge}`;
      headers.Vary = 'Authorization';
    }
    if (validators && response.statusCode === 200 && response.body !== undefined) {
      const tag = headers.ETag ?? bodyTag(response.body);
      headers.ETag = tag;
      const condition = request.event.headers['if-none-match'];
      const named = condition === undefined ? undefined : namedTags(condition);
      if (named === '*' || named?.has(tag)) {
        const { 'Content-Type': _type, ...rest } = headers;
        request.response = { statusCode: 304, headers: rest };
        return;
      }
    }
    request.response = { ...response, headers };
  };
  return { name: 'caching', after: finish, onError: finish };
}
