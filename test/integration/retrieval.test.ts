import { beforeAll, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { queryWeights } from '../../lib/search/bm25.ts';
import { createIndexer } from '../../lib/search/indexer.ts';
import { createSearch } from '../../lib/search/query.ts';
import { rankInMemory } from '../../lib/search/rank.ts';
import { createRetriever } from '../../lib/search/retrieve.ts';
import { itemText, tokenize } from '../../lib/search/tokenizer.ts';
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
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}
const next = random(42);
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 2)] ?? 'boot';
const sentence = (length: number) => Array.from({ length }, word).join(' ');

let items: ItemRepository;
let search: ReturnType<typeof createSearch>;
const corpus: Item[] = [];
let table: Awaited<ReturnType<typeof freshTable>>;

beforeAll(async () => {
  table = await freshTable();
  items = createItemRepository(table);
  const indexer = createIndexer({ ...table, items });
  for (let i = 0; i < 160; i++) {
    const item = await items.create({
      name: sentence(1 + Math.floor(next() * 3)),
      description: sentence(Math.floor(next() * 60)),
      tags: [word(), `t${i % 7}`],
      attributes: { even: i % 2 === 0 },
    });
    corpus.push(item);
  }
  for (const item of corpus) await indexer.reindexItem(item.id);
  // Tiny pages force many rounds, so the early stop is exercised, not just the full read.
  search = createSearch({ ...table, pageSize: 4 });
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
    const retrieve = createRetriever({ search, items });
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
    const retrieve = createRetriever({ search, items });
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
