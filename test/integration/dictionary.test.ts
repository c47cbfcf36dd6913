import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { TAIL_SK } from '../../lib/search/format/keys.ts';
import { createDictionary, type Dictionary } from '../../lib/search/read/dictionary.ts';
import { dictionaryInMemory, expandQuery } from '../../lib/search/read/expand.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { rankInMemory } from '../../lib/search/read/rank.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { ensureTable, localClient } from '../../scripts/local/dynamodb.ts';
import { seeded } from '../support/random.ts';
import { freshTable, stack } from '../support/stack.ts';

// Words in families a prefix reaches and words a typo or two apart, with a skewed frequency so some terms split into
// several blocks (and get a DF record) while others keep one.
const WORDS = (
  'hike hiker hiking hill hilltop hillside boot boots boat bot boost booth waterproof watertight water waterfall ' +
  'tent tents trail trial trails tail jacket jackets packet pocket rain rains brain grain snow snowshoe snowy ' +
  'stove store stone lantern pattern modern café cafe 北京 东京 naïve naive'
).split(' ');
const next = seeded(7);
const word = () => WORDS[Math.floor(WORDS.length * next() ** 2)] ?? 'boot';
const sentence = (length: number) => Array.from({ length }, word).join(' ');
/** A word of its own for item `i` (a term with one posting, or a few: one block, its only record the entry). */
const rare = (i: number) =>
  `zq${String.fromCodePoint(97 + (i % 26))}${String.fromCodePoint(97 + Math.floor(i / 26))}`;

let table: Awaited<ReturnType<typeof freshTable>>;
let items: ItemRepository;
let dictionary: Dictionary;
const corpus = new Map<number, Item>();

/** Every indexed term with its df, from the items themselves. */
function vocabulary(): Map<string, number> {
  const df = new Map<string, number>();
  for (const item of corpus.values())
    for (const term of new Set(tokenize(itemText(item)))) df.set(term, (df.get(term) ?? 0) + 1);
  return df;
}

beforeAll(async () => {
  table = await freshTable();
  items = createItemRepository(table);
  dictionary = createDictionary(table);
  // Blocks of three postings: common terms split (their DF record is their dictionary entry), rare ones do not.
  const indexer = createIndexer({ ...table, items, blockCapacity: 3 });
  for (let i = 0; i < 90; i++) {
    const item = await items.create({
      name: sentence(1 + Math.floor(next() * 3)),
      description: `${sentence(Math.floor(next() * 25))} ${rare(i)} ${rare(i % 7)}`,
      tags: [word()].filter((tag) => /^[a-z]+$/.test(tag)),
      attributes: {},
    });
    corpus.set(item.id, item);
  }
  const ids = [...corpus.keys()];
  for (let start = 0; start < ids.length; start += 30)
    await indexer.reindexItems(ids.slice(start, start + 30));
  // Deletions and edits: terms lose postings, some all of them (a one-block term's entry goes with its block, a
  // split term's DF record stays at df 0 and is no entry), and edits bring new terms.
  const changed: number[] = [];
  for (const id of ids.filter((id) => id % 4 === 0)) {
    await items.delete(id);
    corpus.delete(id);
    changed.push(id);
  }
  for (const id of ids.filter((id) => id % 4 === 1)) {
    const edited = await items.update(id, (current) => ({
      name: current.name,
      description: `${sentence(4)} lanterns modernist`,
      tags: current.tags,
      attributes: current.attributes,
    }));
    corpus.set(id, edited);
    changed.push(id);
  }
  await indexer.reindexItems(changed);
}, 180_000);

