import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { bodyTag, caching } from '../../../../lib/http/middleware/caching.ts';
import { httpResponse } from '../../../../lib/http/middleware/http-response.ts';
import type { ApiEvent, ApiResult, HttpResult } from '../../../../lib/http/types.ts';
import { ItemNotFoundError } from '../../../../lib/items/errors.ts';
import { apiGatewayEvent, context, JSON_TYPE, SECURITY } from '../events.ts';

const PUBLIC = { 'Cache-Control': 'public, max-age=30', Vary: 'Authorization' };

/** The response of `caching` around `httpResponse` around `handler`, as a public GET route chains them. */
const respond = (
  handler: () => Promise<HttpResult>,
  headers: Record<string, string> = {},
  validators = true,
) =>
  middy<ApiEvent, HttpResult>()
    .use(caching({ maxAge: 30, validators }))
    .use(httpResponse())
    .handler(handler)(apiGatewayEvent({ headers }) as unknown as ApiEvent, context) as Promise<ApiResult>;
const page = async () => ({ statusCode: 200, body: [{ id: 1 }, { id: 2 }] });
const item = async () => ({ statusCode: 200, body: { id: 1 }, headers: { ETag: '"3"' } });

describe('caching (contract §4.1)', () => {
  it('makes a request without Authorization cacheable, varying on Authorization, and tags the body', async () => {
    const body = '[{"id":1},{"id":2}]';
    expect(await respond(page)).toStrictEqual({
      statusCode: 200,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE, ...PUBLIC, ETag: bodyTag(body) },
      body,
    });
  });

  it('keeps no-store for a request with Authorization, and the handler’s own ETag', async () => {
    expect(await respond(item, { authorization: 'Bearer x' })).toStrictEqual({
      statusCode: 200,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE, ETag: '"3"' },
      body: '{"id":1}',
    });
  });

  it('answers 304 with the ETag and no body when If-None-Match names it, weakly or among others, or is *', async () => {
    for (const condition of ['"3"', 'W/"3"', '"1", "3"', '*'])
      expect(await respond(item, { 'if-none-match': condition }), condition).toStrictEqual({
        statusCode: 304,
        headers: { ...SECURITY, ...PUBLIC, ETag: '"3"' },
      });
    expect((await respond(item, { 'if-none-match': '"2"' })).statusCode).toBe(200);
  });

  it('answers an error as usual (never 304), cacheable only when asked without Authorization', async () => {
    const missing = () => Promise.reject(new ItemNotFoundError(9));
    expect(await respond(missing, { 'if-none-match': '*' })).toStrictEqual({
      statusCode: 404,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE, ...PUBLIC },
      body: '{"error":"Item not found"}',
    });
    expect((await respond(missing, { authorization: 'Bearer x' })).headers['Cache-Control']).toBe('no-store');
  });

  it('without validators, sets only the cache headers', async () => {
    expect(await respond(page, { 'if-none-match': '*' }, false)).toStrictEqual({
      statusCode: 200,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE, ...PUBLIC },
      body: '[{"id":1},{"id":2}]',
    });
  });

  it('tags two bodies differently and one body alike', () => {
    expect(bodyTag('[{"id":1}]')).toBe(bodyTag('[{"id":1}]'));
    expect(bodyTag('[{"id":1}]')).not.toBe(bodyTag('[{"id":2}]'));
    expect(bodyTag('[]')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });
});
