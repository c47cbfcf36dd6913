// Contract §8 (v1.1) over HTTP: each of the contract's examples as written, and each option on words no other test
// uses, so that results on the shared table are predictable.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, eventually, type Reply } from '../support/http.ts';
import { tokenFor } from '../support/stack.ts';

const editor = tokenFor('editor');
const reader = tokenFor('reader');
/**
 * Letters only (hex digits mapped to a–p) and a final q: no Porter suffix ends in q, so the stemmer leaves the word and
 * its misspellings alone, and every edit below is a letter.
 */
const unique = () =>
  `zq${[...randomUUID().replaceAll('-', '').slice(0, 10)].map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('')}q`;

interface Result {
  rank: number;
  score: number;
  item: { id: number; name: string };
  matchedTerms: string[];
  highlights?: { field: string; text: string; matches: { start: number; end: number }[] }[];
}
/** The text of a span, in code points. */
const cut = (text: string, { start, end }: { start: number; end: number }) =>
  [...text].slice(start, end).join('');
const retrieve = (body: unknown) => call('POST', '/retrieve', { token: reader, body });
const results = (reply: Reply) => (reply.body as { results: Result[] }).results;
const ids = (reply: Reply) => results(reply).map((r) => r.item.id);

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
    // One edit away: a letter no such word holds (they have a–p and q) in the middle.
    const near = `${word.slice(0, 6)}x${word.slice(7)}`;
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
    // Two substitutions by another such letter: two edits from word, three from near.
    const twice = `${word.slice(0, 4)}y${word.slice(5, 8)}y${word.slice(9)}`;
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

