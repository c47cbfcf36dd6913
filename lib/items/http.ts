import type { Item } from './schema.ts';

/** The item's entity tag: its version, quoted. */
export const etag = (item: Item): string => `"${item.version}"`;

/** The `Link` header of a list page that has a successor. */
export const nextLink = (path: string, limit: number, cursor: string): string =>
  `<${path}?limit=${limit}&cursor=${encodeURIComponent(cursor)}>; rel="next"`;
