import { fc, test } from '@fast-check/vitest';
import middy from '@middy/core';
import { createError } from '@middy/util';
import { describe, expect, it } from 'vitest';
import { NotFoundError, ServiceUnavailableError } from '../../../../lib/http/errors.ts';
import { httpResponse } from '../../../../lib/http/middleware/http-response.ts';
import type { ApiEvent, ApiResult, HttpResult } from '../../../../lib/http/types.ts';
import { ItemNotFoundError } from '../../../../lib/items/errors.ts';
import { apiGatewayEvent, context, gatewayEvent, JSON_TYPE, SECURITY } from '../events.ts';

/** The response of a chain of httpResponse alone around `handler`. */
const respond = (handler: () => Promise<HttpResult>, event = apiGatewayEvent()) =>
  middy<ApiEvent, HttpResult>().use(httpResponse()).handler(handler)(
    event as unknown as ApiEvent,
    context,
  ) as Promise<ApiResult>;
const fail = (error: unknown) => () => Promise.reject(error);

describe('httpResponse', () => {
  it('serializes a body as JSON with its content type, the handler headers and the security headers', async () => {
    expect(
      await respond(async () => ({ statusCode: 201, body: { id: 1 }, headers: { ETag: '"1"' } })),
    ).toStrictEqual({
      statusCode: 201,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE, ETag: '"1"' },
      body: '{"id":1}',
    });
  });

  it('answers a result without a body with no body and no content type', async () => {
    expect(await respond(async () => ({ statusCode: 204 }))).toStrictEqual({
      statusCode: 204,
      headers: SECURITY,
    });
  });

  it('answers a domain error with the contract response', async () => {
    expect(await respond(fail(new ItemNotFoundError(7)))).toStrictEqual({
      statusCode: 404,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE },
      body: '{"error":"Item not found"}',
    });
  });

  it('keeps an HTTP error’s own headers, and hides a server error’s cause', async () => {
    const reply = await respond(fail(new ServiceUnavailableError(2, new Error('table items-prod is down'))));
    expect(reply).toStrictEqual({
      statusCode: 503,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE, 'Retry-After': '2' },
      body: '{"error":"Service unavailable"}',
    });
  });

  it('answers an error of an official middy middleware with its own status, not 500', async () => {
    const reply = await respond(fail(createError(415, 'Unsupported Media Type')));
    expect({ status: reply.statusCode, body: reply.body }).toStrictEqual({
      status: 415,
      body: '{"error":"Unsupported Media Type"}',
    });
  });

  it('answers anything unexpected with 500 {"error":"Internal server error"}, never its message', async () => {
    expect(await respond(fail(new TypeError('secret.table is undefined')))).toStrictEqual({
      statusCode: 500,
      headers: { ...SECURITY, 'Content-Type': JSON_TYPE },
      body: '{"error":"Internal server error"}',
    });
  });

  const statusError = fc
    .record({
      status: fc.integer({ min: 400, max: 599 }),
      message: fc.string({ minLength: 1, maxLength: 40 }),
      expose: fc.option(fc.boolean(), { nil: undefined }),
    })
    .map(({ status, message, expose }) =>
      createError(status, message, expose === undefined ? {} : { expose }),
    );
  const anyError = fc.oneof(
    statusError,
    fc.string().map((message) => new Error(message)),
    fc.constantFrom(
      new NotFoundError('Item not found'),
      new ItemNotFoundError(1),
      'a string',
      undefined,
      null,
    ),
  );

  test.prop([gatewayEvent(), anyError])(
    'answers every error with a JSON error object and the security headers, a server error without its message',
    async (event, error) => {
      const reply = await respond(fail(error), event);
      const body = JSON.parse(reply.body ?? '');
      expect(reply.statusCode).toBeGreaterThanOrEqual(400);
      expect(reply.statusCode).toBeLessThanOrEqual(599);
      expect(reply.headers).toMatchObject({ ...SECURITY, 'Content-Type': JSON_TYPE });
      expect(typeof body.error).toBe('string');
      const status = (error as { statusCode?: number } | null)?.statusCode;
      if (status !== undefined) expect(reply.statusCode).toBe(status);
      if (reply.statusCode >= 500 && error instanceof Error)
        expect(body.error).not.toBe(error.message || undefined);
    },
  );
});
