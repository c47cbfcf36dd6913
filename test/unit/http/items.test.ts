import { describe, expect, it } from 'vitest';
import { createdResponse, itemResponse, nextLink } from '../../../lib/http/items.ts';

const item = {
  id: 42,
  name: 'Trail Boot',
  description: '',
  tags: [],
  attributes: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 3,
};

describe('item responses', () => {
  it('answers a read or write with 200, the item and its version as ETag', () => {
    expect(itemResponse(item)).toStrictEqual({ statusCode: 200, body: item, headers: { ETag: '"3"' } });
  });

  it('answers a create with 201, Location and ETag', () => {
    expect(createdResponse({ item, replayed: false })).toStrictEqual({
      statusCode: 201,
      body: item,
      headers: { Location: '/items/42', ETag: '"3"' },
    });
  });

  it('marks a replayed create with Idempotent-Replayed, after Location and ETag', () => {
    const response = createdResponse({ item, replayed: true });
    expect(response).toStrictEqual({
      statusCode: 201,
      body: item,
      headers: { Location: '/items/42', ETag: '"3"', 'Idempotent-Replayed': 'true' },
    });
    expect(Object.keys(response.headers ?? {})).toStrictEqual(['Location', 'ETag', 'Idempotent-Replayed']);
  });

  it('links the next page with the limit and the cursor, encoded', () => {
    expect(nextLink('/items', 2, 'c1.4.a/b+c')).toBe('</items?limit=2&cursor=c1.4.a%2Fb%2Bc>; rel="next"');
  });
});