describe('the term dictionary', () => {
  it('lists exactly the indexed terms with their dfs, by prefix and by length', async () => {
    const expected = vocabulary();
    expect(expected.size).toBeGreaterThan(60);
    // Both kinds of entry are there: terms of one block (at most three postings) and split terms.
    expect([...expected.values()].filter((df) => df <= 3).length).toBeGreaterThan(40);
    expect([...expected.values()].filter((df) => df > 3).length).toBeGreaterThan(20);
    const reference = dictionaryInMemory(expected);
    const prefixes = new Set(
      [...expected.keys()].flatMap((t) => [[...t].slice(0, 2).join(''), [...t].slice(0, 3).join('')]),
    );
    for (const prefix of prefixes) {
      if ([...prefix].length < 2) continue;
      expect(await dictionary.withPrefix(prefix), prefix).toStrictEqual(await reference.withPrefix(prefix));
    }
    // The length index holds keys only: its terms with a df above 0 are exactly the indexed ones.
    const zero = await splitTermsAtZero();
    for (let length = 1; length <= 12; length++) {
      const listed = await dictionary.ofLength(length);
      const dfs = await dictionary.dfOf(listed);
      expect(
        listed.filter((term) => (dfs.get(term) ?? 0) > 0),
        `length ${length}`,
      ).toStrictEqual(await reference.ofLength(length));
      for (const term of listed) expect(dfs.get(term)).toBe(expected.get(term) ?? 0);
      for (const term of listed.filter((t) => !expected.has(t))) expect(zero.has(`T#${term}`)).toBe(true);
    }
  });

  const cases = [
    ['hik', { prefix: true }],
    ['boot hi', { prefix: true }],
    ['wa', { prefix: true }],
    ['waterprof botts', { typos: 1 }],
    ['wtrproof', { typos: 2 }],
    ['tral jackt', { typos: 1 }],
    ['lanter modrn', { typos: 2 }],
    ['snwo sto', { typos: 1, prefix: true }],
    ['cafe naive', { typos: 1 }],
    ['北', { prefix: true, typos: 2 }],
    ['zq', { prefix: true }],
    ['zqab zqzz', { typos: 1 }],
  ] as const;

  it.each(cases)('expands %j %j exactly as over every indexed term', async (query, options) => {
    const fromTable = await expandQuery(query, options, dictionary);
    const exhaustive = await expandQuery(query, options, dictionaryInMemory(vocabulary()));
    expect([...fromTable.weights]).toStrictEqual([...exhaustive.weights]);
    expect(fromTable.weights.size).toBeGreaterThan(tokenize(query).length - 1);
  });

  it.each(cases)(
    'retrieves for %j %j exactly the exhaustive BM25 ranking of the expanded query',
    async (query, options) => {
      const retrieve = createRetriever({
        search: createSearch({ ...table, blocksPerRound: 2, maxBlocks: Number.POSITIVE_INFINITY }),
        items,
        dictionary,
      });
      const { weights, groups } = await expandQuery(query, options, dictionaryInMemory(vocabulary()));
      const expected = rankInMemory(
        [...corpus.values()].map((item) => ({ id: item.id, tokens: tokenize(itemText(item)) })),
        weights,
        10,
        groups,
      );
      const { results } = await retrieve({ query, topK: 10, minScore: 0, ...options });
      expect(results.map((r) => r.item.id)).toStrictEqual(expected.map((r) => r.id));
      results.forEach((result, i) => {
        expect(Math.abs(result.score - (expected[i]?.score ?? 0)) / result.score).toBeLessThan(1e-9);
        expect(result.matchedTerms).toStrictEqual(expected[i]?.matchedTerms);
      });
    },
  );

  it("scores a word's completions and corrections as one term: an item holding several scores their best (contract §8.6)", async () => {
    const retrieve = createRetriever({
      search: createSearch({ ...table, maxBlocks: Number.POSITIVE_INFINITY }),
      items,
      dictionary,
    });
    const docs = [...corpus.values()].map((item) => ({ id: item.id, tokens: tokenize(itemText(item)) }));
    for (const [query, options] of [
      ['hil', { prefix: true }],
      ['hikr', { typos: 1 }],
    ] as const) {
      const { weights, groups } = await expandQuery(query, options, dictionaryInMemory(vocabulary()));
      const summed = new Map(rankInMemory(docs, weights, corpus.size).map((hit) => [hit.id, hit.score]));
      const { results } = await retrieve({ query, topK: corpus.size, minScore: 0, ...options });
      // Items that hold two alternatives of the word: they score the best one, below the sum of both.
      const several = results.filter((result) => result.matchedTerms.length > 1);
      expect(several.length, query).toBeGreaterThan(0);
      for (const result of several) {
        const best = Math.max(
          ...result.matchedTerms.map(
            (term) =>
              rankInMemory(docs, new Map([[term, weights.get(term) ?? 0]]), corpus.size).find(
                (hit) => hit.id === result.item.id,
              )?.score ?? 0,
          ),
        );
        expect(new Set(result.matchedTerms.map((term) => groups.get(term))).size).toBe(1);
        expect(Math.abs(result.score - best) / best).toBeLessThan(1e-9);
        expect(summed.get(result.item.id) ?? 0).toBeGreaterThan(result.score * (1 + 1e-6));
      }
    }
  });

  it('finds the hiking items for "hik" only with prefix, and the waterproof boots for a typo only with typos', async () => {
    const retrieve = createRetriever({ search: createSearch(table), items, dictionary });
    const hik = await retrieve({ query: 'hik', topK: 5, minScore: 0 });
    expect(hik.results).toStrictEqual([]);
    const completed = await retrieve({ query: 'hik', topK: 5, minScore: 0, prefix: true });
    expect(completed.results.length).toBeGreaterThan(0);
    for (const result of completed.results)
      expect(result.matchedTerms.some((t) => t.startsWith('hik'))).toBe(true);
    expect((await retrieve({ query: 'waterprof', topK: 5, minScore: 0 })).results).toStrictEqual([]);
    const corrected = await retrieve({ query: 'waterprof', topK: 5, minScore: 0, typos: 1 });
    expect(corrected.results[0]?.matchedTerms).toContain('waterproof');
  });
});

/** Terms that lost every posting from a sealed block: their tail stays, at df 0, an entry the dictionary skips. */
async function splitTermsAtZero(): Promise<Set<string>> {
  const { Items = [] } = await table.client.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'sk = :tail AND df = :zero AND attribute_exists(wt)',
      ExpressionAttributeValues: { ':tail': TAIL_SK, ':zero': 0 },
    }),
  );
  return new Set(Items.map((item) => String(item.pk)));
}

describe('a table made before the dictionary (npm start keeps its data under .local/)', () => {
  it('is refused by ensureTable with what to do', async () => {
    const raw = localClient(stack.dynamodbEndpoint);
    const tableName = `old-${randomUUID()}`;
    await raw.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    await expect(ensureTable(raw, tableName)).rejects.toThrow(
      /lacks the index\(es\) terms-by-prefix, terms-by-length.*rm -rf \.local\/dynamodb/,
    );
    raw.destroy();
  });
});
