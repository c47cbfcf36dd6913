import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { decodeBlock } from '../../lib/search/format/blocks.ts';
import { queryWeights } from '../../lib/search/format/bm25.ts';
import { docKey } from '../../lib/search/format/keys.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { rankInMemory } from '../../lib/search/read/rank.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { matchesWhere } from '../../lib/search/read/where.ts';
import type { WhereExpression } from '../../lib/search/read/where-schema.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { seeded } from '../support/random.ts';
import { freshTable } from '../support/stack.ts';

// A deterministic corpus with a skewed vocabulary, so some posting lists are long and others short.
const VOCABULARY = [
  'boot',
  'rain',
  'jacket',
  'trail',
  'winter',
  'light',
  'tent',
  'stove',
  'water',
  'filter',
  'merino',
  'down',
  'sleeping',
  'pack',
  'camp',
  'night',
  'lamp',
  'sun',
  'hat',
  'glove',
  'snow',
  'ice',
  'rope',
  'map',
  'compass',
  'bottle',
  'knife',
  'fleece',
  'shell',
  'sock',
  'pole',
  'helmet',
  'bike',
  'yoga',
  'mat',
  'kettle',
  'coffee',
  'cup',
];
const next = seeded(42);
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 2)] ?? 'boot';
const sentence = (length: number) => Array.from({ length }, word).join(' ');

/** Read one block of four postings at a time. */
const ONE_BLOCK_PAGES = { pageBlocks: 1, laterPageBlocks: 1, blockCapacity: 4 } as const;
let items: ItemRepository;
let search: ReturnType<typeof createSearch>;
const corpus: Item[] = [];
let table: Awaited<ReturnType<typeof freshTable>>;

beforeAll(async () => {
  table = await freshTable();
  items = createItemRepository(table);
  // Blocks of four postings: lists span many blocks, as long lists do at the real capacity.
  const indexer = createIndexer({ ...table, items, blockCapacity: 4 });
  for (let i = 0; i < 160; i++) {
    const item = await items.create({
      name: sentence(1 + Math.floor(next() * 3)),
      description: sentence(Math.floor(next() * 60)),
      tags: [word(), `t${i % 7}`],
      attributes: { even: i % 2 === 0 },
    });
    corpus.push(item);
  }
  // In batches, as the stream consumer indexes: a batch adds many postings to a block at once, so blocks split in
  // several pieces and terms gain their DF record mid-batch.
  const ids = corpus.map((item) => item.id);
  for (let start = 0; start < ids.length; start += 50)
    await indexer.reindexItems(ids.slice(start, start + 50));
  // One block a page forces many rounds, so the early stop is exercised, not just the full read.
  search = createSearch({ ...table, ...ONE_BLOCK_PAGES });
}, 120_000);

const reference = (query: string, topK: number, keep: (item: Item) => boolean = () => true) =>
  rankInMemory(
    corpus.filter(keep).map((item) => ({ id: item.id, tokens: tokenize(itemText(item)) })),
    tokenize(query),
    topK,
  );

