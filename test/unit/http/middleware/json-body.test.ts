import { fc, test } from '@fast-check/vitest';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { forbiddenKeyPaths, jsonBody } from '../../../../lib/http/middleware/json-body.ts';
import { inputValidation } from '../../../../lib/http/middleware/validate.ts';
import { ItemWriteSchema } from '../../../../lib/items/schema.ts';
import { apiGatewayEvent, gatewayEvent, passed, runAlone, thrown } from '../events.ts';

// The body as the chain gives it to this middleware: decoded text (bodyLimit), of a checked type (mediaType).
const withBody = (body: string) =>
  apiGatewayEvent({ method: 'POST', headers: { 'content-type': 'application/json' }, body });
const NOT_JSON = { statusCode: 400, message: 'Request body is not valid JSON' };
/** A route's input validation, which answers for a body the parser refused but that is JSON. */
const validation = inputValidation({ body: ItemWriteSchema });

describe('jsonBody', () => {
  it('parses the body into event.body with @middy/http-json-body-parser', async () => {
    const outcome = await runAlone(jsonBody(), withBody('{"name":"Boot","tags":["a"],"n":1.5}'));
    expect({ body: passed(outcome).body, forbiddenKeys: outcome.state.forbiddenKeys }).toStrictEqual({
      body: { name: 'Boot', tags: ['a'], n: 1.5 },
      forbiddenKeys: undefined,
    });
  });

  it.each(['{"name":', '', 'undefined', "{'a':1}", '{"a":1}}', '\u0000'])(
    'refuses %j with 400 (middy says 422; the contract says 400)',
    async (text) => {
      expect(thrown(await runAlone(jsonBody(), withBody(text)))).toMatchObject(NOT_JSON);
    },
  );

  it('refuses __proto__ keys through validation: 422 with their paths, among every other problem', async () => {
    const text = '{"name":"x","__proto__":{"admin":true},"attributes":{"__proto__":"v","ok":1}}';
    const event = withBody(text);
    const outcome = await runAlone(jsonBody(validation), event);
    expect(thrown(outcome)).toMatchObject({
      statusCode: 422,
      details: [
        { path: 'attributes.__proto__', message: 'key must match ^[A-Za-z][A-Za-z0-9_]{0,63}$' },
        { path: '__proto__', message: 'is not an accepted field' },
      ],
    });
    const body: unknown = event.body;
    if (typeof body !== 'object' || body === null) throw new Error('the body was not parsed');
    expect({
      keys: outcome.state.forbiddenKeys,
      own: Object.keys(body),
      prototype: Object.getPrototypeOf(body),
    }).toStrictEqual({
      keys: ['__proto__', 'attributes.__proto__'],
      own: ['name', '__proto__', 'attributes'],
      prototype: Object.prototype,
    });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('names a constructor key that holds a prototype, as middy refuses it', async () => {
    const outcome = await runAlone(jsonBody(), withBody('{"tags":[{"constructor":{"prototype":{}}}]}'));
    expect(outcome.state.forbiddenKeys).toStrictEqual(['tags.0.constructor']);
  });

  it('answers a valid body nested 5,000 levels deep, which middy alone calls malformed, by its validation', async () => {
    const text = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const event = withBody(text);
    const outcome = await runAlone(jsonBody(validation), event);
    expect(thrown(outcome)).toMatchObject({
      statusCode: 422,
      details: [{ path: 'body', message: 'must be an object' }],
    });
    let node: unknown = event.body;
    let depth = 0;
    for (; Array.isArray(node); depth++) node = node[0];
    expect({ depth, node, keys: outcome.state.forbiddenKeys }).toStrictEqual({
      depth: 5000,
      node: 1,
      keys: undefined,
    });
  });

  it('keeps the parser’s refusal of a body that deep should a schema ever admit it', async () => {
    const text = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const outcome = await runAlone(jsonBody(inputValidation({ body: v.unknown() })), withBody(text));
    expect(thrown(outcome)).toMatchObject({
      statusCode: 422,
      message: 'Invalid or malformed JSON was provided',
    });
  });

  it('finds a __proto__ key 5,000 levels deep', () => {
    const value = JSON.parse(`${'{"a":'.repeat(5000)}{"__proto__":1}${'}'.repeat(5000)}`);
    expect(forbiddenKeyPaths(value)).toStrictEqual([`${'a.'.repeat(5000)}__proto__`]);
  });

  const plainJson = fc
    .jsonValue()
    .filter((value) => !/"(__proto__|constructor)":/.test(JSON.stringify(value)));

  test.prop([gatewayEvent(), plainJson])(
    'parses any JSON text to the value JSON.parse gives',
    async (event, value) => {
      const text = JSON.stringify(value);
      const outcome = await runAlone(jsonBody(), { ...event, body: text });
      expect({ body: passed(outcome).body, keys: outcome.state.forbiddenKeys }).toStrictEqual({
        body: JSON.parse(text),
        keys: undefined,
      });
    },
  );

  test.prop([gatewayEvent(), fc.string()])(
    'refuses with 400 exactly the text JSON.parse refuses',
    async (event, text) => {
      fc.pre(!/__proto__|constructor/.test(text));
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      const outcome = await runAlone(jsonBody(), { ...event, body: text });
      if (valid) passed(outcome);
      else expect(thrown(outcome)).toMatchObject(NOT_JSON);
    },
  );

  /** A JSON object with a `__proto__` key put at the end of a path of object keys. */
  const poisoned = fc
    .record({
      base: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue()),
      path: fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { maxLength: 4 }),
    })
    .map(({ base, path }) => {
      const leaf = path.reduceRight<string>(
        (inner, key) => `{${JSON.stringify(key)}:${inner}}`,
        '{"__proto__":1}',
      );
      const rest = JSON.stringify(base).slice(1, -1);
      return {
        text: `{${rest}${rest ? ',' : ''}"zz":${leaf}}`,
        path: ['zz', ...path, '__proto__'].join('.'),
      };
    });

  test.prop([gatewayEvent(), poisoned])(
    'reports every __proto__ key at its path',
    async (event, { text, path }) => {
      const outcome = await runAlone(jsonBody(validation), { ...event, body: text });
      expect(thrown(outcome)).toMatchObject({ statusCode: 422 });
      expect(outcome.state.forbiddenKeys).toContain(path);
    },
  );
});
