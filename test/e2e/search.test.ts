import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NO_MATCH_ANSWER } from '../../lib/generate/citations.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { rebuildIndex } from '../../lib/search/operations/rebuild.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { call, eventually, type Reply } from '../support/http.ts';
import { documentClient, stack, token, tokenFor } from '../support/stack.ts';

const editor = tokenFor('editor');
const reader = tokenFor('reader');
const admin = tokenFor('admin');
/** A word no other test uses, so results are predictable on the shared table. */
const unique = () => `zq${randomUUID().replaceAll('-', '').slice(0, 10)}`;

const retrieve = (body: unknown, t = reader) => call('POST', '/retrieve', { token: t, body });
const ids = (reply: Reply) =>
  (reply.body as { results: { item: { id: number } }[] }).results.map((r) => r.item.id);

async function createItem(body: Record<string, unknown>) {
  const reply = await call('POST', '/items', { token: editor, body });
  expect(reply.status).toBe(201);
  return reply.body as { id: number; name: string; version: number };
}

describe('POST /retrieve over HTTP', () => {
  it('filters on the attribute keys constructor and prototype like any other', async () => {
    const word = unique();
    const match = await createItem({
      name: `Kettle ${word}`,
      attributes: { constructor: 'acme', prototype: 2 },
    });
    await createItem({ name: `Kettle ${word}`, attributes: { constructor: 'other', prototype: 2 } });
    await createItem({ name: `Kettle ${word}`, attributes: {} });
    await eventually(async () => ids(await retrieve({ query: word, topK: 10 })).length === 3, 'indexed');
    const reply = await retrieve({
      query: word,
      topK: 10,
      filter: { attributes: { constructor: 'acme', prototype: 2 } },
    });
    expect(reply.status).toBe(200);
    expect(ids(reply)).toStrictEqual([match.id]);
  });
  it('finds a created item, ranked and scored, with its matched terms', async () => {
    const word = unique();
    const strong = await createItem({
      name: `Trail Boot ${word}`,
      description: `A ${word} boot. ${word} all day.`,
      tags: ['outdoor'],
    });
    const weak = await createItem({
      name: 'Rain Jacket',
      description: `Mentions ${word} once among many other words here.`,
    });
    await eventually(async () => ids(await retrieve({ query: word })).length === 2, 'both items indexed');
    type Results = {
      query: string;
      results: { rank: number; score: number; item: { id: number }; matchedTerms: string[] }[];
    };
    const reply = await retrieve({ query: word, topK: 5 });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = reply.body as Results;
    expect(body.query).toBe(word);
    expect(body.results.map((r) => [r.rank, r.item.id, r.matchedTerms])).toStrictEqual([
      [1, strong.id, [word]],
      [2, weak.id, [word]],
    ]);
    expect(body.results[0]?.score).toBeGreaterThan(body.results[1]?.score ?? Number.POSITIVE_INFINITY);
    // With a common term too, the item holding both leads, and its matched terms are the stemmed query terms.
    const both = (await retrieve({ query: `${word} boots`, topK: 50 })).body as Results;
    expect(both.results[0]).toMatchObject({ rank: 1, item: { id: strong.id }, matchedTerms: [word, 'boot'] });
    expect(both.results.map((r) => r.rank)).toStrictEqual(both.results.map((_, i) => i + 1));
    const scores = both.results.map((r) => r.score);
    expect(scores).toStrictEqual([...scores].sort((a, b) => b - a));
    expect(body.results[0]?.item).toStrictEqual((await call('GET', `/items/${strong.id}`)).body);
  });

  it('applies tag and attribute filters, topK and minScore', async () => {
    const word = unique();
    const a = await createItem({
      name: `${word} one`,
      tags: ['outdoor', 'rain'],
      attributes: { brand: 'acme', size: 42 },
    });
    const b = await createItem({
      name: `${word} two`,
      tags: ['outdoor'],
      attributes: { brand: 'acme', size: '42' },
    });
    await createItem({ name: `${word} three`, tags: ['indoor'], attributes: { brand: 'other' } });
    await eventually(
      async () => ids(await retrieve({ query: word, topK: 10 })).length === 3,
      'three items indexed',
    );
    expect(ids(await retrieve({ query: word, filter: { tags: ['outdoor', 'RAIN'] } }))).toStrictEqual([a.id]);
    expect(ids(await retrieve({ query: word, filter: { tags: ['outdoor'] } })).sort()).toStrictEqual(
      [a.id, b.id].sort(),
    );
    expect(
      ids(await retrieve({ query: word, filter: { attributes: { brand: 'acme', size: 42 } } })),
    ).toStrictEqual([a.id]);
    expect(ids(await retrieve({ query: word, topK: 1 }))).toHaveLength(1);
    expect(ids(await retrieve({ query: word, minScore: 1000 }))).toStrictEqual([]);
  });

  it('answers results: [] when nothing matches', async () => {
    const reply = await retrieve({ query: `${unique()} ${unique()}` });
    expect({ status: reply.status, body: reply.body }).toStrictEqual({
      status: 200,
      body: { query: (reply.body as { query: string }).query, results: [] },
    });
  });

  it('finds an updated item by its new words and not its old ones, and a deleted one no more within 2 s, also after a reindex', async () => {
    const [before, after] = [unique(), unique()];
    const item = await createItem({ name: `Lamp ${before}` });
    await eventually(async () => ids(await retrieve({ query: before })).includes(item.id), 'indexed');
    expect(
      (await call('PATCH', `/items/${item.id}`, { token: editor, body: { name: `Lamp ${after}` } })).status,
    ).toBe(200);
    await eventually(
      async () => ids(await retrieve({ query: after })).includes(item.id),
      'new words indexed',
    );
    // A container serves a query's answer again for up to ANSWER_CACHE_MS (answers.ts): within the contract's 2 s.
    await eventually(
      async () => ids(await retrieve({ query: before })).length === 0,
      'old words gone',
      2_000,
    );
    expect((await call('DELETE', `/items/${item.id}`, { token: admin })).status).toBe(204);
    await eventually(async () => ids(await retrieve({ query: after })).length === 0, 'deleted', 2_000);
    const client = documentClient();
    const items = createItemRepository({ client, tableName: stack.tableName });
    await rebuildIndex({
      client,
      tableName: stack.tableName,
      indexer: createIndexer({ client, tableName: stack.tableName, items }),
    });
    client.destroy();
    expect(ids(await retrieve({ query: after }))).toStrictEqual([]);
    expect(ids(await retrieve({ query: before }))).toStrictEqual([]);
  });

  it.each([
    [{}, 'query', 'is required'],
    [{ query: '   ' }, 'query', 'must not be empty'],
    [{ query: 'x'.repeat(501) }, 'query', 'must be at most 500 characters'],
    [{ query: 'x', topK: 0 }, 'topK', 'must be at least 1'],
    [{ query: 'x', topK: 51 }, 'topK', 'must be at most 50'],
    [{ query: 'x', topK: 1.5 }, 'topK', 'must be an integer'],
    [{ query: 'x', minScore: -1 }, 'minScore', 'must be at least 0'],
    [
      { query: 'x', filter: { tags: ['Not Valid'] } },
      'filter.tags.0',
      'must be 1-50 characters of a-z, 0-9 and -',
    ],
    [{ query: 'x', filter: { colour: 'red' } }, 'filter.colour', 'is not an accepted field'],
    [{ query: 'x', extra: 1 }, 'extra', 'is not an accepted field'],
    [{ query: 'x', filter: { attributes: [] } }, 'filter.attributes', 'must be an object'],
    [
      JSON.parse('{"query":"x","filter":{"attributes":{"__proto__":"x"}}}'),
      'filter.attributes.__proto__',
      'key must match ^[A-Za-z][A-Za-z0-9_]{0,63}$',
    ],
  ])('refuses %j with 422 at %s', async (body, path, message) => {
    const reply = await retrieve(body);
    expect({ status: reply.status, body: reply.body }).toStrictEqual({
      status: 422,
      body: { error: 'Validation failed', details: [{ path, message }] },
    });
  });

  it('admits reader, editor and admin; 401 without a token; 403 without a role', async () => {
    for (const role of ['reader', 'editor', 'admin'] as const)
      expect((await retrieve({ query: 'boot' }, tokenFor(role))).status).toBe(200);
    expect((await call('POST', '/retrieve', { body: { query: 'boot' } })).status).toBe(401);
    expect((await retrieve({ query: 'boot' }, token())).status).toBe(403);
  });
});

