import { fc, test } from '@fast-check/vitest';
import middy from '@middy/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { validateInput, validateOutput } from '../../../../lib/http/middleware/validate.ts';
import type { ApiEvent, HttpResult } from '../../../../lib/http/types.ts';
import { ItemPathSchema, ItemWriteSchema, ListQuerySchema } from '../../../../lib/items/schema.ts';
import { apiGatewayEvent, context, gatewayEvent, runAlone, stateOf, thrown } from '../events.ts';

const inputs = { path: ItemPathSchema, query: ListQuerySchema, body: ItemWriteSchema };
/** An event as the body middlewares leave it: the parsed body (the keys the parser refused are in the state). */
const parsed = (body: unknown) => ({
  ...apiGatewayEvent({ method: 'PUT', path: '/items/7', pathParameters: { item_id: '7' } }),
  body,
});

describe('validateInput', () => {
  it('hands the handler path, query and body as their schemas output them', async () => {
    const state = stateOf(
      await runAlone(validateInput(inputs), parsed({ name: '  Boot ', tags: ['A'] }) as never),
    );
    expect(state.input).toStrictEqual({
      path: { item_id: 7 },
      query: { limit: 100 },
      body: { name: 'Boot', description: '', tags: ['a'], attributes: {} },
    });
  });

  it('refuses with 422 listing every problem of path, query and body, each with its path', async () => {
    const event = {
      ...parsed({ name: '', extra: 1 }),
      pathParameters: { item_id: '0' },
      queryStringParameters: { limit: '500' },
    };
    const error = thrown(await runAlone(validateInput(inputs), event as never));
    expect(error).toMatchObject({
      statusCode: 422,
      message: 'Validation failed',
      details: [
        { path: 'path.item_id', message: 'must be a positive integer, at most 9007199254740991' },
        { path: 'query.limit', message: 'must be an integer from 1 to 100' },
        { path: 'name', message: 'must not be empty' },
        { path: 'extra', message: 'is not an accepted field' },
      ],
    });
  });

  it('reports a refused key the schemas did not already report', async () => {
    const schemas = { body: v.looseObject({ name: v.string() }) };
    const body = JSON.parse('{"name":"x","meta":{"__proto__":1}}');
    const error = thrown(
      await runAlone(validateInput(schemas), parsed(body) as never, { forbiddenKeys: ['meta.__proto__'] }),
    );
    expect(error).toMatchObject({
      statusCode: 422,
      details: [{ path: 'meta.__proto__', message: 'is a forbidden key' }],
    });
  });

  it('does not report a refused key twice, nor inside a field already refused', async () => {
    const body = JSON.parse(
      '{"name":"x","tags":[{"constructor":{"prototype":1}}],"attributes":{"__proto__":"v"}}',
    );
    const forbiddenKeys = ['attributes.__proto__', 'tags.0.constructor'];
    const error = thrown(await runAlone(validateInput(inputs), parsed(body) as never, { forbiddenKeys }));
    expect(error).toMatchObject({
      details: [
        { path: 'tags.0', message: expect.any(String) },
        { path: 'attributes.__proto__', message: 'key must match ^[A-Za-z][A-Za-z0-9_]{0,63}$' },
      ],
    });
  });

  const fieldName = fc.stringMatching(/^[a-z]{1,8}$/);
  test.prop([
    gatewayEvent(),
    fc.array(fieldName, { minLength: 1, maxLength: 4 }),
    fc.dictionary(fieldName, fc.jsonValue()),
  ])(
    'always refuses with 422 a body holding a refused key, and names a path at or above it',
    async (event, path, rest) => {
      const key = [...path, '__proto__'].join('.');
      const schemas = { body: v.unknown() };
      const outcome = await runAlone(validateInput(schemas), { ...event, body: rest } as never, {
        forbiddenKeys: [key],
      });
      const error = thrown(outcome) as { statusCode: number; details: { path: string }[] };
      expect(error.statusCode).toBe(422);
      expect(error.details.some((d) => key === d.path || key.startsWith(`${d.path}.`))).toBe(true);
    },
  );
});

describe('validateOutput', () => {
  const run = (body: unknown) =>
    middy<ApiEvent, HttpResult>()
      .use(validateOutput(v.strictObject({ id: v.number() })))
      .handler(async () => ({ statusCode: 200, body }))(apiGatewayEvent() as unknown as ApiEvent, context);

  it('lets a body that fits the schema leave', async () => {
    await expect(run({ id: 1 })).resolves.toStrictEqual({ statusCode: 200, body: { id: 1 } });
  });

  it('turns a body that breaks the schema into a 500, never a response', async () => {
    await expect(run({ id: 'x' })).rejects.toMatchObject({ statusCode: 500, expose: false });
  });

  test.prop([fc.jsonValue()])('lets out exactly the bodies the schema accepts', async (body) => {
    const fits = v.safeParse(v.strictObject({ id: v.number() }), body).success;
    if (fits) await expect(run(body)).resolves.toMatchObject({ statusCode: 200 });
    else await expect(run(body)).rejects.toMatchObject({ statusCode: 500 });
  });
});