describe('§8.1 where, §8.2 highlight and §8.5 passages over HTTP', () => {
  it('filters with the contract’s example expression, combined with filter by AND', async () => {
    const word = unique();
    const make = (attributes: Record<string, unknown>, tags = ['outdoor']) =>
      createItem({ name: `Tent ${word}`, tags, attributes });
    const acme = await make({ price: 99, brand: 'acme' });
    const red = await make({ price: 120, brand: 'other', color: 'red' });
    await make({ price: 121, brand: 'acme' }); // too dear
    await make({ price: 50, brand: 'other', color: 'green' }); // neither brand nor colour
    await make({ price: 50, brand: 'acme' }, ['indoor']); // not outdoor
    await make({ price: '50', brand: 'acme' }); // a price of another type never matches an ordering
    await eventually(async () => ids(await retrieve({ query: word, topK: 20 })).length === 6, 'indexed');
    const where = {
      andAll: [
        { listContains: { key: 'tags', value: 'outdoor' } },
        { lessThanOrEquals: { key: 'attributes.price', value: 120 } },
        {
          orAll: [
            { equals: { key: 'attributes.brand', value: 'acme' } },
            { in: { key: 'attributes.color', value: ['red', 'blue'] } },
          ],
        },
      ],
    };
    const reply = await retrieve({ query: word, topK: 20, where });
    expect(reply.status).toBe(200);
    expect(ids(reply).sort((a, b) => a - b)).toStrictEqual([acme.id, red.id]);
    const both = await retrieve({ query: word, topK: 20, where, filter: { attributes: { brand: 'acme' } } });
    expect(ids(both)).toStrictEqual([acme.id]);
    // notEquals matches an item that lacks the attribute.
    const lacking = await retrieve({
      query: word,
      topK: 20,
      where: { notEquals: { key: 'attributes.color', value: 'red' } },
    });
    expect(ids(lacking)).toHaveLength(5);
  });

  it('refuses a bad expression with 422 and the exact path', async () => {
    for (const [where, path] of [
      [
        {
          andAll: [
            { equals: { key: 'name', value: 'x' } },
            { greaterThan: { key: 'attributes.price', value: [1] } },
          ],
        },
        'where.andAll.1.greaterThan.value',
      ],
      [{ andAll: [{ equals: { key: 'name', value: 'x' } }] }, 'where.andAll'],
      [{ equals: { key: 'colour', value: 'x' } }, 'where.equals.key'],
      [{ nearTo: { key: 'name', value: 'x' } }, 'where.nearTo'],
      [{ equals: { key: 'tags', value: 'x' } }, 'where.equals.key'],
    ] as const) {
      const reply = await retrieve({ query: 'boot', where });
      expect(reply.status, JSON.stringify(where)).toBe(422);
      expect((reply.body as { details: { path: string }[] }).details.map((d) => d.path)).toContain(path);
    }
    const reply = await call('POST', '/generate', {
      token: reader,
      body: { query: 'boot', where: { orAll: [{ equals: { key: 'id', value: 1 } }] } },
    });
    expect(reply.status).toBe(422);
  });

  it('highlights the matched words of each field, as plain text with code-point spans', async () => {
    const word = unique();
    const description = `${'Filler words here. '.repeat(20)}The Café ${word} lantern — ﬁne and bright 🔦 for ${word} nights. ${'More filler text. '.repeat(20)}`;
    const item = await createItem({ name: `Lantern ${word}`, description, tags: ['outdoor', 'lantern'] });
    await eventually(async () => ids(await retrieve({ query: word })).includes(item.id), 'indexed');
    const plain = results(await retrieve({ query: `${word} lanterns` }))[0];
    expect(plain?.highlights).toBeUndefined();
    const [result] = results(await retrieve({ query: `${word} lanterns`, highlight: true }));
    expect(result?.item.id).toBe(item.id);
    const fields = result?.highlights ?? [];
    expect(fields.map((h) => h.field)).toStrictEqual(['name', 'description', 'tags']);
    const [name, passage, tags] = fields;
    expect(name?.text).toBe(`Lantern ${word}`);
    expect(name?.matches.map((m) => cut(name.text, m))).toStrictEqual(['Lantern', word]);
    expect(passage?.text.startsWith('…')).toBe(true);
    expect(passage?.text.endsWith('…')).toBe(true);
    expect([...(passage?.text ?? '')].length).toBeLessThanOrEqual(242);
    expect(passage?.matches.map((m) => cut(passage.text, m))).toStrictEqual([word, 'lantern', word]);
    expect(tags).toStrictEqual({ field: 'tags', text: 'outdoor, lantern', matches: [{ start: 9, end: 16 }] });
  });

  it('gives each citation of /generate the passage that supports it, and applies where to its retrieval', async () => {
    const word = unique();
    const long = `${'Plain words before it. '.repeat(15)}The ${word} stove boils water in three minutes. ${'Plain words after it. '.repeat(15)}`;
    const stove = await createItem({ name: `Stove ${word}`, description: long, attributes: { fuel: 'gas' } });
    const other = await createItem({
      name: `Burner ${word}`,
      description: 'No description words match.',
      attributes: { fuel: 'wood' },
    });
    await eventually(async () => ids(await retrieve({ query: word, topK: 5 })).length === 2, 'indexed');
    const reply = await call('POST', '/generate', {
      token: reader,
      body: { query: `Which ${word} boils water?` },
    });
    expect(reply.status).toBe(200);
    const citations = (reply.body as { citations: { itemId: number; passage: string }[] }).citations;
    const cited = citations.find((c) => c.itemId === stove.id);
    expect(cited?.passage).toContain(`The ${word} stove boils water in three minutes.`);
    expect(cited?.passage.startsWith('…')).toBe(true);
    expect([...(cited?.passage ?? '')].length).toBeLessThanOrEqual(242);
    const filtered = await call('POST', '/generate', {
      token: reader,
      body: { query: `Which ${word} burns?`, where: { equals: { key: 'attributes.fuel', value: 'wood' } } },
    });
    const only = (filtered.body as { citations: { itemId: number; passage: string }[] }).citations;
    expect(only.map((c) => c.itemId)).toStrictEqual([other.id]);
    // Its description does not match: the passage is its name.
    expect(only[0]?.passage).toBe(other.name);
  });
});
