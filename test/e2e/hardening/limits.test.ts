// Issue #6, part 5: resource limits (OWASP API4) at their exact boundaries, over HTTP. The limits that
// test/e2e/items.test.ts already covers (413 at 70 KB on create, limit=0/101, a patch past 20 attributes)
// are not repeated; this covers the other side of each boundary and the rest of the endpoints.
import { describe, expect, it } from 'vitest';
import {
  INVALID_TOKEN,
  JSON_TYPE,
  MAX_AUTHORIZATION_BYTES,
  MAX_BODY_BYTES,
} from '../../hardening/contract.ts';
import { errorReply, expectItem, httpClient, type Reply, summary } from '../../hardening/http.ts';
import { tokenOfHeaderLength } from '../../hardening/tokens.ts';
import { stack, tokenFor } from '../../support/stack.ts';

const request = httpClient(stack.baseUrl);
const editor = tokenFor('editor');
const reader = tokenFor('reader');

interface Item {
  id: number;
  version: number;
}

const invalid = (path: string) =>
  errorReply(422, { error: 'Validation failed', details: [{ path, message: expect.any(String) }] });
const tooLarge = errorReply(413, { error: `Request body exceeds ${MAX_BODY_BYTES} bytes` });

/** `{"name":"…"}` padded with JSON whitespace to exactly `bytes` bytes. */
const paddedBody = (bytes: number, fields: Record<string, unknown> = { name: 'limit padded' }) => {
  const json = JSON.stringify(fields);
  return `${json}${' '.repeat(bytes - Buffer.byteLength(json))}`;
};

async function create(body: Record<string, unknown>): Promise<Item> {
  const reply = await request('POST', '/items', { token: editor, body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body as Item;
}

const n = (count: number, make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i));
const attributes = (count: number) => Object.fromEntries(n(count, (i) => `k${i}`).map((k, i) => [k, i]));

describe('body size (64 KiB)', () => {
  it('accepts a body of exactly 64 KiB and refuses one byte more with 413', async () => {
    const exact = await request('POST', '/items', { token: editor, raw: paddedBody(MAX_BODY_BYTES) });
    expect(exact.status, exact.text).toBe(201);
    const over = await request('POST', '/items', { token: editor, raw: paddedBody(MAX_BODY_BYTES + 1) });
    expect(summary(over)).toStrictEqual(tooLarge);
  });

  it('counts bytes, not characters: 64 KiB of emoji is over the limit', async () => {
    const description = '😀'.repeat(MAX_BODY_BYTES / 4);
    const reply = await request('POST', '/items', { token: editor, body: { name: 'emoji', description } });
    expect(summary(reply)).toStrictEqual(tooLarge);
  });

  it('refuses a body one byte over 64 KiB with 413 on every endpoint with a body, changing nothing', async () => {
    const item = await create({ name: 'limit target' });
    const before = (await request('GET', `/items/${item.id}`)).body;
    const cases: [string, string, string, Record<string, string>][] = [
      ['PUT', `/items/${item.id}`, editor, {}],
      ['PATCH', `/items/${item.id}`, editor, { 'content-type': 'application/merge-patch+json' }],
      ['POST', '/retrieve', reader, {}],
      ['POST', '/generate', reader, {}],
    ];
    for (const [method, path, token, headers] of cases) {
      const raw = paddedBody(MAX_BODY_BYTES + 1, method === 'POST' ? { query: 'boot' } : { name: 'changed' });
      expect(
        summary(await request(method, path, { token, raw, headers })),
        `${method} ${path}`,
      ).toStrictEqual(tooLarge);
    }
    expect((await request('GET', `/items/${item.id}`)).body).toStrictEqual(before);
  });

  it('stores and returns an item at every field limit at once, whole (about 62 KB of UTF-8)', async () => {
    const body = {
      name: '😀'.repeat(200),
      description: '😀'.repeat(5000),
      tags: n(20, (i) => `${String(i).padStart(2, '0')}${'t'.repeat(48)}`),
      attributes: Object.fromEntries(
        n(20, (i) => `K${i}${'k'.repeat(62 - String(i).length)}`).map((key) => [key, '😀'.repeat(500)]),
      ),
    };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const created = await request('POST', '/items', { token: editor, body });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    expectItem(created.body, 'created at the limits');
    expect(created.body).toMatchObject(body);
    expect((await request('GET', `/items/${(created.body as Item).id}`)).body).toStrictEqual(created.body);
  });
});

describe('item field limits', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    [
      'name: 200 characters after trimming',
      { name: ` ${'n'.repeat(200)} ` },
      { name: 'n'.repeat(201) },
      'name',
    ],
    [
      'description: 5000 characters',
      { description: 'é'.repeat(5000) },
      { description: 'é'.repeat(5001) },
      'description',
    ],
    ['tags: 20', { tags: n(20, (i) => `t${i}`) }, { tags: n(21, (i) => `t${i}`) }, 'tags'],
    ['a tag: 50 characters', { tags: ['t'.repeat(50)] }, { tags: ['t'.repeat(51)] }, 'tags.0'],
    ['attributes: 20 keys', { attributes: attributes(20) }, { attributes: attributes(21) }, 'attributes'],
    [
      'an attribute key: 64 characters',
      { attributes: { [`K${'k'.repeat(63)}`]: 1 } },
      { attributes: { [`K${'k'.repeat(64)}`]: 1 } },
      `attributes.K${'k'.repeat(64)}`,
    ],
    [
      'an attribute value: 500 characters',
      { attributes: { a: '😀'.repeat(500) } },
      { attributes: { a: '😀'.repeat(501) } },
      'attributes.a',
    ],
  ];

  it.each(cases)('%s: at the limit 201, one over 422 on create and on replace', async (_, ok, over, path) => {
    const item = await create({ name: 'limits', ...ok });
    expect(
      summary(await request('POST', '/items', { token: editor, body: { name: 'limits', ...over } })),
    ).toStrictEqual(invalid(path));
    const replaced = await request('PUT', `/items/${item.id}`, {
      token: editor,
      body: { name: 'limits', ...over },
    });
    expect(summary(replaced)).toStrictEqual(invalid(path));
    expect(((await request('GET', `/items/${item.id}`)).body as Item).version).toBe(1);
  });
});

