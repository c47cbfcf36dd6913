import { BatchGetCommand, type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { decodeBlock } from '../../lib/search/format/blocks.ts';
import { queryWeights } from '../../lib/search/format/bm25.ts';
import {
  endOfSealedSk,
  ghostCounts,
  STATS_PK,
  sealedKey,
  shrunkOf,
  TAIL_SK,
  termOfPk,
} from '../../lib/search/format/keys.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { rankInMemory } from '../../lib/search/read/rank.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { matchesWhere } from '../../lib/search/read/where.ts';
import type { WhereExpression } from '../../lib/search/read/where-schema.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { scanAll } from '../support/index-state.ts';
import { seeded } from '../support/random.ts';
import { acceptItems, itemsOf } from '../support/search.ts';
import { freshTable } from '../support/stack.ts';

/** How the read log below names a sealed block: its key (keys.ts `sealedKey`), pk and sk. */
const blockOf = (term: string, end: number | undefined) => {
  const { pk, sk } = sealedKey(term, end ?? 0);
  return `${pk} ${sk}`;
};

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

/** Read one block at a time, with no budget: exact, in many rounds. */
const ONE_BLOCK_ROUNDS = { blocksPerRound: 1, maxBlocks: Number.POSITIVE_INFINITY } as const;
let items: ItemRepository;
let search: ReturnType<typeof createSearch>;
const corpus: Item[] = [];
/** The corpus's items as the retriever gives them to the search, to score its answers from (`itemOf`). */
const itemOf = itemsOf(corpus);
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
  // In batches, as the stream consumer indexes: a batch appends many postings to a tail at once, so tails seal
  // several blocks in one write.
  const ids = corpus.map((item) => item.id);
  for (let start = 0; start < ids.length; start += 50)
    await indexer.reindexItems(ids.slice(start, start + 50));
  // One block a round forces many rounds, so the early stop is exercised, not just the full read.
  search = createSearch({ ...table, ...ONE_BLOCK_ROUNDS });
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

  /**
   * An item's matched terms from the item, as the retriever gives them (`matchedTermsOf`): the search then leaves
   * unread the blocks that cannot change a score.
   */
  const fromItems = (terms: ReadonlyMap<string, number>) => {
    const held = new Map(corpus.map((item) => [item.id, new Set(tokenize(itemText(item)))]));
    return (id: number) => [...terms.keys()].filter((term) => held.get(id)?.has(term));
  };
  const listed = ['read from the blocks', 'from the items'] as const;

  it.each(queries.flatMap((q) => listed.flatMap((how) => [1, 5, 20].map((topK) => [q, topK, how] as const))))(
    'gives exactly the exhaustive ranking for %j, top %i, matched terms %s',
    async (query, topK, how) => {
      const terms = queryWeights(tokenize(query));
      const hits = await search({
        terms,
        topK,
        minScore: 0,
        accept: async (ids) => new Set(ids),
        itemOf,
        matchedTermsOf: how === 'from the items' ? fromItems(terms) : undefined,
      });
      const expected = reference(query, topK);
      expect(hits.map((h) => h.id)).toStrictEqual(expected.map((h) => h.id));
      hits.forEach((hit, i) => {
        expect(Math.abs(hit.score - (expected[i]?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
        expect(hit.matchedTerms).toStrictEqual(expected[i]?.matchedTerms);
      });
    },
  );

  // A word's alternatives (a prefix's completions, a word's corrections) weigh less than the word: the reader leaves a
  // weak alternative's blocks unread only where no item can reach the k-th score through it (split, query.ts).
  const worded = (words: Record<string, Record<string, number>>) => {
    const terms = new Map<string, number>();
    const wordOf = new Map<string, string>();
    for (const [word, alternatives] of Object.entries(words))
      for (const [text, weight] of Object.entries(alternatives)) {
        const [term = text] = tokenize(text);
        terms.set(term, weight);
        wordOf.set(term, word);
      }
    return { terms, wordOf };
  };
  const wordCases = [
    { a: { rain: 1, jacket: 0.4, trail: 0.2, winter: 0.1 }, b: { boot: 1 } },
    { a: { light: 1, tent: 0.3, lamp: 0.25, sun: 0.05 }, b: { night: 1 }, c: { snow: 0.5 } },
    { a: { boot: 0.3, rain: 0.9 }, b: { coffee: 0.2, kettle: 1, cup: 0.6 } },
  ];
  it.each(
    wordCases.flatMap((words) =>
      listed.flatMap((how) => [1, 5, 20].map((topK) => [words, topK, how] as const)),
    ),
  )(
    'gives exactly the exhaustive ranking when words have weighted alternatives, %j top %i, matched terms %s',
    async (words, topK, how) => {
      const { terms, wordOf } = worded(words);
      const hits = await search({
        terms,
        wordOf,
        topK,
        minScore: 0,
        accept: async (ids) => new Set(ids),
        itemOf,
        matchedTermsOf: how === 'from the items' ? fromItems(terms) : undefined,
      });
      const docs = corpus.map((item) => ({ id: item.id, tokens: tokenize(itemText(item)) }));
      const expected = rankInMemory(docs, terms, topK, wordOf);
      expect(hits.map((h) => h.id)).toStrictEqual(expected.map((h) => h.id));
      hits.forEach((hit, i) => {
        expect(Math.abs(hit.score - (expected[i]?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
        expect(hit.matchedTerms).toStrictEqual(expected[i]?.matchedTerms);
      });
    },
  );

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

  it.each(['boot', 'light'])(
    'applies a filter exactly to the one word %j, reading past the items it scored below the k-th score',
    async (query) => {
      // One word: pieces of one block, whose items are kept only while they can be among the best k; a filter that
      // rejects the best opens them again.
      const retrieve = createRetriever({ search, items, dictionary: createDictionary(table) });
      const { results } = await retrieve({
        query,
        topK: 6,
        minScore: 0,
        filter: { attributes: { even: true } },
      });
      // Ranked over the whole collection (its N and avgdl), then filtered.
      const even = new Set(corpus.filter((item) => item.attributes.even === true).map((item) => item.id));
      const expected = reference(query, corpus.length)
        .filter((hit) => even.has(hit.id))
        .slice(0, 6);
      expect(expected.length).toBe(6);
      expect(results.map((r) => [r.item.id, r.score])).toStrictEqual(expected.map((e) => [e.id, e.score]));
    },
  );

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
      itemOf,
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

describe('block reads: the early stop, the budget and the round trips', () => {
  /** The table's real client, recording each sealed block read (by key or in a range) and each doc record read. */
  function countingClient(real: DynamoDBDocumentClient = table.client) {
    const blocks: string[] = [];
    const docs: string[] = [];
    /** Read units of the sealed blocks' reads (by key, or a range by Query), as DynamoDB Local reports them. */
    const spent = { blockUnits: 0 };
    const client = {
      send: async (command: unknown) => {
        let readsBlocks = false;
        if (command instanceof BatchGetCommand) {
          const keys = Object.values(command.input.RequestItems ?? {}).flatMap(({ Keys = [] }) => Keys);
          for (const key of keys) {
            if (endOfSealedSk(key.sk) !== undefined) blocks.push(`${key.pk} ${key.sk}`);
            if (String(key.pk).startsWith('D#')) docs.push(String(key.pk));
          }
          readsBlocks = keys.length > 0 && keys.every((key) => endOfSealedSk(key.sk) !== undefined);
        }
        if (command instanceof QueryCommand)
          readsBlocks = command.input.KeyConditionExpression?.includes('BETWEEN') ?? false;
        if (readsBlocks)
          (command as { input: Record<string, unknown> }).input.ReturnConsumedCapacity = 'TOTAL';
        const reply = await real.send(command as never);
        // A range of one term's blocks, read by Query.
        if (command instanceof QueryCommand)
          for (const row of (reply as { Items?: Record<string, unknown>[] }).Items ?? [])
            if (endOfSealedSk(row.sk) !== undefined) blocks.push(`${row.pk} ${row.sk}`);
        const consumed = (reply as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        if (readsBlocks)
          for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : [])
            spent.blockUnits += (entry as { CapacityUnits?: number }).CapacityUnits ?? 0;
        return reply;
      },
    } as unknown as DynamoDBDocumentClient;
    return { client, blocks, docs, spent };
  }
  const query = 'boot rain jacket trail winter';
  const everything = async (ids: number[]) => new Set(ids);
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
  /** An item of 64 words (the reference length): `words`, then filler. */
  const filled = (words: string) => ({
    name: 'filler',
    description: `${words} ${'filler '.repeat(63 - words.split(' ').length)}`.trim(),
  });
  /**
   * Items 1–4 hold `strong` ×5 and `weak` ×1, sealed in one block of each (blocks of four); 5–7 `strong` ×5 and 8–11
   * `weak` ×1 stay in the tails, which set the k-th score of a top 3 (`strong` ×5).
   */
  const sealedPiece = (strong: string, weak: string) =>
    ownIndex([
      ...Array.from({ length: 4 }, () => filled(`${`${strong} `.repeat(5)}${weak}`)),
      ...Array.from({ length: 3 }, () => filled(`${strong} `.repeat(5).trim())),
      ...Array.from({ length: 4 }, () => filled(weak)),
    ]);
  /** A search over the shared corpus that reads 3 sealed blocks at most, two a round. */
  const budgeted = (client: DynamoDBDocumentClient, options: { filterMaxBlocks?: number } = {}) =>
    createSearch({ client, tableName: table.tableName, maxBlocks: 3, blocksPerRound: 2, ...options });

  it('reads at most maxBlocks sealed blocks (in reads by key), and scores what it returns exactly', async () => {
    const unbounded = countingClient();
    await createSearch({ client: unbounded.client, tableName: table.tableName, maxBlocks: Infinity })({
      terms: queryWeights(tokenize(query)),
      topK: 5,
      minScore: 0,
      accept: everything,
    });
    // The exact answer needs more than the budget here, so the budget is what stops the read below.
    expect(unbounded.spent.blockUnits).toBeGreaterThan(3 * 0.5);
    const { client, blocks, spent } = countingClient();
    const hits = await budgeted(client)({
      terms: queryWeights(tokenize(query)),
      topK: 5,
      minScore: 0,
      accept: everything,
      itemOf,
    });
    // The ceiling counts reads by key, half a unit each (a range read counts what it costs).
    expect(blocks.length).toBeGreaterThan(0);
    expect(spent.blockUnits).toBeLessThanOrEqual(3 * 0.5);
    expect(new Set(blocks).size).toBe(blocks.length);
    // What it could score in full within the budget: fewer than asked for here, every one exact.
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(5);
    const exact = new Map(reference(query, corpus.length).map((hit) => [hit.id, hit]));
    for (const hit of hits) {
      expect(Math.abs(hit.score - (exact.get(hit.id)?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
      expect(hit.matchedTerms).toStrictEqual(exact.get(hit.id)?.matchedTerms);
    }
    expect(hits.map((h) => h.score)).toStrictEqual(hits.map((h) => h.score).sort((a, b) => b - a));
  });

  it('reads close blocks of a term by range: the exact answers, for fewer read units than reading each by key', async () => {
    /** Read units of every command (DynamoDB Local reports them when asked). */
    const metered = () => {
      const spent = { units: 0 };
      const client = {
        send: async (command: { input: Record<string, unknown> }) => {
          command.input.ReturnConsumedCapacity = 'TOTAL';
          const reply = (await table.client.send(command as never)) as { ConsumedCapacity?: unknown };
          const consumed = reply.ConsumedCapacity;
          for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : [])
            spent.units += (entry as { CapacityUnits?: number }).CapacityUnits ?? 0;
          return reply;
        },
      } as unknown as DynamoDBDocumentClient;
      return { client, spent };
    };
    const byKey = metered();
    const byRange = metered();
    const exactByKey = createSearch({
      client: byKey.client,
      tableName: table.tableName,
      rangeGap: 0,
      maxBlocks: Infinity,
    });
    const exactByRange = createSearch({
      client: byRange.client,
      tableName: table.tableName,
      maxBlocks: Infinity,
    });
    // Common words: most of their lists are read, in many rounds of one block.
    for (const query of ['boot rain jacket', 'tent light trail map', 'the boot and the rain']) {
      const request = {
        terms: queryWeights(tokenize(query)),
        topK: 10,
        minScore: 0,
        accept: everything,
        itemOf,
      };
      const ranged = await exactByRange(request);
      expect(ranged).toStrictEqual(await exactByKey(request));
      const exact = reference(query, 10);
      expect(ranged.map((hit) => hit.id)).toStrictEqual(exact.map((hit) => hit.id));
      for (const [i, hit] of ranged.entries())
        expect(Math.abs(hit.score - (exact[i]?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
    }
    expect(byRange.spent.units).toBeGreaterThan(0);
    expect(byRange.spent.units).toBeLessThan(byKey.spent.units);
  });

  it('reads only the blocks that can hold the top k; counts, tails and directories come in one round trip', async () => {
    // Three items say "kettle" six times, twenty once: they fill the first sealed block, whose maximum alone can
    // reach the top 3; the other blocks' maxima cannot.
    const { own, ids } = await ownIndex(
      Array.from({ length: 23 }, (_, i) => ({
        name: `kettle ${i}`,
        description: `${'kettle '.repeat(i < 3 ? 5 : 0)}${'lorem '.repeat(10 + i)}`,
      })),
    );
    const strong = ids.slice(0, 3);
    const { client, blocks, docs } = countingClient(own.client);
    // Every block read by key: what the early stop asks for, and nothing else.
    const search = createSearch({ client, tableName: own.tableName, blocksPerRound: 1, rangeGap: 0 });
    const hits = await search({
      terms: queryWeights(tokenize('kettle')),
      topK: 3,
      minScore: 0,
      accept: everything,
    });
    expect(hits.map((h) => h.id)).toStrictEqual(strong);
    // Five sealed blocks of four and a tail of three: one block read.
    expect(blocks).toStrictEqual([blockOf('kettl', ids[3])]);
    expect(docs).toStrictEqual([]);
    // With range reads, the blocks that might still be needed beside it come along in one Query (4 KB of them cost
    // what one read by key does): the same answer, from one read.
    const ranged = countingClient(own.client);
    const queries: string[] = [];
    const watching = {
      send: (command: unknown) => {
        if (command instanceof QueryCommand && command.input.KeyConditionExpression?.includes('BETWEEN'))
          queries.push(String(command.input.ExpressionAttributeValues?.[':from']));
        return ranged.client.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    expect(
      await createSearch({ client: watching, tableName: own.tableName, blocksPerRound: 1 })({
        terms: queryWeights(tokenize('kettle')),
        topK: 3,
        minScore: 0,
        accept: everything,
      }),
    ).toStrictEqual(hits);
    expect(queries).toStrictEqual([`K#${String(ids[3]).padStart(16, '0')}`]);
    expect(ranged.blocks[0]).toBe(blockOf('kettl', ids[3]));

    // A term's tail and directory (one Query, `sk >= K#~`) are read while the corpus counts are (another): the
    // counts' Query is held here until the term's has been sent; one after the other, they stall.
    const termRead = signal("a term's tail and directory");
    const reads: string[] = [];
    const gated = {
      send: async (command: unknown) => {
        if (command instanceof QueryCommand) {
          const values = command.input.ExpressionAttributeValues ?? {};
          reads.push(
            `${values[':pk']} ${values[':tail'] ?? values[':sk'] ?? values[':x'] ?? values[':from']}`,
          );
          if (values[':tail'] === TAIL_SK) termRead.fire();
          if (values[':pk'] === STATS_PK) await termRead.sent();
        }
        return own.client.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    const overlapping = createSearch({ client: gated, tableName: own.tableName, blocksPerRound: 1 });
    expect(
      await overlapping({
        terms: queryWeights(tokenize('kettle')),
        topK: 3,
        minScore: 0,
        accept: everything,
      }),
    ).toStrictEqual(hits);
    // The first round trip: the counts (the shrunk set is empty: not read) and the term's tail with its directory,
    // nothing else (no read by key).
    expect(reads.slice(0, 2).sort()).toStrictEqual([`STATS INDEX`, `T#kettl ${TAIL_SK}`]);
  }, 60_000);

  it("reads a word's weaker alternative where an item reaches the top k through it alone", async () => {
    // Every item 64 words long (the reference length), so a block's bound is its best posting's score. `kettle` and
    // `coffee` are one word (weights 1 and 0.5), `cup` another. Items 0–3 hold coffee ×2 and cup ×2 (2.06 idf), the
    // best; items 4–7 kettle ×3 (1.65 idf), sealed in a block that spans 0–7 but holds none of 0–3; 8–10 stay in the
    // tails and set the first k-th score (kettle ×3). The piece of items 0–3 has kettle's block, empty there: a split
    // that took the word whole at kettle's bound would pass over items 0–3 (cup's bound alone is below 1.65 idf).
    const { own, ids } = await ownIndex([
      ...Array.from({ length: 4 }, () => filled('coffee coffee cup cup')),
      ...Array.from({ length: 5 }, () => filled('kettle kettle kettle')),
      filled('coffee'),
      filled('cup'),
    ]);
    const [kettle = '', coffee = '', cup = ''] = tokenize('kettle coffee cup');
    const terms = new Map([
      [kettle, 1],
      [coffee, 0.5],
      [cup, 1],
    ]);
    const wordOf = new Map([
      [kettle, 'kettle'],
      [coffee, 'kettle'],
      [cup, 'cup'],
    ]);
    const hits = await createSearch({ ...own, blocksPerRound: 1 })({
      terms,
      wordOf,
      topK: 1,
      minScore: 0,
      accept: everything,
    });
    expect(hits.map((hit) => hit.id)).toStrictEqual([ids[0]]);
    expect(hits[0]?.matchedTerms).toStrictEqual([coffee, cup]);
  });

  it('with matched terms from the items, scores no candidate before a block it needs is read, however many need it', async () => {
    // The piece of items 1–4 (sealedPiece) takes kettle's block as essential (steel's bound alone is below the k-th
    // score), and each of its four candidates needs steel's block: a reader that scored the ones after the first as
    // soon as the block was asked for would rank them at kettle ×5 alone.
    const { own, ids } = await sealedPiece('kettle', 'steel');
    const terms = queryWeights(tokenize('kettle steel'));
    const texts = new Map(
      ids.map((id, i) => [id, i < 4 ? ['kettle', 'steel'] : i < 7 ? ['kettle'] : ['steel']]),
    );
    const matchedTermsOf = (id: number) =>
      [...terms.keys()].filter((term) => texts.get(id)?.some((word) => tokenize(word)[0] === term));
    const { client, blocks } = countingClient(own.client);
    const hits = await createSearch({ client, tableName: own.tableName, rangeGap: 0 })({
      terms,
      topK: 3,
      minScore: 0,
      accept: everything,
      matchedTermsOf,
    });
    const exact = await createSearch(own)({ terms, topK: 3, minScore: 0, accept: everything });
    expect(hits.map((hit) => hit.id)).toStrictEqual(ids.slice(0, 3));
    expect(hits).toStrictEqual(exact);
    // Steel's sealed block was read (kettle's too), each once.
    expect(blocks.filter((block) => block.startsWith('T#steel'))).toHaveLength(1);
  });

  it("with matched terms from the items, leaves unread a weaker alternative's block that cannot change a score", async () => {
    // `kettle` (weight 1) and `coffee` (0.5) are one word. An item of 1–4 (sealedPiece) scores its best alternative,
    // kettle ×5, which coffee's block cannot beat: read only to list coffee among its matched terms, which the items
    // can tell.
    const { own, ids } = await sealedPiece('kettle', 'coffee');
    const [kettle = '', coffee = ''] = tokenize('kettle coffee');
    const terms = new Map([
      [kettle, 1],
      [coffee, 0.5],
    ]);
    const wordOf = new Map([
      [kettle, 'kettle'],
      [coffee, 'kettle'],
    ]);
    const held = new Map(ids.map((id, i) => [id, i < 4 ? [kettle, coffee] : i < 7 ? [kettle] : [coffee]]));
    const read = async (matchedTermsOf?: (id: number) => string[]) => {
      const { client, blocks } = countingClient(own.client);
      const search = createSearch({ client, tableName: own.tableName, rangeGap: 0 });
      const hits = await search({ terms, wordOf, topK: 3, minScore: 0, accept: everything, matchedTermsOf });
      return { hits, blocks };
    };
    const listed = await read();
    expect(listed.hits.map((hit) => [hit.id, hit.matchedTerms])).toStrictEqual(
      ids.slice(0, 3).map((id) => [id, [kettle, coffee]]),
    );
    expect(listed.blocks.filter((block) => termOfPk(block.split(' ')[0]) === coffee)).toHaveLength(1);
    const fromItems = await read((id) => held.get(id) ?? []);
    expect(fromItems.hits).toStrictEqual(listed.hits);
    expect(fromItems.blocks.filter((block) => termOfPk(block.split(' ')[0]) === coffee)).toStrictEqual([]);
  });

  it('breaks ties by id, from the postings alone', async () => {
    // Twelve items score exactly the same for "kettle": the top 3 are the three lowest ids.
    const { own, ids } = await ownIndex(
      Array.from({ length: 12 }, () => ({ name: 'kettle', description: 'steel' })),
    );
    const { client, docs } = countingClient(own.client);
    const hits = await createSearch({ client, tableName: own.tableName, blocksPerRound: 1 })({
      terms: queryWeights(tokenize('kettle')),
      topK: 3,
      minScore: 0,
      accept: everything,
    });
    expect(hits.map((h) => h.id)).toStrictEqual(ids.slice(0, 3));
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    expect(docs).toStrictEqual([]);
  });

  it('answers a term whose postings fit its tail from the first round trip alone', async () => {
    const { own } = await ownIndex(
      Array.from({ length: 4 }, (_, i) => ({ name: `kettle ${i}`, description: '' })),
    );
    const { client, blocks } = countingClient(own.client);
    const hits = await createSearch({ client, tableName: own.tableName })({
      terms: queryWeights(tokenize('kettle')),
      topK: 10,
      minScore: 0,
      accept: everything,
    });
    expect(hits).toHaveLength(4);
    expect(blocks).toStrictEqual([]);
  });

  it('reads on past the budget while a filter rejects candidates, up to its own ceiling', async () => {
    const { client, blocks } = countingClient();
    const budgetedSearch = budgeted(client, { filterMaxBlocks: 10_000 });
    const keep = (item: Item) => item.tags.includes('t3') && item.attributes.even === false;
    const retrieve = createRetriever({ search: budgetedSearch, items, dictionary: createDictionary(table) });
    const { results } = await retrieve({
      query,
      topK: 5,
      minScore: 0,
      filter: { tags: ['t3'], attributes: { even: false } },
    });
    // Few items pass: the search read on past 3 blocks to fill the top 5 with items that do, exactly.
    expect(blocks.length).toBeGreaterThan(3);
    const byId = new Map(corpus.map((item) => [item.id, item]));
    const expected = reference(query, corpus.length)
      .filter((hit) => keep(byId.get(hit.id) as Item))
      .slice(0, 5);
    expect(results.map((r) => r.item.id)).toStrictEqual(expected.map((e) => e.id));
    for (const [i, result] of results.entries())
      expect(Math.abs(result.score - (expected[i]?.score ?? 0)) / result.score).toBeLessThan(1e-9);
  });

  it('stops at filterMaxBlocks', async () => {
    const { client, blocks, spent } = countingClient();
    const budgetedSearch = budgeted(client, { filterMaxBlocks: 16 });
    const { results } = await createRetriever({
      search: budgetedSearch,
      items,
      dictionary: createDictionary(table),
    })({
      query,
      topK: 5,
      minScore: 0,
      filter: { tags: ['no-such-tag'] },
    });
    expect(results).toStrictEqual([]);
    expect(blocks.length).toBeGreaterThan(3);
    // The ceiling counts reads by key (half a unit each; a range read counts what it costs).
    expect(spent.blockUnits).toBeGreaterThan(1.5);
    expect(spent.blockUnits).toBeLessThanOrEqual(16 * 0.5);
  });
});

/**
 * `count` items of words from VOCABULARY (seeded, skewed towards its first words), a two-word name and a description
 * of `shortest` to `shortest + spread - 1` words, created and indexed as one batch; with `text` (words picked the
 * same way, from VOCABULARY or `words`, the seeded stream going on) for the edits that follow.
 */
async function skewedItems(
  repo: ItemRepository,
  indexer: ReturnType<typeof createIndexer>,
  { seed, count, shortest, spread }: { seed: number; count: number; shortest: number; spread: number },
) {
  const random = seeded(seed);
  const pick = (words: readonly string[]) => words[Math.floor(words.length * random() ** 2)] ?? 'boot';
  const text = (length: number, words: readonly string[] = VOCABULARY) =>
    Array.from({ length }, () => pick(words)).join(' ');
  const made: Item[] = [];
  for (let i = 0; i < count; i++)
    made.push(
      await repo.create({
        name: text(2),
        description: text(shortest + Math.floor(random() * spread)),
        tags: [],
        attributes: {},
      }),
    );
  await indexer.reindexItems(made.map((item) => item.id));
  return { made, text };
}

/** The exhaustive BM25 ranking of `items` as they are now (their texts analysed afresh). */
const rankedOver = (
  items: readonly Item[],
  terms: ReadonlyMap<string, number>,
  topK: number,
  wordOf?: ReadonlyMap<string, string>,
) =>
  rankInMemory(
    items.map((item) => ({ id: item.id, tokens: tokenize(itemText(item)) })),
    terms,
    topK,
    wordOf,
  );

describe('items that grew after their postings were written', () => {
  // Words no query below asks for: an item that grows by them keeps every posting a query reads, with its old length.
  const FILLER = ['quartz', 'zircon', 'garnet', 'basalt', 'gneiss', 'schist', 'marble', 'pumice'];
  const queries = ['boot', 'rain jacket', 'winter boot boot', 'light light light tent', 'snow ice rope'];
  let grown: Awaited<ReturnType<typeof freshTable>>;
  let repo: ItemRepository;
  let live: Item[];

  beforeAll(async () => {
    grown = await freshTable();
    repo = createItemRepository(grown);
    const indexer = createIndexer({ ...grown, items: repo, blockCapacity: 4 });
    const { made, text } = await skewedItems(repo, indexer, {
      seed: 7,
      count: 80,
      shortest: 2,
      spread: 10,
    });
    const byId = new Map(made.map((item) => [item.id, item]));
    const body = ({ name, description, tags, attributes }: Item) => ({ name, description, tags, attributes });
    // Half grow by many words no query asks for; some of those grow again by a query's word; a few shrink.
    for (const [i, item] of made.entries()) {
      const grow = (extra: string) =>
        repo.update(item.id, (current) => ({
          ...body(current),
          description: `${current.description} ${extra}`,
        }));
      if (i % 2 === 0) byId.set(item.id, await grow(text(10 + (i % 30), FILLER)));
      if (i % 8 === 0) byId.set(item.id, await grow(`${text(5, FILLER)} tent`));
      if (i % 6 === 1)
        byId.set(
          item.id,
          await repo.update(item.id, (current) => ({ ...body(current), description: text(1) })),
        );
    }
    live = [...byId.values()];
    await indexer.reindexItems(live.map((item) => item.id));
  }, 120_000);

  const ranked = (terms: ReadonlyMap<string, number>, topK: number, wordOf?: ReadonlyMap<string, string>) =>
    rankedOver(live, terms, topK, wordOf);

  it('keeps postings with the length they were written with: at most the item’s, or its shrunk-set entry’s norm', async () => {
    const lengths = new Map(live.map((item) => [item.id, tokenize(itemText(item)).length]));
    const rows = await scanAll(grown);
    const shrunk = new Map(shrunkOf(rows).map((entry) => [entry.id, entry]));
    const postings = rows
      .filter((row) => String(row.pk).startsWith('T#') && String(row.sk).startsWith('K#'))
      .flatMap((row) => decodeBlock(row.p));
    const length = (id: number) => lengths.get(id) ?? 0;
    expect(
      postings.every((p) =>
        shrunk.has(p.id)
          ? shrunk.get(p.id)?.dl === length(p.id) && p.dl === shrunk.get(p.id)?.norm
          : p.dl <= length(p.id),
      ),
    ).toBe(true);
    // Many keep a shorter one, and the items that shrank a longer one: what the next tests score through.
    expect(postings.filter((p) => p.dl < length(p.id)).length).toBeGreaterThan(50);
    expect(shrunk.size).toBeGreaterThan(5);
  });

  it.each(queries.flatMap((query) => [1, 5, 20].map((topK) => [query, topK] as const)))(
    'scores every answer exactly from the item for %j, top %i',
    async (query, topK) => {
      const terms = queryWeights(tokenize(query));
      const search = createSearch({ ...grown, ...ONE_BLOCK_ROUNDS });
      const hits = await search({ terms, topK, minScore: 0, ...acceptItems(repo) });
      const expected = ranked(terms, topK);
      expect(hits.map((hit) => hit.id)).toStrictEqual(expected.map((hit) => hit.id));
      hits.forEach((hit, i) => {
        expect(Math.abs(hit.score - (expected[i]?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
      });
    },
  );

  it('scores exactly where a word has alternatives, through the retriever too', async () => {
    const search = createSearch({ ...grown, ...ONE_BLOCK_ROUNDS });
    const terms = new Map([
      ['light', 1],
      ['tent', 0.4],
      ['boot', 1],
    ]);
    const wordOf = new Map([
      ['light', 'light'],
      ['tent', 'light'],
      ['boot', 'boot'],
    ]);
    for (const topK of [1, 5, 20]) {
      const hits = await search({ terms, wordOf, topK, minScore: 0, ...acceptItems(repo) });
      const expected = ranked(terms, topK, wordOf);
      expect(hits.map((hit) => [hit.id, hit.score])).toStrictEqual(
        expected.map((hit) => [hit.id, hit.score]),
      );
    }
    const { results } = await createRetriever({ search, items: repo, dictionary: createDictionary(grown) })({
      query: 'winter boot boot',
      topK: 5,
      minScore: 0,
    });
    const expected = ranked(queryWeights(tokenize('winter boot boot')), 5);
    expect(results.map((result) => [result.item.id, result.score])).toStrictEqual(
      expected.map((hit) => [hit.id, hit.score]),
    );
  });

  it('would rank by the postings’ bounds without the items: the cases above are not exact by luck', async () => {
    const search = createSearch({ ...grown, ...ONE_BLOCK_ROUNDS });
    let differ = 0;
    for (const query of queries) {
      const terms = queryWeights(tokenize(query));
      const hits = await search({ terms, topK: 5, minScore: 0, accept: async (ids) => new Set(ids) });
      const expected = ranked(terms, 5);
      if (
        JSON.stringify(hits.map((h) => [h.id, h.score])) !==
        JSON.stringify(expected.map((h) => [h.id, h.score]))
      )
        differ++;
    }
    expect(differ).toBeGreaterThanOrEqual(3);
  });
});

describe('items shorter than the length their postings carry (the shrunk set)', () => {
  it('finds an item that shrank below its postings’ norm, by the raised bound of its block and its length', async () => {
    const own = await freshTable();
    const repo = createItemRepository(own);
    const indexer = createIndexer({ ...own, items: repo, blockCapacity: 4 });
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i % 7}`).join(' ');
    const made: Item[] = [];
    // Four long items with the word twice (a sealed block of low bound: long), then twelve short ones with it once
    // (three blocks of higher bound).
    for (let i = 0; i < 4; i++)
      made.push(
        await repo.create({ name: 'Kettle kettle', description: filler(60), tags: [], attributes: {} }),
      );
    for (let i = 0; i < 12; i++)
      made.push(await repo.create({ name: 'Kettle', description: filler(3), tags: [], attributes: {} }));
    await indexer.reindexItems(made.map((item) => item.id));
    const shrunk = await repo.update(made[1]?.id ?? 0, (current) => ({ ...current, description: 'filler0' }));
    await indexer.reindexItem(shrunk.id);
    const live = [shrunk, ...made.filter((item) => item.id !== shrunk.id)];
    // Its postings keep their length (62), the set holds its own (3), and its block starts the list, sealed. No cut:
    // one would hold 7 terms (six fillers gone, one fewer) against the item's 3, more than twice, so the edit wrote
    // its terms as they are (indexer.ts `postingTarget`, ghosts outgrowing the item).
    const rows = await scanAll(own);
    expect(shrunkOf(rows)).toStrictEqual([{ id: shrunk.id, dl: 3, norm: 62, cut: {} }]);
    expect(rows.some((row) => termOfPk(row.pk) === 'kettl' && endOfSealedSk(row.sk) === made[3]?.id)).toBe(
      true,
    );
    const terms = queryWeights(tokenize('kettle'));
    for (const topK of [1, 3]) {
      const hits = await createSearch({ ...own, ...ONE_BLOCK_ROUNDS })({
        terms,
        topK,
        minScore: 0,
        ...acceptItems(repo),
      });
      const expected = rankInMemory(
        live.map((item) => ({ id: item.id, tokens: tokenize(itemText(item)) })),
        terms,
        topK,
      );
      expect(expected[0]?.id).toBe(shrunk.id);
      expect(hits.map((hit) => [hit.id, hit.score])).toStrictEqual(
        expected.map((hit) => [hit.id, hit.score]),
      );
    }
  });
});

describe('items whose tfs fell after their postings were written (the shrunk set’s cuts)', () => {
  const queries = ['boot', 'rain jacket', 'boot rain trail', 'winter boot boot', 'light tent tent'];
  let own: Awaited<ReturnType<typeof freshTable>>;
  let repo: ItemRepository;
  let live: Item[];

  beforeAll(async () => {
    own = await freshTable();
    repo = createItemRepository(own);
    // A writer that never compacts: every edit below keeps the postings it would lower.
    const indexer = createIndexer({
      ...own,
      items: repo,
      blockCapacity: 4,
      compactAt: Number.POSITIVE_INFINITY,
      compactBytes: Number.POSITIVE_INFINITY,
    });
    const { made } = await skewedItems(repo, indexer, { seed: 11, count: 90, shortest: 4, spread: 16 });
    // A third lose every `boot` and `rain` of their descriptions (ghosts where it was all they had), a third lose
    // the second half of theirs (tfs that fall, words gone, a shorter length), a sixth have each `boot` replaced by
    // two other words (a ghost, a longer length).
    live = [];
    for (const [i, item] of made.entries()) {
      const words = item.description.split(' ');
      const description =
        i % 3 === 0
          ? words.filter((word) => word !== 'boot' && word !== 'rain').join(' ')
          : i % 3 === 1
            ? words.slice(0, Math.ceil(words.length / 2)).join(' ')
            : i % 6 === 2
              ? words.map((word) => (word === 'boot' ? 'sun hat' : word)).join(' ')
              : item.description;
      live.push(
        description === item.description ? item : await repo.update(item.id, (c) => ({ ...c, description })),
      );
    }
    await indexer.reindexItems(live.map((item) => item.id));
  }, 120_000);

  const ranked = (terms: ReadonlyMap<string, number>, topK: number) => rankedOver(live, terms, topK);

  it('keeps the postings the edits lowered, the set holding the items’ tfs and ghosts', async () => {
    const shrunk = shrunkOf(await scanAll(own));
    const ghosts = ghostCounts(shrunk);
    expect(ghosts.get('boot')).toBeGreaterThan(3);
    expect(ghosts.get('rain')).toBeGreaterThan(3);
    expect(shrunk.filter((entry) => Object.values(entry.cut).some((tf) => tf > 0)).length).toBeGreaterThan(5);
    expect(shrunk.filter((entry) => entry.dl < entry.norm).length).toBeGreaterThan(5);
    expect(shrunk.filter((entry) => entry.dl > entry.norm).length).toBeGreaterThan(2);
  });

  it.each(queries.flatMap((query) => [1, 5, 20].map((topK) => [query, topK] as const)))(
    'scores %j exactly from the postings, the set’s tfs and dfs applied (top %i, no item read)',
    async (query, topK) => {
      const terms = queryWeights(tokenize(query));
      const search = createSearch({ ...own, ...ONE_BLOCK_ROUNDS });
      const hits = await search({ terms, topK, minScore: 0, accept: async (ids) => new Set(ids) });
      const expected = ranked(terms, topK);
      expect(hits.map((hit) => hit.id)).toStrictEqual(expected.map((hit) => hit.id));
      hits.forEach((hit, i) => {
        expect(Math.abs(hit.score - (expected[i]?.score ?? 0)) / hit.score).toBeLessThan(1e-9);
        expect(hit.matchedTerms).toStrictEqual(expected[i]?.matchedTerms);
      });
    },
  );

  it('answers through the retriever as an exhaustive BM25 over the items does', async () => {
    const retrieve = createRetriever({
      search: createSearch({ ...own, ...ONE_BLOCK_ROUNDS }),
      items: repo,
      dictionary: createDictionary(own),
    });
    for (const query of queries) {
      const { results } = await retrieve({ query, topK: 8, minScore: 0 });
      const expected = ranked(queryWeights(tokenize(query)), 8);
      expect(results.map((result) => [result.item.id, result.score])).toStrictEqual(
        expected.map((hit) => [hit.id, hit.score]),
      );
    }
  });
});
