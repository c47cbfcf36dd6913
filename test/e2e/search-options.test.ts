// Contract §8 (v1.1) over HTTP: each of the contract's examples as written, and each option on words no other test
// uses, so that results on the shared table are predictable.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, type Reply } from '../support/http.ts';
import { tokenFor } from '../support/stack.ts';

const editor = tokenFor('editor');
const reader = tokenFor('reader');
/** Letters only (hex digits mapped to a–p), so the stemmer leaves the word alone and every edit is a letter. */
const unique = () =>
  `zq${[...randomUUID().replaceAll('-', '').slice(0, 10)].map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('')}`;

interface Result {
  rank: number;
  score: number;
  item: { id: number; name: string };
  matchedTerms: string[];
}
const retrieve = (body: unknown) => call('POST', '/retrieve', { token: reader, body });
const results = (reply: Reply) => (reply.body as { results: Result[] }).results;
const ids = (reply: Reply) => results(reply).map((r) => r.item.id);

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 8000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}
async function createItem(body: Record<string, unknown>) {
  const reply = await call('POST', '/items', { token: editor, body });
  expect(reply.status).toBe(201);
  return reply.body as { id: number; name: string };
}

describe('§8.3 prefix and §8.4 typos over HTTP', () => {
  it('"hik" with prefix finds the items about hiking; "waterprof botts" with typos: 1 finds the waterproof boots', async () => {
    const marker = unique();
    const boots = await createItem({
      name: `Waterproof hiking boots ${marker}`,
      description: 'Leather boots for long hikes in the rain.',
      tags: ['outdoor'],
    });
    await eventually(async () => ids(await retrieve({ query: marker })).includes(boots.id), 'indexed');
    // Without the options neither query reaches it: "hik" and "waterprof" are no indexed terms of it.
    expect(ids(await retrieve({ query: 'hik', topK: 50 }))).not.toContain(boots.id);
    expect(ids(await retrieve({ query: 'waterprof', topK: 50 }))).not.toContain(boots.id);

    const hik = await retrieve({ query: 'hik', topK: 50, prefix: true });
    expect(hik.status).toBe(200);
    const found = results(hik).find((r) => r.item.id === boots.id);
    expect(found?.matchedTerms).toContain('hike');
    for (const result of results(hik))
      expect(result.matchedTerms.every((t) => t.startsWith('hik'))).toBe(true);

    const typo = await retrieve({ query: 'waterprof botts', topK: 50, typos: 1 });
    expect(typo.status).toBe(200);
    const corrected = results(typo).find((r) => r.item.id === boots.id);
    expect(corrected?.matchedTerms).toStrictEqual(expect.arrayContaining(['waterproof', 'boot']));
  });

  it('ranks an exact match above a corrected one, and completes the last word only', async () => {
    const word = unique();
    // One edit away: the last two letters swapped.
    const near = `${word.slice(0, -2)}${word.at(-1)}${word.at(-2)}`;
    const exact = await createItem({ name: `Lamp ${word}` });
    const other = await createItem({ name: `Lamp ${near}` });
    await eventually(
      async () => ids(await retrieve({ query: `${word} ${near}`, topK: 5 })).length === 2,
      'indexed',
    );
    const reply = await retrieve({ query: word, topK: 5, typos: 1 });
    expect(results(reply).map((r) => [r.item.id, r.matchedTerms])).toStrictEqual([
      [exact.id, [word]],
      [other.id, [near]],
    ]);
    // typos: 2 lets a 12-letter word reach two edits; typos: 0 (the default) none.
    // Two substitutions by a letter no such word holds (its letters are a–p): two edits from word, four from near.
    const twice = `${word.slice(0, 4)}y${word.slice(5, 7)}y${word.slice(8)}`;
    expect(ids(await retrieve({ query: twice, topK: 5, typos: 2 }))).toContain(exact.id);
    expect(ids(await retrieve({ query: twice, topK: 5, typos: 1 }))).toStrictEqual([]);
    expect(ids(await retrieve({ query: near.slice(0, 8), topK: 5 }))).toStrictEqual([]);
    // The prefix applies to the last word alone: as the first word it matches nothing.
    const completed = await retrieve({ query: `lamp ${word.slice(0, 8)}`, topK: 5, prefix: true });
    expect(ids(completed)).toStrictEqual(expect.arrayContaining([exact.id, other.id]));
    expect(ids(await retrieve({ query: `${word.slice(0, 8)} zzzz`, topK: 5, prefix: true }))).toStrictEqual(
      [],
    );
  });

  it('refuses options of the wrong type with 422 and the field', async () => {
    for (const [body, path] of [
      [{ query: 'boot', prefix: 'yes' }, 'prefix'],
      [{ query: 'boot', typos: 3 }, 'typos'],
      [{ query: 'boot', typos: 1.5 }, 'typos'],
    ] as const) {
      const reply = await retrieve(body);
      expect(reply.status).toBe(422);
      expect((reply.body as { details: { path: string }[] }).details.map((d) => d.path)).toStrictEqual([
        path,
      ]);
    }
    const reply = await call('POST', '/generate', { token: reader, body: { query: 'boot', typos: -1 } });
    expect(reply.status).toBe(422);
  });

  it('applies prefix and typos to the retrieval behind /generate', async () => {
    const word = unique();
    const item = await createItem({ name: `Kettle ${word}`, description: `The ${word} kettle boils fast.` });
    await eventually(async () => ids(await retrieve({ query: word })).includes(item.id), 'indexed');
    const typed = word.slice(0, 7);
    const plain = await call('POST', '/generate', { token: reader, body: { query: `which is ${typed}` } });
    expect(
      (plain.body as { citations: unknown[] }).citations.map((c) => (c as { itemId: number }).itemId),
    ).not.toContain(item.id);
    const reply = await call('POST', '/generate', {
      token: reader,
      body: { query: `which is ${typed}`, prefix: true },
    });
    expect(reply.status).toBe(200);
    expect((reply.body as { citations: { itemId: number }[] }).citations.map((c) => c.itemId)).toContain(
      item.id,
    );
  });
});
