import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpResult } from '../../lib/http/types.ts';
import { itemKey } from '../../lib/items/keys.ts';
import { freshTable, stack, tokenFor } from '../support/stack.ts';

// The handlers invoked in-process, as Lambda would, against a table of their own in DynamoDB Local.
const table = await freshTable();
Object.assign(process.env, stack.env, { TABLE_NAME: table.tableName });
const handlers = {
  create: (await import('../../functions/create-item.ts')).handler,
  get: (await import('../../functions/get-item.ts')).handler,
  list: (await import('../../functions/list-items.ts')).handler,
  patch: (await import('../../functions/patch-item.ts')).handler,
  remove: (await import('../../functions/delete-item.ts')).handler,
};

let requests = 0;
const context = () =>
  ({
    awsRequestId: `req-${++requests}`,
    functionName: 'test',
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;
function event(
  method: string,
  path: string,
  options: {
    body?: unknown;
    token?: string;
    headers?: Record<string, string>;
    params?: Record<string, string>;
  } = {},
) {
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.params ? { pathParameters: options.params } : {}),
    requestContext: { http: { method, path }, requestId: `api-${requests}` },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    isBase64Encoded: false,
  } as never;
}
const parse = (result: HttpResult) => ({
  status: result.statusCode,
  body: typeof result.body === 'string' && result.body ? JSON.parse(result.body) : undefined,
  headers: result.headers ?? {},
});

beforeAll(() => {
  expect(process.env.TABLE_NAME).toBe(table.tableName);
});

describe('handlers in-process on DynamoDB Local', () => {
  it('create, read, patch and delete an item', async () => {
    const editor = tokenFor('editor');
    const created = parse(
      await handlers.create(event('POST', '/items', { token: editor, body: { name: 'Boot' } }), context()),
    );
    expect(created).toMatchObject({
      status: 201,
      body: { id: 1, name: 'Boot', version: 1 },
      headers: { Location: '/items/1', ETag: '"1"' },
    });
    const read = parse(await handlers.get(event('GET', '/items/1', { params: { item_id: '1' } }), context()));
    expect(read.body).toStrictEqual(created.body);
    const patched = parse(
      await handlers.patch(
        event('PATCH', '/items/1', {
          token: editor,
          body: { tags: ['x'] },
          params: { item_id: '1' },
          headers: { 'if-match': '"1"' },
        }),
        context(),
      ),
    );
    expect(patched).toMatchObject({ status: 200, body: { tags: ['x'], version: 2 } });
    const removed = parse(
      await handlers.remove(
        event('DELETE', '/items/1', { token: tokenFor('admin'), params: { item_id: '1' } }),
        context(),
      ),
    );
    expect(removed.status).toBe(204);
    expect(
      parse(await handlers.get(event('GET', '/items/1', { params: { item_id: '1' } }), context())).body,
    ).toStrictEqual({
      error: 'Item not found',
    });
  });

  it('answers 500 {"error":"Internal server error"} without internals when a stored item breaks the schema', async () => {
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...itemKey(77), id: 77, name: '', tags: 'x', attributes: '{', version: 0 },
      }),
    );
    const reply = parse(
      await handlers.get(event('GET', '/items/77', { params: { item_id: '77' } }), context()),
    );
    expect({ status: reply.status, body: reply.body, type: reply.headers['Content-Type'] }).toStrictEqual({
      status: 500,
      body: { error: 'Internal server error' },
      type: 'application/json; charset=utf-8',
    });
    expect(parse(await handlers.list(event('GET', '/items'), context())).status).toBe(500);
  });
});