describe('BM25 search over the DynamoDB index', () => {
  const queries = [
    'boot',
    'rain jacket',
    'winter boot boot',
    'coffee kettle cup',
    'trail map compass',
    'snow ice rope',
    'yoga',
    'light light light tent',
    'the boot and the rain',
    'helmet bike night lamp sun hat glove',
  ];

  it.each(
    queries.flatMap(
      (q) =>
        [
          [q, 1],
          [q, 5],
          [q, 20],
        ] as const,
    ),
  )('gives exactly the exhaustive ranking for %j, top %i', async (query, topK) => {
    const hits = await search({
      terms: queryWeights(tokenize(query)),
      topK,
      minScore: 0,
      accept: async (ids) => new Set(ids),
    });
    const expected = reference(query, topK);
    expect(hits.map((h) => h.id)).toStrictEqual(expected.map((h) => h.id));
    hits.forEach((hit, i) => {
      expect(Math.abs(hit.score - (expected[i]?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
      expect(hit.matchedTerms).toStrictEqual(expected[i]?.matchedTerms);
    });
  });

  it('applies a filter exactly, reading on past rejected candidates', async () => {
    const retrieve = createRetriever({ search, items, dictionary: createDictionary(table) });
    const { results } = await retrieve({
      query: 'boot winter',
      topK: 7,
      minScore: 0,
      filter: { attributes: { even: false } },
    });
    const expected = reference('boot winter', 7, (item) => item.attributes.even === false);
    expect(results.map((r) => [r.rank, r.item.id])).toStrictEqual(expected.map((e, i) => [i + 1, e.id]));
    for (const result of results) expect(result.item.attributes.even).toBe(false);
  });

  it.each([
    { equals: { key: 'attributes.even', value: true } },
    {
      andAll: [
        { listContains: { key: 'tags', value: 't3' } },
        { orAll: [{ startsWith: { key: 'name', value: 'boot' } }, { lessThan: { key: 'id', value: 60 } }] },
      ],
    },
    { notIn: { key: 'name', value: ['boot', 'rain'] } },
  ] satisfies WhereExpression[])(
    'applies where %j exactly, filling the top k past rejected candidates',
    async (where) => {
      const retrieve = createRetriever({ search, items, dictionary: createDictionary(table) });
      const { results } = await retrieve({ query: 'boot winter rain', topK: 10, minScore: 0, where });
      // Ranked over the whole collection (its N and avgdl), then filtered.
      const byId = new Map(corpus.map((item) => [item.id, item]));
      const expected = reference('boot winter rain', corpus.length)
        .filter((hit) => matchesWhere(byId.get(hit.id) as Item, where))
        .slice(0, 10);
      expect(expected.length).toBeGreaterThan(0);
      expect(results.map((r) => r.item.id)).toStrictEqual(expected.map((e) => e.id));
    },
  );

  it('keeps only scores above minScore', async () => {
    const all = reference('rain jacket', 50);
    const threshold = all[Math.floor(all.length / 2)]?.score ?? 0;
    const hits = await search({
      terms: queryWeights(tokenize('rain jacket')),
      topK: 50,
      minScore: threshold,
      accept: async (ids) => new Set(ids),
    });
    expect(hits.map((h) => h.id)).toStrictEqual(all.filter((h) => h.score > threshold).map((h) => h.id));
  });

  it('finds nothing for unknown or stopword-only queries', async () => {
    const retrieve = createRetriever({ search, items, dictionary: createDictionary(table) });
    expect(await retrieve({ query: 'xylophone', topK: 5, minScore: 0 })).toStrictEqual({
      query: 'xylophone',
      results: [],
    });
    expect(await retrieve({ query: 'the and of', topK: 5, minScore: 0 })).toStrictEqual({
      query: 'the and of',
      results: [],
    });
  });
});

/** A one-shot signal; `sent()` fails after 5 s when it was never fired. */
function signal(what: string) {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return {
    fire: () => fire(),
    sent: async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} was not requested alongside`)), 5000);
      });
      try {
        await Promise.race([fired, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

describe('a read budget per query term', () => {
  /** The table's real client, recording the postings each of a term's Queries returns and the doc records read. */
  function countingClient(real: DynamoDBDocumentClient = table.client) {
    const pages = new Map<string, number[]>();
    const docs: string[] = [];
    const client = {
      send: async (command: unknown) => {
        const output = await real.send(command as never);
        if (command instanceof QueryCommand) {
          const pk = String(command.input.ExpressionAttributeValues?.[':pk']);
          const blocks = (output as { Items?: { p: string }[] }).Items ?? [];
          const postings = blocks.reduce((sum, block) => sum + decodeBlock(block.p).length, 0);
          pages.set(pk, [...(pages.get(pk) ?? []), postings]);
        }
        if (command instanceof BatchGetCommand) {
          for (const { Keys = [] } of Object.values(command.input.RequestItems ?? {}))
            for (const key of Keys) if (String(key.pk).startsWith('D#')) docs.push(String(key.pk));
        }
        return output;
      },
    } as unknown as DynamoDBDocumentClient;
    const read = () => new Map([...pages].map(([pk, sizes]) => [pk, sizes.reduce((a, b) => a + b, 0)]));
    return { client, read, pages, docs };
  }
  const query = 'boot rain jacket trail winter';
  /** A table of its own holding items with these names and descriptions, indexed in blocks of four. */
  async function ownIndex(texts: { name: string; description: string }[]) {
    const own = await freshTable();
    const ownItems = createItemRepository(own);
    const indexer = createIndexer({ ...own, items: ownItems, blockCapacity: 4 });
    const ids: number[] = [];
    for (const text of texts) ids.push((await ownItems.create({ ...text, tags: [], attributes: {} })).id);
    await indexer.reindexItems(ids);
    return { own, ids };
  }
  /** A search over the shared corpus with a budget of 8 postings a term, read a block at a time. */
  const budgeted = (client: DynamoDBDocumentClient, options: { filterMaxPostingsPerTerm?: number } = {}) =>
    createSearch({
      client,
      tableName: table.tableName,
      ...ONE_BLOCK_PAGES,
      maxPostingsPerTerm: 8,
      ...options,
    });
  /** Each list was read until `budget` postings were, and not a page further. */
  const stoppedAt = (pages: Map<string, number[]>, budget: number) => {
    expect(pages.size).toBe(5);
    for (const sizes of pages.values()) {
      const total = sizes.reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThanOrEqual(budget);
      expect(total - (sizes.at(-1) ?? 0)).toBeLessThan(budget);
    }
  };

  it('reads at most maxPostingsPerTerm postings of each list, and scores what it returns exactly', async () => {
    const { client, pages } = countingClient();
    const cut = budgeted(client);
    const hits = await cut({
      terms: queryWeights(tokenize(query)),
      topK: 5,
      minScore: 0,
      accept: async (ids) => new Set(ids),
    });
    // These lists are far longer than 8 postings, so every one was cut short.
    stoppedAt(pages, 8);
    expect(hits).toHaveLength(5);
    const exact = new Map(reference(query, corpus.length).map((hit) => [hit.id, hit]));
    for (const hit of hits) {
      expect(Math.abs(hit.score - (exact.get(hit.id)?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
      expect(hit.matchedTerms).toStrictEqual(exact.get(hit.id)?.matchedTerms);
    }
    expect(hits.map((h) => h.score)).toStrictEqual(hits.map((h) => h.score).sort((a, b) => b - a));
  });

  it('scores only a proven top k exactly, fetching its items meanwhile; the first page overlaps the statistics', async () => {
    // Three items say "kettle" six times, twenty once: after the first page the top 3 is proven.
    const { own, ids } = await ownIndex(
      Array.from({ length: 23 }, (_, i) => ({
        name: `kettle ${i}`,
        description: `${'kettle '.repeat(i < 3 ? 5 : 0)}${'lorem '.repeat(10 + i)}`,
      })),
    );
    const strong = ids.slice(0, 3);
    const { client, read, docs } = countingClient(own.client);
    const search = createSearch({ client, tableName: own.tableName, ...ONE_BLOCK_PAGES });
    const hits = await search({
      terms: queryWeights(tokenize('kettle')),
      topK: 3,
      minScore: 0,
      accept: async (ids) => new Set(ids),
    });
    expect(hits.map((h) => h.id).sort((a, b) => a - b)).toStrictEqual(strong);
    // The list (23 postings) was not read to its end: the top 3 was proven early.
    expect(read().get('T#kettl')).toBeLessThan(12);
    // No pool of 4 × k candidates: the top 3 alone are scored exactly.
    expect([...docs].sort()).toStrictEqual(strong.map((id) => `D#${id}`).sort());

    // Round trips overlap: the first page is requested before the statistics arrive, and the answer's items
    // before its doc records do. Each is held here until the other has been sent: one after the other, they stall.
    const firstPage = signal('a first page');
    const items = signal('the items');
    const gated = {
      send: async (command: unknown) => {
        if (command instanceof QueryCommand) firstPage.fire();
        if (command instanceof BatchGetCommand) {
          const keys = Object.values(command.input.RequestItems ?? {}).flatMap(({ Keys = [] }) => Keys);
          if (keys.some((key) => key.pk === 'STATS')) await firstPage.sent();
          if (keys.some((key) => String(key.pk).startsWith('D#'))) await items.sent();
        }
        return own.client.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    const overlapping = createSearch({ client: gated, tableName: own.tableName, ...ONE_BLOCK_PAGES });
    const again = await overlapping({
      terms: queryWeights(tokenize('kettle')),
      topK: 3,
      minScore: 0,
      accept: async (ids) => {
        items.fire();
        return new Set(ids);
      },
    });
    expect(again).toStrictEqual(hits);
  }, 60_000);

  it('breaks ties by id without scoring the tied candidates it has seen in every list again', async () => {
    // Twelve items score exactly the same for "kettle": the top 3 are the three lowest ids.
    const { own, ids } = await ownIndex(
      Array.from({ length: 12 }, () => ({ name: 'kettle', description: 'steel' })),
    );
    const { client, docs } = countingClient(own.client);
    const hits = await createSearch({ client, tableName: own.tableName, ...ONE_BLOCK_PAGES })({
      terms: queryWeights(tokenize('kettle')),
      topK: 3,
      minScore: 0,
      accept: async (accepted) => new Set(accepted),
    });
    expect(hits.map((h) => h.id)).toStrictEqual(ids.slice(0, 3));
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    // Each tied candidate's score is known from its posting, summed as its doc record would be: only the
    // answer's doc records are read, not the nine it ties with.
    expect([...docs].sort()).toStrictEqual(
      ids
        .slice(0, 3)
        .map((id) => `D#${id}`)
        .sort(),
    );
  });

  it('fills the top k past a candidate whose doc record is missing (postings a crashed rebuild left)', async () => {
    const { own, ids } = await ownIndex(
      Array.from({ length: 6 }, (_, i) => ({
        name: 'kettle',
        description: `${'kettle '.repeat(5 - i)}steel`,
      })),
    );
    // The strongest item's doc record is gone, its postings are not.
    await own.client.send(new DeleteCommand({ TableName: own.tableName, Key: docKey(ids[0] ?? 0) }));
    const hits = await createSearch(own)({
      terms: queryWeights(tokenize('kettle')),
      topK: 3,
      minScore: 0,
      accept: async (accepted) => new Set(accepted),
    });
    expect(hits.map((h) => h.id)).toStrictEqual(ids.slice(1, 4));
  });

  it('stops reading a list at its df: no Query for an empty page after a list that filled its last page', async () => {
    const { own } = await ownIndex(
      Array.from({ length: 4 }, (_, i) => ({ name: `kettle ${i}`, description: '' })),
    );
    const { client, pages } = countingClient(own.client);
    const hits = await createSearch({ client, tableName: own.tableName, ...ONE_BLOCK_PAGES })({
      terms: queryWeights(tokenize('kettle')),
      topK: 10,
      minScore: 0,
      accept: async (ids) => new Set(ids),
    });
    expect(hits).toHaveLength(4);
    // One block of four: the page ends on its limit, and the df says nothing follows.
    expect(pages.get('T#kettl')).toStrictEqual([4]);
  });

  it('reads on past the budget while a filter rejects candidates, up to its own ceiling', async () => {
    const { client, read } = countingClient();
    const cut = budgeted(client, { filterMaxPostingsPerTerm: 10_000 });
    const keep = (item: Item) => item.tags.includes('t3') && item.attributes.even === false;
    const retrieve = createRetriever({ search: cut, items, dictionary: createDictionary(table) });
    const { results } = await retrieve({
      query,
      topK: 5,
      minScore: 0,
      filter: { tags: ['t3'], attributes: { even: false } },
    });
    // Few items pass: the search read on past 8 postings a term to fill the top 5 with items that do.
    expect(Math.max(...read().values())).toBeGreaterThan(11);
    expect(results).toHaveLength(Math.min(5, corpus.filter(keep).length));
    const exact = new Map(reference(query, corpus.length).map((hit) => [hit.id, hit.score]));
    for (const result of results) {
      expect(keep(result.item)).toBe(true);
      expect(Math.abs(result.score - (exact.get(result.item.id) ?? 0)) / result.score).toBeLessThan(1e-9);
    }
  });

  it('stops at filterMaxPostingsPerTerm', async () => {
    const { client, pages } = countingClient();
    const cut = budgeted(client, { filterMaxPostingsPerTerm: 16 });
    const { results } = await createRetriever({ search: cut, items, dictionary: createDictionary(table) })({
      query,
      topK: 5,
      minScore: 0,
      filter: { tags: ['no-such-tag'] },
    });
    expect(results).toStrictEqual([]);
    stoppedAt(pages, 16);
  });
});
