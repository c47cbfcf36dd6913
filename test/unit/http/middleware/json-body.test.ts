import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { forbiddenKeyPaths, jsonBody } from '../../../../lib/http/middleware/json-body.ts';
import { apiGatewayEvent, gatewayEvent, passed, runAlone, thrown } from '../events.ts';

// The body as the chain gives it to this middleware: decoded text (bodyLimit), of a checked type (mediaType).
const withBody = (body: string) =>
  apiGatewayEvent({ method: 'POST', headers: { 'content-type': 'application/json' }, body });
const NOT_JSON = { statusCode: 400, message: 'Request body is not valid JSON' };

describe('jsonBody', () => {
  it('parses the body into event.body with @middy/http-json-body-parser', async () => {
    const event = passed(await runAlone(jsonBody(), withBody('{"name":"Boot","tags":["a"],"n":1.5}')));
    expect({ body: event.body, forbiddenKeys: event.forbiddenKeys }).toStrictEqual({
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

  it('leaves __proto__ keys, with their paths, for validation to refuse', async () => {
    const text = '{"name":"x","__proto__":{"admin":true},"attributes":{"__proto__":"v","ok":1}}';
    const event = passed(await runAlone(jsonBody(), withBody(text)));
    expect({
      keys: event.forbiddenKeys,
      own: Object.keys(event.body as object),
      prototype: Object.getPrototypeOf(event.body),
    }).toStrictEqual({
      keys: ['__proto__', 'attributes.__proto__'],
      own: ['name', '__proto__', 'attributes'],
      prototype: Object.prototype,
    });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('names a constructor key that holds a prototype, as middy refuses it', async () => {
    const event = passed(await runAlone(jsonBody(), withBody('{"tags":[{"constructor":{"prototype":{}}}]}')));
    expect(event.forbiddenKeys).toStrictEqual(['tags.0.constructor']);
  });

  it('parses a valid body nested 5,000 levels deep, which middy alone calls malformed', async () => {
    const text = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const event = passed(await runAlone(jsonBody(), withBody(text)));
    let node: unknown = event.body;
    let depth = 0;
    for (; Array.isArray(node); depth++) node = node[0];
    expect({ depth, node, keys: event.forbiddenKeys }).toStrictEqual({
      depth: 5000,
      node: 1,
      keys: undefined,
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
      const parsed = passed(await runAlone(jsonBody(), { ...event, body: text }));
      expect({ body: parsed.body, keys: parsed.forbiddenKeys }).toStrictEqual({
        body: JSON.parse(text),
        keys: undefined,
      });
    },
  );

  test.prop([gatewayEvent(), fc.string()])(
    'refuses with 400 exactly the text JSON.parse refuses',
    async (event, text) => {
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
      const parsed = passed(await runAlone(jsonBody(), { ...event, body: text }));
      expect(parsed.forbiddenKeys).toContain(path);
    },
  );
});
