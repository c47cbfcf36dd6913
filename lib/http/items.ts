import type { CreateResult } from '../items/create.ts';
import type { Item } from '../items/schema.ts';
import type { HttpResult } from './types.ts';

/** The item's entity tag: its version, quoted. */
export const etag = (item: Item): string => `"${item.version}"`;

/** The `Link` header of a list page that has a successor. */
export const nextLink = (path: string, limit: number, cursor: string): string =>
  `<${path}?limit=${limit}&cursor=${encodeURIComponent(cursor)}>; rel="next"`;

/** A read or write's answer: 200 with the item and its `ETag`. */
export const itemResponse = (item: Item): HttpResult => ({
  statusCode: 200,
  body: item,
  headers: { ETag: etag(item) },
});

/** A create's answer: 201 with the item, `Location` and `ETag`; a replayed create says so (`Idempotent-Replayed`). */
export const createdResponse = ({ item, replayed }: CreateResult): HttpResult => ({
  statusCode: 201,
  body: item,
  headers: {
    Location: `/items/${item.id}`,
    ETag: etag(item),
    ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}),
  },
});
