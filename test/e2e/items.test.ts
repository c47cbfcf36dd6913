import { describe, expect, it } from 'vitest';
import { bodyTag } from '../../lib/http/middleware/caching.ts';
import { call, callWithHeaderLines, type Reply } from '../support/http.ts';
import { token, tokenFor } from '../support/stack.ts';

const editor = tokenFor('editor');
const admin = tokenFor('admin');
const reader = tokenFor('reader');
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const JSON_TYPE = 'application/json; charset=utf-8';

const create = async (body: Record<string, unknown> = { name: 'Trail Boot' }) => {
  const reply = await call('POST', '/items', { token: editor, body });
  expect(reply.status).toBe(201);
  return reply.body as { id: number; version: number; [key: string]: unknown };
};

const summary = (reply: Reply) => ({
  status: reply.status,
  contentType: reply.headers.get('content-type'),
  body: reply.body,
});
const error = (status: number, body: unknown) => ({ status, contentType: JSON_TYPE, body });

describe('items CRUD over HTTP', () => {
  it('creates an item: 201 with the whole item, Location and ETag', async () => {
    const reply = await call('POST', '/items', {
      token: editor,
      body: {
        name: '  Rain Jacket ',
        description: 'Keeps you dry',
        tags: ['Outdoor', 'rain'],
        attributes: { brand: 'acme', size: 3, light: true },
      },
    });
    const item = reply.body as { id: number };
    expect(summary(reply)).toStrictEqual({
      status: 201,
      contentType: JSON_TYPE,
      body: {
        id: item.id,
        name: 'Rain Jacket',
        description: 'Keeps you dry',
        tags: ['outdoor', 'rain'],
        attributes: { brand: 'acme', size: 3, light: true },
        createdAt: ISO,
        updatedAt: (reply.body as { createdAt: string }).createdAt,
        version: 1,
      },
    });
    expect(reply.headers.get('location')).toBe(`/items/${item.id}`);
    expect(reply.headers.get('etag')).toBe('"1"');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('reads an item with its ETag, anonymously', async () => {
    const item = await create();
    const reply = await call('GET', `/items/${item.id}`);
    expect(summary(reply)).toStrictEqual({ status: 200, contentType: JSON_TYPE, body: item });
    expect(reply.headers.get('etag')).toBe('"1"');
  });

  it('returns 404 with exactly {"error":"Item not found"} for an unknown item on every item operation', async () => {
    const unknown = '/items/900719925474099';
    for (const [method, options] of [
      ['GET', {}],
      ['PUT', { token: editor, body: { name: 'x' } }],
      ['PATCH', { token: editor, body: { name: 'x' } }],
      ['DELETE', { token: admin }],
    ] as const) {
      const reply = await call(method, unknown, options);
      expect(summary(reply)).toStrictEqual(error(404, { error: 'Item not found' }));
      expect(JSON.stringify(reply.body)).toBe('{"error":"Item not found"}');
    }
  });

  it('replaces an item: left-out fields return to defaults, version +1', async () => {
    const item = await create({ name: 'Boot', description: 'd', tags: ['a'], attributes: { k: 1 } });
    const reply = await call('PUT', `/items/${item.id}`, { token: editor, body: { name: 'Boot 2' } });
    expect(summary(reply)).toStrictEqual({
      status: 200,
      contentType: JSON_TYPE,
      body: {
        ...item,
        name: 'Boot 2',
        description: '',
        tags: [],
        attributes: {},
        updatedAt: ISO,
        version: 2,
      },
    });
    expect(reply.headers.get('etag')).toBe('"2"');
  });

  it('patches an item with JSON Merge Patch, also as application/merge-patch+json', async () => {
    const item = await create({
      name: 'Boot',
      description: 'd',
      tags: ['a'],
      attributes: { keep: 1, drop: 2 },
    });
    const reply = await call('PATCH', `/items/${item.id}`, {
      token: editor,
      raw: JSON.stringify({ description: null, attributes: { drop: null, add: 'x' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(summary(reply)).toStrictEqual({
      status: 200,
      contentType: JSON_TYPE,
      body: { ...item, description: '', attributes: { keep: 1, add: 'x' }, updatedAt: ISO, version: 2 },
    });
  });

  it('keeps the attribute keys constructor and prototype (they match the key rule) through create, read, patch and replace', async () => {
    const item = await create({
      name: 'Odd keys',
      attributes: { constructor: 'c', prototype: 1, plain: true },
    });
    expect(item.attributes).toStrictEqual({ constructor: 'c', prototype: 1, plain: true });
    expect((await call('GET', `/items/${item.id}`)).body).toStrictEqual(item);
    const patched = await call('PATCH', `/items/${item.id}`, {
      token: editor,
      body: { attributes: { constructor: null, prototype: 'p' } },
    });
    expect(patched.status).toBe(200);
    expect((patched.body as typeof item).attributes).toStrictEqual({ prototype: 'p', plain: true });
    const replaced = await call('PUT', `/items/${item.id}`, {
      token: editor,
      body: { name: 'Odd keys', attributes: { constructor: false } },
    });
    expect((replaced.body as typeof item).attributes).toStrictEqual({ constructor: false });
    expect((await call('GET', `/items/${item.id}`)).body).toStrictEqual(replaced.body);
  });

  it('leaves version and updatedAt alone for a patch that changes nothing', async () => {
    const item = await create({ name: 'Boot', tags: ['a'] });
    const reply = await call('PATCH', `/items/${item.id}`, {
      token: editor,
      body: { name: 'Boot', tags: ['A'] },
    });
    expect(summary(reply)).toStrictEqual({ status: 200, contentType: JSON_TYPE, body: item });
  });

  it('refuses "name": null and a patch that leaves more than 20 attributes', async () => {
    const attributes = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const item = await create({ name: 'Boot', attributes });
    expect(
      summary(await call('PATCH', `/items/${item.id}`, { token: editor, body: { name: null } })),
    ).toStrictEqual(
      error(422, { error: 'Validation failed', details: [{ path: 'name', message: 'must be a string' }] }),
    );
    expect(
      summary(
        await call('PATCH', `/items/${item.id}`, { token: editor, body: { attributes: { extra: true } } }),
      ),
    ).toStrictEqual(
      error(422, {
        error: 'Validation failed',
        details: [{ path: 'attributes', message: 'must have at most 20 keys' }],
      }),
    );
    expect((await call('GET', `/items/${item.id}`)).body).toStrictEqual(item);
  });

  it('deletes an item: 204 without a body, then 404', async () => {
    const item = await create();
    const reply = await call('DELETE', `/items/${item.id}`, { token: admin });
    expect(summary(reply)).toStrictEqual({ status: 204, contentType: null, body: '' });
    expect((await call('GET', `/items/${item.id}`)).status).toBe(404);
  });

  it('honours If-Match on replace, patch and delete: 412 when stale', async () => {
    const item = await create();
    const stale = { 'if-match': '"7"' };
    const failed = error(412, { error: 'Precondition failed' });
    expect(
      summary(await call('PUT', `/items/${item.id}`, { token: editor, body: { name: 'x' }, headers: stale })),
    ).toStrictEqual(failed);
    expect(
      summary(
        await call('PATCH', `/items/${item.id}`, { token: editor, body: { name: 'x' }, headers: stale }),
      ),
    ).toStrictEqual(failed);
    expect(
      summary(await call('DELETE', `/items/${item.id}`, { token: admin, headers: stale })),
    ).toStrictEqual(failed);
    const ok = await call('PATCH', `/items/${item.id}`, {
      token: editor,
      body: { name: 'y' },
      headers: { 'if-match': '"1"' },
    });
    expect(ok.status).toBe(200);
    expect(
      (await call('DELETE', `/items/${item.id}`, { token: admin, headers: { 'if-match': '"2"' } })).status,
    ).toBe(204);
  });
});

describe('listing', () => {
  it('follows Link headers through every item exactly once, in id order', async () => {
    const mine = new Set<number>();
    for (let i = 0; i < 7; i++) mine.add((await create({ name: `list ${i}` })).id);
    const seen: number[] = [];
    let next: string | undefined = '/items?limit=3';
    let pages = 0;
    while (next) {
      const reply = await call('GET', next);
      expect(reply.status).toBe(200);
      const ids = (reply.body as { id: number }[]).map((item) => item.id);
      expect(ids.length).toBeLessThanOrEqual(3);
      seen.push(...ids);
      const link = reply.headers.get('link');
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
      if (link) expect(next).toMatch(/^\/items\?limit=3&cursor=[^&]+$/);
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(seen).toStrictEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of mine) expect(seen).toContain(id);
  });

  it('serves /items/ as /items', async () => {
    const item = await create();
    const reply = await call('GET', '/items/?limit=100');
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
    expect((await call('POST', '/items/', { token: editor, body: { name: 'slash' } })).status).toBe(201);
    expect(item.id).toBeGreaterThan(0);
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=1.5',
    'cursor=forged',
    'cursor=c1.5.AAAAAAAAAAAAAAAAAAAAAA',
  ])('refuses %s with 422', async (query) => {
    const reply = await call('GET', `/items?${query}`);
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      error: 'Validation failed',
      details: [{ path: `query.${query.split('=')[0]}`, message: expect.any(String) }],
    });
  });
});

describe('conditional GETs and caching (contract §4.1)', () => {
  /** The response's status, cache headers and tag, and its raw body. */
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const reply = await call('GET', path, { headers });
    return {
      status: reply.status,
      etag: reply.headers.get('etag'),
      cacheControl: reply.headers.get('cache-control'),
      // The local gateway adds its own (origin, accept-encoding), as API Gateway's CORS may: Authorization must be there.
      variesOnAuthorization: (reply.headers.get('vary') ?? '')
        .split(',')
        .some((name) => name.trim() === 'Authorization'),
      body: reply.body,
    };
  };
  const PUBLIC = { cacheControl: 'public, max-age=0', variesOnAuthorization: true };

  it('tags a list page with a digest of its exact body, and answers 304 with no body while it is current', async () => {
    const page = await get('/items?limit=3');
    expect(page).toMatchObject({ status: 200, ...PUBLIC });
    expect(page.etag).toBe(bodyTag(JSON.stringify(page.body)));
    const again = await get('/items?limit=3', { 'if-none-match': page.etag ?? '' });
    // Other tests write to the shared table: the page may have changed meanwhile, and then it has a new tag.
    if (again.status === 200) expect(again.etag).toBe(bodyTag(JSON.stringify(again.body)));
    else expect(again).toStrictEqual({ status: 304, etag: page.etag, ...PUBLIC, body: '' });
    expect((await get('/items?limit=3', { 'if-none-match': '"no-such-tag"' })).status).toBe(200);
  });

  it('answers 304 for an item while If-None-Match names its version (or *), and 200 once it changed', async () => {
    const { id } = await create();
    expect(await get(`/items/${id}`, { 'if-none-match': '"1"' })).toStrictEqual({
      status: 304,
      etag: '"1"',
      ...PUBLIC,
      body: '',
    });
    expect((await get(`/items/${id}`, { 'if-none-match': '*' })).status).toBe(304);
    await call('PATCH', `/items/${id}`, { token: editor, body: { description: 'changed' } });
    expect(await get(`/items/${id}`, { 'if-none-match': '"1"' })).toMatchObject({ status: 200, etag: '"2"' });
    expect(await get('/items/999999999999', { 'if-none-match': '*' })).toMatchObject({
      status: 404,
      body: { error: 'Item not found' },
    });
  });

  it('keeps no-store for a request with Authorization, and for any other operation', async () => {
    const { id } = await create();
    const authorized = await call('GET', `/items/${id}`, {
      token: reader,
      headers: { 'if-none-match': '"1"' },
    });
    expect(authorized.status).toBe(304);
    expect(authorized.headers.get('cache-control')).toBe('no-store');
    expect(authorized.headers.get('vary') ?? '').not.toContain('Authorization');
    expect((await call('GET', '/items', { token: reader })).headers.get('cache-control')).toBe('no-store');
    const created = await call('POST', '/items', { token: editor, body: { name: 'Lamp' } });
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect((await get('/openapi.json')).cacheControl).toBe('public, max-age=0');
  });
});

describe('the role table (contract §3)', () => {
  const ids: Record<string, number> = {};
  const cases = [
    { op: 'list', method: 'GET', path: () => '/items', allowed: 'anyone', ok: 200 },
    { op: 'read', method: 'GET', path: () => `/items/${ids.read}`, allowed: 'anyone', ok: 200 },
    { op: 'create', method: 'POST', path: () => '/items', allowed: ['editor', 'admin'], ok: 201 },
    {
      op: 'replace',
      method: 'PUT',
      path: () => `/items/${ids.replace}`,
      allowed: ['editor', 'admin'],
      ok: 200,
    },
    {
      op: 'patch',
      method: 'PATCH',
      path: () => `/items/${ids.patch}`,
      allowed: ['editor', 'admin'],
      ok: 200,
    },
    { op: 'delete', method: 'DELETE', path: () => `/items/${ids.delete}`, allowed: ['admin'], ok: 204 },
  ] as const;

  for (const { op, method, path, allowed, ok } of cases) {
    it(`${method} ${op}: ${allowed === 'anyone' ? 'anyone' : allowed.join(', ')}`, async () => {
      const body =
        method === 'POST' || method === 'PUT' || method === 'PATCH' ? { name: `role ${op}` } : undefined;
      const send = (t?: string) =>
        call(method, path(), { ...(t ? { token: t } : {}), ...(body ? { body } : {}) });
      for (const role of ['reader', 'editor', 'admin', 'none', 'anonymous'] as const) {
        ids[op] = (await create({ name: `target ${op}` })).id;
        const reply = await send(
          role === 'anonymous' ? undefined : role === 'none' ? token() : tokenFor(role),
        );
        const permitted =
          allowed === 'anyone' ||
          (role !== 'none' && role !== 'anonymous' && (allowed as readonly string[]).includes(role));
        if (permitted) {
          expect(reply.status, `${role} may ${op}`).toBe(ok);
        } else if (role === 'anonymous') {
          expect({ ...summary(reply), auth: reply.headers.get('www-authenticate') }).toStrictEqual({
            ...error(401, { error: 'Unauthorized' }),
            auth: 'Bearer realm="items"',
          });
        } else {
          expect({ ...summary(reply), auth: reply.headers.get('www-authenticate') }).toStrictEqual({
            ...error(403, { error: 'Forbidden' }),
            auth: 'Bearer realm="items", error="insufficient_scope"',
          });
        }
      }
    });
  }
});

describe('statuses of contract §1', () => {
  it('400 for a body that is not JSON', async () => {
    expect(
      summary(
        await call('POST', '/items', {
          token: editor,
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        }),
      ),
    ).toStrictEqual(error(400, { error: 'Request body is not valid JSON' }));
  });

  it('400 for two Authorization values (as API Gateway joins them) and for an If-Match that is not a quoted version', async () => {
    expect(
      summary(
        await call('GET', '/items', { headers: { authorization: `Bearer ${editor}, Bearer ${admin}` } }),
      ),
    ).toStrictEqual(error(400, { error: 'Malformed Authorization header' }));
    const item = await create();
    for (const ifMatch of ['1', 'W/"1"', '*', '"abc"', '"1", "2"', '"0"', '"9007199254740992"']) {
      const reply = await call('DELETE', `/items/${item.id}`, {
        token: admin,
        headers: { 'if-match': ifMatch },
      });
      expect(summary(reply)).toStrictEqual(
        error(400, {
          error: 'If-Match must be a quoted version, like "3" (a positive integer, at most 9007199254740991)',
        }),
      );
    }
    expect((await call('GET', `/items/${item.id}`)).status).toBe(200);
    // The largest version is well-formed: a precondition that fails (412), not a malformed header.
    const largest = await call('DELETE', `/items/${item.id}`, {
      token: admin,
      headers: { 'if-match': '"9007199254740991"' },
    });
    expect(summary(largest)).toStrictEqual(error(412, { error: 'Precondition failed' }));
  });

  it('400 for two Authorization header lines, whichever comes first, as API Gateway joins them', async () => {
    const item = await create();
    for (const lines of [
      ['Bearer garbage', `Bearer ${admin}`],
      [`Bearer ${admin}`, 'Bearer garbage'],
      [`Bearer ${admin}`, `Bearer ${admin}`],
    ]) {
      const reply = await callWithHeaderLines('DELETE', `/items/${item.id}`, { authorization: lines });
      expect(reply, lines.join(' / ').slice(0, 40)).toStrictEqual({
        status: 400,
        contentType: JSON_TYPE,
        body: { error: 'Malformed Authorization header' },
      });
    }
    expect((await call('GET', `/items/${item.id}`)).status).toBe(200);
  });

  it('401 with error="invalid_token" for a bad token, even on public endpoints', async () => {
    for (const authorization of [
      'Bearer not.a.token',
      'Basic dXNlcjpwYXNz',
      'Bearer',
      `Bearer ${token({ groups: ['admin'], expiresIn: -10 })}`,
    ]) {
      const reply = await call('GET', '/items', { headers: { authorization } });
      expect({ ...summary(reply), auth: reply.headers.get('www-authenticate') }).toStrictEqual({
        ...error(401, { error: 'Unauthorized' }),
        auth: 'Bearer realm="items", error="invalid_token"',
      });
    }
  });

  it('accepts the bearer scheme in any case', async () => {
    expect(
      (await call('POST', '/items', { body: { name: 'x' }, headers: { authorization: `bEaReR ${editor}` } }))
        .status,
    ).toBe(201);
  });

  it('ignores serverless-offline authorizer overrides: only the token counts', async () => {
    const reply = await call('DELETE', '/items/1', {
      token: reader,
      headers: {
        'sls-offline-authorizer-override': JSON.stringify({
          jwt: { claims: { 'cognito:groups': ['admin'] } },
        }),
      },
    });
    expect(reply.status).toBe(403);
  });

  it('413 for a body over 64 KiB', async () => {
    const reply = await call('POST', '/items', {
      token: editor,
      body: { name: 'x', description: 'd'.repeat(70_000) },
    });
    expect(summary(reply)).toStrictEqual(error(413, { error: 'Request body exceeds 65536 bytes' }));
  });

  it('415 for a wrong or missing content type', async () => {
    const item = await create();
    const expected = error(415, { error: 'Content-Type must be application/json' });
    expect(
      summary(
        await call('POST', '/items', {
          token: editor,
          raw: '{"name":"x"}',
          headers: { 'content-type': 'text/plain' },
        }),
      ),
    ).toStrictEqual(expected);
    expect(
      summary(await call('PUT', `/items/${item.id}`, { token: editor, raw: '{"name":"x"}' })),
    ).toStrictEqual(expected);
    expect(
      summary(
        await call('PUT', `/items/${item.id}`, {
          token: editor,
          raw: '{"name":"x"}',
          headers: { 'content-type': 'application/merge-patch+json' },
        }),
      ),
    ).toStrictEqual(expected);
    expect(
      summary(
        await call('PATCH', `/items/${item.id}`, {
          token: editor,
          raw: '{"name":"x"}',
          headers: { 'content-type': 'application/xml' },
        }),
      ),
    ).toStrictEqual(
      error(415, { error: 'Content-Type must be application/json or application/merge-patch+json' }),
    );
  });

  it('422 listing every problem of the body, with the field paths', async () => {
    const reply = await call('POST', '/items', {
      token: editor,
      body: { name: '', tags: ['ok', 'Not OK'], attributes: { '9x': 1 }, id: 5 },
    });
    expect(summary(reply)).toStrictEqual(
      error(422, {
        error: 'Validation failed',
        details: [
          { path: 'name', message: 'must not be empty' },
          { path: 'tags.1', message: 'must be 1-50 characters of a-z, 0-9 and -' },
          { path: 'attributes.9x', message: 'key must match ^[A-Za-z][A-Za-z0-9_]{0,63}$' },
          { path: 'id', message: 'is not an accepted field' },
        ],
      }),
    );
  });

  it.each(['abc', '0', '-1', '1.5', '1e3', '01', '9007199254740992', '99999999999999999999'])(
    '422 for item_id %s',
    async (itemId) => {
      expect(summary(await call('GET', `/items/${itemId}`))).toStrictEqual(
        error(422, {
          error: 'Validation failed',
          details: [
            { path: 'path.item_id', message: 'must be a positive integer, at most 9007199254740991' },
          ],
        }),
      );
    },
  );

  it('404 for item_id 9007199254740991, the largest id', async () => {
    expect(summary(await call('GET', '/items/9007199254740991'))).toStrictEqual(
      error(404, { error: 'Item not found' }),
    );
  });
});

// serverless-offline starts a handler instance per request in flight, each loading its bundle: 50 at once take 13–16 s
// on a quiet 2-core machine and past the default 30 s when other suites load it. The timeout bounds the harness, not
// the service (its speed is measured by `npm run bench`), so these two get room.
describe('concurrency over HTTP', { timeout: 120_000 }, () => {
  it('gives 50 parallel creates 50 distinct ids', async () => {
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('POST', '/items', { token: editor, body: { name: `parallel ${i}` } }),
      ),
    );
    const unexpected = replies
      .filter((r) => r.status !== 201)
      .map((r) => ({ status: r.status, body: r.body }));
    expect(unexpected).toStrictEqual([]);
    expect(new Set(replies.map((r) => (r.body as { id: number }).id)).size).toBe(50);
  });

  it('lets exactly one of 20 parallel If-Match writes succeed; the other 19 get 412', async () => {
    const item = await create();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('PUT', `/items/${item.id}`, {
          token: editor,
          body: { name: `racer ${i}` },
          headers: { 'if-match': '"1"' },
        }),
      ),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toStrictEqual([200, ...Array(19).fill(412)]);
    const winner = replies.find((r) => r.status === 200)?.body;
    expect((await call('GET', `/items/${item.id}`)).body).toStrictEqual(winner);
  });
});

describe('Idempotency-Key over HTTP', () => {
  it('replays the first 201 for a repeat, refuses another body with 422 and a malformed key with 400', async () => {
    const key = `key-${Date.now()}-${Math.random()}`;
    const send = (body: unknown, k = key) =>
      call('POST', '/items', { token: editor, body, headers: { 'idempotency-key': k } });
    const first = await send({ name: 'Idempotent Boot' });
    const again = await send({ name: 'Idempotent Boot' });
    expect(first.status).toBe(201);
    expect({ status: again.status, body: again.body, location: again.headers.get('location') }).toStrictEqual(
      {
        status: 201,
        body: first.body,
        location: first.headers.get('location'),
      },
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(summary(await send({ name: 'Another Boot' }))).toStrictEqual(
      error(422, {
        error: 'Validation failed',
        details: [{ path: 'header.Idempotency-Key', message: 'was used with a different request body' }],
      }),
    );
    expect(summary(await send({ name: 'x' }, 'x'.repeat(256)))).toStrictEqual(
      error(400, { error: 'Idempotency-Key must be 1-255 visible ASCII characters' }),
    );
  });

  it('creates one item for a burst of identical requests', async () => {
    const key = `burst-${Date.now()}-${Math.random()}`;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('POST', '/items', {
          token: editor,
          body: { name: 'Burst' },
          headers: { 'idempotency-key': key },
        }),
      ),
    );
    const created = new Set(
      replies.filter((r) => r.status === 201).map((r) => (r.body as { id: number }).id),
    );
    expect(created.size).toBe(1);
    for (const reply of replies) expect([201, 409]).toContain(reply.status);
    const later = await call('POST', '/items', {
      token: editor,
      body: { name: 'Burst' },
      headers: { 'idempotency-key': key },
    });
    expect(later.status).toBe(201);
    expect(created.has((later.body as { id: number }).id)).toBe(true);
  });
});
