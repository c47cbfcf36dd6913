import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { mediaType } from '../../../../lib/http/middleware/media-type.ts';
import { apiGatewayEvent, gatewayEvent, passed, runAlone, thrown } from '../events.ts';

const JSON_ONLY = ['application/json'];
const PATCH = ['application/json', 'application/merge-patch+json'];
const withType = (type: string | undefined) =>
  apiGatewayEvent({ method: 'POST', ...(type === undefined ? {} : { headers: { 'content-type': type } }) });

describe('mediaType', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    'application/json ; charset=utf-8',
  ])('admits %s', async (type) => {
    expect(passed(await runAlone(mediaType(JSON_ONLY), withType(type))).headers['content-type']).toBe(type);
  });

  it.each([
    ['text/plain'],
    ['application/merge-patch+json'],
    ['application/vnd.api+json'],
    ['application/jsonx'],
    ['application/json,text/plain'],
    [undefined],
  ])('refuses %s with 415 naming the accepted types', async (type) => {
    expect(thrown(await runAlone(mediaType(JSON_ONLY), withType(type)))).toMatchObject({
      statusCode: 415,
      message: 'Content-Type must be application/json',
    });
  });

  it('admits a JSON Merge Patch where the route accepts one, and names both types otherwise', async () => {
    passed(await runAlone(mediaType(PATCH), withType('application/merge-patch+json')));
    expect(thrown(await runAlone(mediaType(PATCH), withType('application/xml')))).toMatchObject({
      statusCode: 415,
      message: 'Content-Type must be application/json or application/merge-patch+json',
    });
  });

  const parameters = fc.array(fc.stringMatching(/^[a-z]{1,8}=[a-z0-9-]{1,8}$/), { maxLength: 2 });
  const casing = fc.array(fc.boolean(), { minLength: 40, maxLength: 40 });
  const recase = (text: string, upper: boolean[]) =>
    [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');

  test.prop([gatewayEvent(), fc.constantFrom(...PATCH), parameters, casing])(
    'admits an accepted type in any letter case, with any parameters',
    async (event, type, params, upper) => {
      const header = [recase(type, upper), ...params].join('; ');
      const outcome = await runAlone(mediaType(PATCH), {
        ...event,
        headers: { ...event.headers, 'content-type': header },
      });
      expect(passed(outcome).headers['content-type']).toBe(header);
    },
  );

  test.prop([gatewayEvent(), fc.stringMatching(/^[a-z]{1,12}\/[a-z0-9.+-]{1,20}$/)])(
    'refuses every other type with 415',
    async (event, type) => {
      fc.pre(!JSON_ONLY.includes(type));
      const outcome = await runAlone(mediaType(JSON_ONLY), {
        ...event,
        headers: { ...event.headers, 'content-type': type },
      });
      expect(thrown(outcome)).toMatchObject({ statusCode: 415 });
    },
  );
});
