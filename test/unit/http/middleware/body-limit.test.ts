import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { bodyLimit } from '../../../../lib/http/middleware/body-limit.ts';
import { apiGatewayEvent, gatewayEvent, passed, runAlone, thrown } from '../events.ts';

const LIMIT = 64 * 1024;
const post = (body: string, isBase64Encoded = false) =>
  apiGatewayEvent({ method: 'POST', headers: { 'content-type': 'application/json' }, body, isBase64Encoded });

describe('bodyLimit', () => {
  it('lets a body of exactly 64 KiB through, its text in event.body', async () => {
    const body = `"${'x'.repeat(LIMIT - 2)}"`;
    expect(passed(await runAlone(bodyLimit(LIMIT), post(body))).body).toBe(body);
  });

  it('refuses one byte more with 413 and the limit in the message', async () => {
    const error = thrown(await runAlone(bodyLimit(LIMIT), post(`"${'x'.repeat(LIMIT - 1)}"`)));
    expect(error).toMatchObject({
      statusCode: 413,
      message: 'Request body exceeds 65536 bytes',
    });
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const body = 'é'.repeat(LIMIT / 2 + 1);
    expect(thrown(await runAlone(bodyLimit(LIMIT), post(body)))).toMatchObject({ statusCode: 413 });
  });

  it('decodes a base64 body, measures the decoded text and leaves it unencoded', async () => {
    const text = '{"name":"Trail Boot"}';
    const event = passed(await runAlone(bodyLimit(LIMIT), post(Buffer.from(text).toString('base64'), true)));
    expect({ body: event.body, isBase64Encoded: event.isBase64Encoded }).toStrictEqual({
      body: text,
      isBase64Encoded: false,
    });
  });

  it('reads a missing body as empty text', async () => {
    expect(passed(await runAlone(bodyLimit(LIMIT), apiGatewayEvent({ method: 'POST' }))).body).toBe('');
  });

  test.prop([gatewayEvent(), fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(600), fc.boolean()])(
    'passes a body exactly when its decoded UTF-8 size is within the limit',
    async (event, text, limit, base64) => {
      const body = base64 ? Buffer.from(text).toString('base64') : text;
      const outcome = await runAlone(bodyLimit(limit), { ...event, body, isBase64Encoded: base64 });
      const decoded = base64 ? Buffer.from(body, 'base64').toString('utf8') : text;
      if (Buffer.byteLength(decoded, 'utf8') <= limit) expect(passed(outcome).body).toBe(decoded);
      else expect(thrown(outcome)).toMatchObject({ statusCode: 413 });
    },
  );
});