describe('POST /generate over HTTP (extractive generator)', () => {
  it('answers from the retrieved items with citations that resolve', async () => {
    const word = unique();
    const item = await createItem({
      name: `Storm Shell ${word}`,
      description: `The Storm Shell keeps you dry on ${word} hikes. It packs small.`,
      tags: ['outdoor'],
    });
    await eventually(async () => ids(await retrieve({ query: word })).includes(item.id), 'indexed');
    const reply = await call('POST', '/generate', {
      token: reader,
      body: { query: `What keeps me dry on ${word} hikes?`, maxTokens: 100 },
    });
    expect(reply.status).toBe(200);
    const body = reply.body as Record<string, unknown> & {
      answer: string;
      citations: { ref: number; itemId: number }[];
    };
    // Our item holds the rare word, so it ranks first; other tests' items may be cited after it.
    expect(body.citations[0]).toStrictEqual({
      ref: 1,
      itemId: item.id,
      name: item.name,
      score: expect.any(Number),
      passage: `The Storm Shell keeps you dry on ${word} hikes. It packs small.`,
    });
    expect(body).toMatchObject({
      query: `What keeps me dry on ${word} hikes?`,
      grounded: true,
      model: 'extractive-v1',
      stopReason: 'end_turn',
      usage: {
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        totalTokens: expect.any(Number),
      },
    });
    expect(body.answer).toContain('keeps you dry');
    for (const marker of body.answer.matchAll(/\[(\d+)\]/g)) {
      expect(body.citations.map((c) => c.ref)).toContain(Number(marker[1]));
    }
  });

  it('answers grounded: false with the fixed answer when no item matches', async () => {
    const query = `Anything about ${unique()}?`;
    const reply = await call('POST', '/generate', { token: editor, body: { query } });
    expect({ status: reply.status, body: reply.body }).toStrictEqual({
      status: 200,
      body: {
        query,
        answer: NO_MATCH_ANSWER,
        grounded: false,
        citations: [],
        model: 'extractive-v1',
        stopReason: 'end_turn',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      },
    });
  });

  it.each([
    [{ query: 'x'.repeat(2001) }, 'query', 'must be at most 2000 characters'],
    [{ query: 'x', topK: 21 }, 'topK', 'must be at most 20'],
    [{ query: 'x', maxTokens: 0 }, 'maxTokens', 'must be at least 1'],
    [{ query: 'x', maxTokens: 2049 }, 'maxTokens', 'must be at most 2048'],
    [{ query: 'x', temperature: 1.5 }, 'temperature', 'must be at most 1'],
  ])('refuses %j with 422 at %s', async (body, path, message) => {
    const reply = await call('POST', '/generate', { token: reader, body });
    expect({ status: reply.status, body: reply.body }).toStrictEqual({
      status: 422,
      body: { error: 'Validation failed', details: [{ path, message }] },
    });
  });

  it('admits reader, editor and admin; 401 without a token; 403 without a role', async () => {
    const body = { query: 'boot' };
    for (const role of ['reader', 'editor', 'admin'] as const)
      expect((await call('POST', '/generate', { token: tokenFor(role), body })).status).toBe(200);
    expect((await call('POST', '/generate', { body })).status).toBe(401);
    expect((await call('POST', '/generate', { token: token(), body })).status).toBe(403);
  });
});