describe('list limit', () => {
  it('serves limit=100 and limit=1 (0 and 101 are refused, see items.test.ts)', async () => {
    await create({ name: 'limit page' });
    const hundred = await request('GET', '/items?limit=100');
    expect(hundred.status).toBe(200);
    const page = hundred.body as Item[];
    expect(page.length).toBeGreaterThan(0);
    expect(page.length).toBeLessThanOrEqual(100);
    const one = await request('GET', '/items?limit=1');
    expect(one.status).toBe(200);
    expect((one.body as Item[]).length).toBe(1);
    expect(one.headers.get('link')).toMatch(/^<\/items\?limit=1&cursor=[^>]+>; rel="next"$/);
  });
});

describe('retrieve and generate limits', () => {
  const post = (path: string, body: unknown) => request('POST', path, { token: reader, body });
  const ok = (reply: Reply) => ({ status: reply.status, contentType: reply.headers.get('content-type') });
  const OK = { status: 200, contentType: JSON_TYPE };

  it.each([
    ['/retrieve', 50],
    ['/generate', 20],
  ] as const)('%s topK: 1 and %i are served; 0, one over, 1.5 and "5" are 422', async (path, max) => {
    for (const topK of [1, max])
      expect(ok(await post(path, { query: 'boot', topK })), `topK ${topK}`).toStrictEqual(OK);
    for (const topK of [0, max + 1, 1.5, '5', -1]) {
      expect(summary(await post(path, { query: 'boot', topK })), `topK ${topK}`).toStrictEqual(
        invalid('topK'),
      );
    }
  });

  it.each([
    ['/retrieve', 500],
    ['/generate', 2000],
  ] as const)(
    '%s query: %i characters (after trimming, emoji counted once) served; one more is 422',
    async (path, max) => {
      for (const query of ['b'.repeat(max), `  ${'b'.repeat(max)}  `, '😀'.repeat(max)]) {
        expect(ok(await post(path, { query })), `${query.length} UTF-16 units`).toStrictEqual(OK);
      }
      for (const query of ['b'.repeat(max + 1), '😀'.repeat(max + 1), '   ', '']) {
        expect(summary(await post(path, { query })), `${query.length} UTF-16 units`).toStrictEqual(
          invalid('query'),
        );
      }
    },
  );

  it('generate maxTokens: 1 and 2048 are served; 0 and 2049 are 422', async () => {
    for (const maxTokens of [1, 2048])
      expect(ok(await post('/generate', { query: 'boot', maxTokens }))).toStrictEqual(OK);
    for (const maxTokens of [0, 2049]) {
      expect(summary(await post('/generate', { query: 'boot', maxTokens }))).toStrictEqual(
        invalid('maxTokens'),
      );
    }
  });
});

describe('Authorization header size (8 KB)', () => {
  it('accepts a valid token in a header of exactly 8 KB and refuses a valid one of 8 KB + 1 with 401', async () => {
    const exact = tokenOfHeaderLength(stack.issuer, ['editor'], MAX_AUTHORIZATION_BYTES);
    const over = tokenOfHeaderLength(stack.issuer, ['editor'], MAX_AUTHORIZATION_BYTES + 1);
    const accepted = await request('POST', '/items', { token: exact, body: { name: 'big token' } });
    expect(accepted.status, accepted.text).toBe(201);
    for (const [method, path, body] of [
      ['POST', '/items', { name: 'too big a token' }],
      ['GET', '/items', undefined],
    ] as const) {
      const refused = await request(method, path, { token: over, ...(body === undefined ? {} : { body }) });
      expect({ ...summary(refused), auth: refused.headers.get('www-authenticate') }).toStrictEqual({
        ...errorReply(401, { error: 'Unauthorized' }),
        auth: INVALID_TOKEN,
      });
    }
  });
});
