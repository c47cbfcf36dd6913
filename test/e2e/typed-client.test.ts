import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import type { components, paths } from '../support/api-types.ts';
import { stack, token, tokenFor } from '../support/stack.ts';

// The API driven only through a client typed by the generated test/support/api-types.ts: if the document and
// the service disagree on a path, a parameter or a body, this file stops compiling or these tests fail.
type Item = components['schemas']['Item'];
type RetrieveResponse = components['schemas']['RetrieveResponse'];

const api = createClient<paths>({ baseUrl: stack.baseUrl });
const bearer = (value: string) => ({ Authorization: `Bearer ${value}` });
const editor = bearer(tokenFor('editor'));
const admin = bearer(tokenFor('admin'));
const reader = bearer(tokenFor('reader'));
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const JSON_TYPE = 'application/json; charset=utf-8';

/** The value, or a failure naming what was missing (narrows openapi-fetch's `data | undefined`). */
function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`expected ${what}`);
  return value;
}

/** Follows the `Link` headers from the first page until the item shows up (or the pages run out). */
async function findInList(id: number): Promise<Item | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const { data, response } = await api.GET('/items', {
      params: { query: { limit: '100', ...(cursor === undefined ? {} : { cursor }) } },
    });
    expect(response.status).toBe(200);
    const found = present(data, 'a page of items').find((item) => item.id === id);
    if (found) return found;
    const next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    if (next === undefined) return undefined;
    cursor = new URL(next, stack.baseUrl).searchParams.get('cursor') ?? undefined;
  }
  return undefined;
}

/** Polls POST /retrieve: the index follows the table's stream, within 2 s by the contract. */
async function retrieveUntil(
  body: components['schemas']['RetrieveRequest'],
  done: (reply: RetrieveResponse) => boolean,
  timeoutMs = 8000,
): Promise<RetrieveResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data, response } = await api.POST('/retrieve', { body, headers: reader });
    expect(response.status).toBe(200);
    const reply = present(data, 'a retrieve response');
    if (done(reply) || Date.now() > deadline) return reply;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the API through a client typed by the OpenAPI document', () => {
  it('creates, reads, lists, patches, replaces, retrieves, generates from and deletes an item', async () => {
    const word = `zq7${randomUUID().replaceAll('-', '').slice(0, 10)}`;

    const created = await api.POST('/items', {
      params: { header: { 'Idempotency-Key': randomUUID() } },
      body: { name: ` Typed ${word} `, description: 'Made by the typed client', tags: ['Typed-Client'] },
      headers: editor,
    });
    const item = present(created.data, 'the created item');
    expect({ status: created.response.status, body: item }).toStrictEqual({
      status: 201,
      body: {
        id: expect.any(Number),
        name: `Typed ${word}`,
        description: 'Made by the typed client',
        tags: ['typed-client'],
        attributes: {},
        createdAt: ISO,
        updatedAt: item.createdAt,
        version: 1,
      },
    });
    expect(created.response.headers.get('location')).toBe(`/items/${item.id}`);
    expect(created.response.headers.get('etag')).toBe('"1"');
    const path = { item_id: String(item.id) };

    const read = await api.GET('/items/{item_id}', { params: { path } });
    expect({
      status: read.response.status,
      body: read.data,
      etag: read.response.headers.get('etag'),
    }).toStrictEqual({
      status: 200,
      body: item,
      etag: '"1"',
    });

    expect(await findInList(item.id)).toStrictEqual(item);

    const patched = await api.PATCH('/items/{item_id}', {
      params: { path, header: { 'If-Match': '"1"' } },
      body: { description: null, attributes: { brand: 'acme', size: 42 } },
      headers: { ...editor, 'Content-Type': 'application/merge-patch+json' },
    });
    expect({ status: patched.response.status, body: patched.data }).toStrictEqual({
      status: 200,
      body: { ...item, description: '', attributes: { brand: 'acme', size: 42 }, updatedAt: ISO, version: 2 },
    });
    expect(patched.response.headers.get('etag')).toBe('"2"');

    // Fields left out of a replace return to their defaults.
    const replaced = await api.PUT('/items/{item_id}', {
      params: { path, header: { 'If-Match': '"2"' } },
      body: { name: `Typed ${word} II`, tags: ['typed-client', 'replaced'] },
      headers: editor,
    });
    const current = present(replaced.data, 'the replaced item');
    expect({ status: replaced.response.status, body: current }).toStrictEqual({
      status: 200,
      body: {
        ...item,
        name: `Typed ${word} II`,
        description: '',
        tags: ['typed-client', 'replaced'],
        attributes: {},
        updatedAt: ISO,
        version: 3,
      },
    });

    const query = { query: word, filter: { tags: ['Replaced'] } };
    const retrieved = await retrieveUntil(query, ({ results }) => results.some((r) => r.item.id === item.id));
    expect(retrieved).toStrictEqual({
      query: word,
      results: [{ rank: 1, score: expect.any(Number), item: current, matchedTerms: [word] }],
    });

    const generated = await api.POST('/generate', { body: query, headers: reader });
    const answer = present(generated.data, 'a generated answer');
    expect({
      status: generated.response.status,
      grounded: answer.grounded,
      citations: answer.citations,
    }).toStrictEqual({
      status: 200,
      grounded: true,
      // The description is empty, so the passage is the name (contract §8.5).
      citations: [
        { ref: 1, itemId: item.id, name: current.name, score: expect.any(Number), passage: current.name },
      ],
    });
    expect(answer.answer).toContain('[1]');

    const deleted = await api.DELETE('/items/{item_id}', {
      params: { path, header: { 'If-Match': '"3"' } },
      headers: admin,
    });
    expect({ status: deleted.response.status, data: deleted.data, error: deleted.error }).toStrictEqual({
      status: 204,
      data: undefined,
      error: undefined,
    });

    const gone = await api.GET('/items/{item_id}', { params: { path } });
    expect({ status: gone.response.status, error: gone.error }).toStrictEqual({
      status: 404,
      error: { error: 'Item not found' },
    });
  });

  it('serves the committed openapi.json at GET /openapi.json, to anyone', async () => {
    const committed: unknown = JSON.parse(readFileSync('openapi.json', 'utf8'));
    for (const headers of [{}, reader]) {
      const { data, response } = await api.GET('/openapi.json', { headers });
      expect({
        status: response.status,
        type: response.headers.get('content-type'),
        body: data,
      }).toStrictEqual({
        status: 200,
        type: JSON_TYPE,
        body: committed,
      });
    }
  });

  it.each([
    ['a malformed token', 'not-a-jwt'],
    ['an expired token', token({ groups: ['reader'], expiresIn: -60 })],
    ['an id token', token({ groups: ['admin'], tokenUse: 'id' })],
  ])('refuses %s on GET /openapi.json with 401', async (_, presented) => {
    const { error, response } = await api.GET('/openapi.json', { headers: bearer(presented) });
    expect({
      status: response.status,
      challenge: response.headers.get('www-authenticate'),
      error,
    }).toStrictEqual({
      status: 401,
      challenge: 'Bearer realm="items", error="invalid_token"',
      error: { error: 'Unauthorized' },
    });
  });
});
