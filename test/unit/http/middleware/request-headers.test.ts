import { fc, test } from '@fast-check/vitest';
import type { MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { describe, expect, it } from 'vitest';
import { requestHeaders } from '../../../../lib/http/middleware/request-headers.ts';
import type { ApiEvent, HttpResult } from '../../../../lib/http/types.ts';
import { apiGatewayEvent, gatewayEvent, passed, runAlone, stateOf, thrown } from '../events.ts';

const withHeaders = (headers: Record<string, string>) => apiGatewayEvent({ method: 'PUT', headers });

describe('requestHeaders', () => {
  it('passes If-Match and Idempotency-Key on to the handler', async () => {
    const state = stateOf(
      await runAlone(requestHeaders(), withHeaders({ 'if-match': ' "42" ', 'idempotency-key': 'order-7' })),
    );
    expect({ ifMatch: state.ifMatch, idempotencyKey: state.idempotencyKey }).toStrictEqual({
      ifMatch: 42,
      idempotencyKey: 'order-7',
    });
  });

  it.each([
    [{ authorization: 'Bearer a.b.c,Bearer d.e.f' }, 'Malformed Authorization header'],
    [
      { 'if-match': '3' },
      'If-Match must be a quoted version, like "3" (a positive integer, at most 9007199254740991)',
    ],
    [
      { 'if-match': '"9007199254740992"' },
      'If-Match must be a quoted version, like "3" (a positive integer, at most 9007199254740991)',
    ],
    [{ 'idempotency-key': 'has space' }, 'Idempotency-Key must be 1-255 visible ASCII characters'],
    [{ 'idempotency-key': 'k'.repeat(256) }, 'Idempotency-Key must be 1-255 visible ASCII characters'],
  ])('refuses %j with 400', async (headers, message) => {
    expect(thrown(await runAlone(requestHeaders(), withHeaders(headers)))).toMatchObject({
      statusCode: 400,
      message,
    });
  });

  it('reads headers of any case once @middy/http-header-normalizer has lower-cased them', async () => {
    const chain = [httpHeaderNormalizer() as MiddlewareObj<ApiEvent, HttpResult>, requestHeaders()];
    const state = stateOf(await runAlone(chain, withHeaders({ 'If-Match': '"3"', 'Idempotency-Key': 'k' })));
    expect({ ifMatch: state.ifMatch, idempotencyKey: state.idempotencyKey }).toStrictEqual({
      ifMatch: 3,
      idempotencyKey: 'k',
    });
  });

  it('takes an event without headers as one with none', async () => {
    const { headers: _, ...bare } = apiGatewayEvent();
    expect(passed(await runAlone(requestHeaders(), bare as never)).headers).toStrictEqual({});
  });

  test.prop([gatewayEvent()])(
    'lets every request without those three headers through untouched',
    async (event) => {
      const outcome = await runAlone(requestHeaders(), structuredClone(event));
      const seen = { ...passed(outcome), ...stateOf(outcome) };
      expect({ headers: seen.headers, ifMatch: seen.ifMatch, key: seen.idempotencyKey }).toStrictEqual({
        headers: event.headers,
        ifMatch: undefined,
        key: undefined,
      });
    },
  );

  test.prop([
    gatewayEvent(),
    fc.maxSafeNat().filter((n) => n > 0),
    fc.stringMatching(/^[\x21-\x7E]{1,255}$/),
  ])('reads every quoted version and every visible-ASCII key', async (event, version, key) => {
    const headers = { ...event.headers, 'if-match': `"${version}"`, 'idempotency-key': key };
    const seen = stateOf(await runAlone(requestHeaders(), { ...event, headers }));
    expect({ ifMatch: seen.ifMatch, key: seen.idempotencyKey }).toStrictEqual({ ifMatch: version, key });
  });

  test.prop([gatewayEvent(), fc.string({ maxLength: 30 })])(
    'refuses with 400 every If-Match that is not a quoted version',
    async (event, value) => {
      fc.pre(
        !/^\s*"[1-9][0-9]*"\s*$/.test(value) ||
          BigInt(value.trim().slice(1, -1)) > BigInt(Number.MAX_SAFE_INTEGER),
      );
      const outcome = await runAlone(requestHeaders(), {
        ...event,
        headers: { ...event.headers, 'if-match': value },
      });
      expect(thrown(outcome)).toMatchObject({ statusCode: 400 });
    },
  );
});
