import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
} from '@aws-sdk/client-dynamodb';
import { QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryEach } from '../../lib/dynamodb/query-all.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import {
  dfClass,
  ghostCounts,
  isDictionaryTerm,
  shrunkOf,
  shrunkQueries,
  TAIL_SK,
  termOfPk,
  termPk,
} from '../../lib/search/format/keys.ts';
import { backfillDictionary } from '../../lib/search/operations/backfill-dictionary.ts';
import { createDictionary, type Dictionary, lessGhosts } from '../../lib/search/read/dictionary.ts';
import { completions, dictionaryInMemory, expandQuery, PREFIX_TERMS } from '../../lib/search/read/expand.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { rankInMemory } from '../../lib/search/read/rank.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { indexTerms, itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import {
  type DynamoDbLocal,
  ensureTable,
  type IndexChanges,
  localClient,
  startDynamoDbLocal,
} from '../../scripts/local/dynamodb.ts';
import { freePort } from '../../scripts/local/ports.ts';
import { seeded } from '../support/random.ts';
import { freshTable } from '../support/stack.ts';

// Words in families a prefix reaches and words a typo or two apart, with a skewed frequency so some terms split into
// several blocks while others keep one.
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
/**
 * The dictionary as the retriever reads it: less the shrunk set's ghosts (keys.ts; the edits below keep the postings
 * of the words they take out), read once the index is written.
 */
let counted: Dictionary;
/** The shrunk set's ghosts, per term. */
let ghosts: Map<string, number>;
const corpus = new Map<number, Item>();

/** Every term of the dictionary with its df, from the items themselves (exact forms are no dictionary terms). */
function vocabulary(): Map<string, number> {
  const df = new Map<string, number>();
  for (const item of corpus.values())
    for (const term of new Set(tokenize(itemText(item)))) df.set(term, (df.get(term) ?? 0) + 1);
  return df;
}
/** The items as the index holds them: stems, and exact forms beside them (tokenizer.ts, step 7). */
const indexed = () => [...corpus.values()].map((item) => ({ id: item.id, ...indexTerms(itemText(item)) }));
/** The terms of a list of dictionary terms. */
const termsOf = (list: { term: string }[]) => list.map(({ term }) => term);
/** The exhaustive answer: every term that begins with `prefix`, the `limit` with the most postings, in term order. */
const exhaustiveTop = (prefix: string, limit: number) =>
  [...vocabulary()]
    .filter(([term]) => term.startsWith(prefix))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([term]) => term)
    .sort();
/**
 * An expansion without the completions and corrections that have no postings: an entry may linger for a term whose
 * postings are all gone, and a reader passes it on unless it must rank by df (they match nothing: dictionary.ts).
 */
const live = ({ weights, origins }: Awaited<ReturnType<typeof expandQuery>>) => {
  const dfs = vocabulary();
  return [...weights].filter(
    ([term]) => !['prefix', 'typo'].includes(origins.get(term)?.kind ?? '') || (dfs.get(term) ?? 0) > 0,
  );
};

beforeAll(async () => {
  table = await freshTable();
  items = createItemRepository(table);
  dictionary = createDictionary({ ...table, cacheMs: 0 });
  // Blocks of three postings: common terms seal blocks, rare ones do not.
  const indexer = createIndexer({ ...table, items, blockCapacity: 3 });
  for (let i = 0; i < 90; i++) {
    const item = await items.create({
      name: sentence(1 + Math.floor(next() * 3)),
      description: `${sentence(Math.floor(next() * 25))} ${rare(i)} ${rare(i % 7)} ${rare(90 + i)}`,
      tags: [word()].filter((tag) => /^[a-z]+$/.test(tag)),
      attributes: {},
    });
    corpus.set(item.id, item);
  }
  const ids = [...corpus.keys()];
  for (let start = 0; start < ids.length; start += 30)
    await indexer.reindexItems(ids.slice(start, start + 30));
  // Deletions and edits: terms lose postings, some all of them (a tail emptied by a removal from a sealed block keeps
  // its entry at df 0: dictionary.ts), and edits bring new terms.
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
  ghosts = ghostCounts(shrunkOf(await queryEach(table.client, shrunkQueries(table.tableName, true))));
  counted = lessGhosts(dictionary, Promise.resolve(ghosts));
}, 180_000);

describe('the term dictionary', () => {
  it('lists exactly the indexed terms with their df classes, by prefix and by length', async () => {
    const expected = vocabulary();
    expect(expected.size).toBeGreaterThan(60);
    // Both kinds of entry are there: terms of one block (at most three postings) and split terms.
    expect([...expected.values()].filter((df) => df <= 3).length).toBeGreaterThan(40);
    expect([...expected.values()].filter((df) => df > 3).length).toBeGreaterThan(20);
    const prefixes = new Set(
      [...expected.keys()].flatMap((t) => [[...t].slice(0, 2).join(''), [...t].slice(0, 3).join('')]),
    );
    const zero = await splitTermsAtZero();
    let unknown = 0;
    for (const prefix of prefixes) {
      if ([...prefix].length < 2) continue;
      const listed = await counted.withPrefix(prefix);
      // Every indexed term that begins with it, with its df class; a term whose class a removal from a sealed block
      // took away has none (and may have no postings left).
      expect(
        listed.filter(({ term }) => expected.has(term)).map(({ term }) => term),
        prefix,
      ).toStrictEqual([...expected.keys()].filter((t) => t.startsWith(prefix)).sort());
      for (const { term, dfClass: known } of listed) {
        if (known === undefined) unknown++;
        else expect(known, term).toBe(dfClass(expected.get(term) ?? 0));
        if (!expected.has(term)) expect(known, term).toBeUndefined();
      }
    }
    // The edits and deletions of beforeAll removed postings from sealed blocks: such terms are there.
    expect(unknown).toBeGreaterThan(0);
    // The length index holds keys only: its terms with a df above 0 are exactly the indexed ones.
    const reference = dictionaryInMemory(expected);
    for (let length = 1; length <= 12; length++) {
      const listed = await counted.ofLength(length);
      const dfs = await counted.dfOf(listed);
      expect(
        listed.filter((term) => (dfs.get(term) ?? 0) > 0),
        `length ${length}`,
      ).toStrictEqual(await reference.ofLength(length));
      for (const term of listed) expect(dfs.get(term)).toBe(expected.get(term) ?? 0);
      // A term no item holds: its tail at df 0, or postings that are all ghosts.
      for (const term of listed.filter((t) => !expected.has(t)))
        expect(zero.has(`T#${term}`) || (ghosts.get(term) ?? 0) > 0, term).toBe(true);
      // And by last code point: the same terms, a range of the index each.
      const lasts = new Set(listed.map((term) => [...term].at(-1) ?? ''));
      const ending = await Promise.all([...lasts].map((last) => counted.endingWith(length, last)));
      expect(ending.flat().sort(), `length ${length}`).toStrictEqual([...listed].sort());
      for (const [i, last] of [...lasts].entries())
        expect(ending[i]?.every((term) => term.endsWith(last))).toBe(true);
    }
  });

  it('completes a prefix with exactly the terms an exhaustive ranking by df over every term picks, at any limit', async () => {
    const expected = vocabulary();
    const prefixes = [...new Set([...expected.keys()].map((t) => [...t].slice(0, 2).join('')))].filter(
      (p) => [...p].length === 2,
    );
    // "zq" has more rare terms (df 1–14) than PREFIX_TERMS, so a class is split and its dfs read.
    expect([...expected.keys()].filter((t) => t.startsWith('zq')).length).toBeGreaterThan(PREFIX_TERMS);
    for (const prefix of prefixes) {
      const found = await completions(counted, prefix);
      expect(termsOf(found), prefix).toStrictEqual(exhaustiveTop(prefix, PREFIX_TERMS));
      // Each with its df class, unless a removal from a sealed block took it away and no ranking needed it.
      for (const { term, dfClass: c } of found)
        if (c !== undefined) expect(c, term).toBe(dfClass(expected.get(term) ?? 0));
    }
    // Every limit over the largest families: the class where it falls is ranked by the dfs read from the tails.
    for (const prefix of ['zq', 'hi', 'bo', 'wa'])
      for (let limit = 1; limit <= 60; limit++)
        expect(termsOf(await completions(counted, prefix, limit)), `${prefix} ${limit}`).toStrictEqual(
          exhaustiveTop(prefix, limit),
        );
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
    // Edits at the first letters and at the last: found by the terms that end as the word does, or begin as it does.
    ['rtail qantern pocke', { typos: 1 }],
    ['xwaterproof waterproofs', { typos: 1 }],
  ] as const;

  it.each(cases)('expands %j %j exactly as over every indexed term', async (query, options) => {
    const fromTable = await expandQuery(query, options, counted);
    const exhaustive = await expandQuery(query, options, dictionaryInMemory(vocabulary()));
    expect(live(fromTable)).toStrictEqual([...exhaustive.weights]);
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
      const { weights, wordOf } = await expandQuery(query, options, dictionaryInMemory(vocabulary()));
      const expected = rankInMemory(indexed(), weights, 10, wordOf);
      const { results } = await retrieve({ query, topK: 10, minScore: 0, ...options });
      expect(results.map((r) => r.item.id)).toStrictEqual(expected.map((r) => r.id));
      results.forEach((result, i) => {
        expect(Math.abs(result.score - (expected[i]?.score ?? 0)) / result.score).toBeLessThan(1e-9);
        expect(result.matchedTerms).toStrictEqual(expected[i]?.matchedTerms.filter(isDictionaryTerm));
      });
    },
  );

  it("scores a word's completions and corrections as one term: an item holding several scores their best (contract §8.6)", async () => {
    const retrieve = createRetriever({
      search: createSearch({ ...table, maxBlocks: Number.POSITIVE_INFINITY }),
      items,
      dictionary,
    });
    const docs = indexed();
    for (const [query, options] of [
      ['hil', { prefix: true }],
      ['hikr', { typos: 1 }],
    ] as const) {
      const { weights, wordOf } = await expandQuery(query, options, dictionaryInMemory(vocabulary()));
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
        expect(new Set(result.matchedTerms.map((term) => wordOf.get(term))).size).toBe(1);
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

describe('the first reads of a query with prefix or typos', () => {
  /** The table's client, each command passed to `on` first (which may hold it, or fail it). */
  const watched = (on: (command: unknown) => Promise<void>) =>
    new Proxy(table.client, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return async (command: Parameters<typeof table.client.send>[0]) => {
          await on(command);
          return table.client.send(command);
        };
      },
    });
  const isTermRead = (command: unknown, term: string) =>
    command instanceof QueryCommand &&
    command.input.ExpressionAttributeValues?.[':pk'] === termPk(term) &&
    command.input.ExpressionAttributeValues?.[':tail'] === TAIL_SK;
  const [boot = ''] = tokenize('boots');

  it("reads the words' own terms and the corpus counts beside the dictionary's reads, each once", async () => {
    const request = { query: 'boots hik', topK: 5, minScore: 0, prefix: true } as const;
    const expected = await createRetriever({ search: createSearch(table), items, dictionary })(request);
    expect(expected.results.length).toBeGreaterThan(0);
    // The dictionary's reads are held until the word's tail has been asked for: read one after the other, they stall.
    let asked = () => {};
    const termAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let termReads = 0;
    const client = watched(async (command) => {
      if (isTermRead(command, boot)) {
        termReads++;
        asked();
      }
      if (command instanceof QueryCommand && command.input.IndexName !== undefined)
        await Promise.race([
          termAsked,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('the term was not read alongside')), 5000),
          ),
        ]);
    });
    const own = { client, tableName: table.tableName };
    const retrieve = createRetriever({ search: createSearch(own), items, dictionary: createDictionary(own) });
    expect(await retrieve(request)).toStrictEqual(expected);
    expect(termReads).toBe(1);
  });

  it("rejects with the dictionary's failure and leaves no read begun beside it unhandled", async () => {
    // The dictionary fails at once; the term's read and the counts' fail after it, with nothing awaiting them.
    const client = watched(async (command) => {
      if (!(command instanceof QueryCommand)) return;
      if (command.input.IndexName !== undefined) throw new Error('dictionary unavailable');
      await new Promise((resolve) => setTimeout(resolve, 50));
      throw new Error('table unavailable');
    });
    const own = { client, tableName: table.tableName };
    const retrieve = createRetriever({ search: createSearch(own), items, dictionary: createDictionary(own) });
    await expect(retrieve({ query: 'boots hik', topK: 5, minScore: 0, prefix: true })).rejects.toThrow(
      'dictionary unavailable',
    );
    // Vitest fails the run on an unhandled rejection: the late failures land while this test still runs.
    await new Promise((resolve) => setTimeout(resolve, 200));
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

describe('a warm container’s dictionary', () => {
  /** A table's client, listing the commands it sends as `named` names them (undefined: not listed). */
  const counting = (
    of: { client: typeof table.client } = table,
    named: (command: object) => string | undefined = (command) => command.constructor.name,
  ) => {
    const sent: string[] = [];
    const send = of.client.send.bind(of.client);
    const client = new Proxy(of.client, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return (...args: Parameters<typeof send>) => {
          const name = named(args[0]);
          if (name !== undefined) sent.push(name);
          return send(...args);
        };
      },
    });
    return { client, sent };
  };

  it('reads a partition once while it is fresh, and again once it is cacheMs old', async () => {
    const { client, sent } = counting();
    let clock = 0;
    const warm = createDictionary({ client, tableName: table.tableName, cacheMs: 1_000, now: () => clock });
    const first = await warm.ofLength(4);
    expect(await warm.ofLength(4)).toStrictEqual(first);
    expect(await warm.withPrefix('hi')).toStrictEqual(await warm.withPrefix('hi'));
    await warm.dfOf(['hike', 'hill']);
    await warm.dfOf(['hike', 'hill', 'boot']);
    expect(sent).toStrictEqual(['QueryCommand', 'QueryCommand', 'BatchGetCommand', 'BatchGetCommand']);
    clock = 999;
    await Promise.all([warm.ofLength(4), warm.withPrefix('hi'), warm.dfOf(['boot'])]);
    expect(sent).toHaveLength(4);
    clock = 2_000;
    expect(await warm.ofLength(4)).toStrictEqual(first);
    await warm.dfOf(['boot']);
    expect(sent).toHaveLength(6);
    // Concurrent requests for one partition share one read.
    clock = 4_000;
    await Promise.all([warm.ofLength(5), warm.ofLength(5), warm.ofLength(5)]);
    expect(sent).toHaveLength(7);
  });

  it('keeps a read past cacheMs for a session while the version it was read under holds, once that has settled', async () => {
    const { client, sent } = counting();
    let clock = 0;
    const warm = createDictionary({
      client,
      tableName: table.tableName,
      ...{ cacheMs: 1_000, settleMs: 2_000, versionedMs: 60_000 },
      now: () => clock,
    });
    const relied = async (read: (d: Dictionary) => Promise<unknown>) => {
      const session = warm.session();
      const before = sent.length;
      await read(session.dictionary);
      return { reads: sent.length - before, reliedOn: [...session.reliedOn] };
    };
    const length4 = (d: Dictionary) => d.ofLength(4);
    const dfs = (d: Dictionary) => d.dfOf(['hike', 'boot']);
    warm.observe(7);
    // Read 1 s after the version was first seen: not settled, so kept for cacheMs only.
    clock = 1_000;
    expect(await relied(length4)).toStrictEqual({ reads: 1, reliedOn: [] });
    clock = 2_500;
    expect(await relied(length4)).toStrictEqual({ reads: 1, reliedOn: [] });
    expect(await relied(dfs)).toStrictEqual({ reads: 1, reliedOn: [] });
    // Read at 2.5 s under version 7, settled since 0.5 s: a session uses them past cacheMs, relying on 7.
    clock = 30_000;
    expect(await relied(length4)).toStrictEqual({ reads: 0, reliedOn: [7] });
    expect(await relied(dfs)).toStrictEqual({ reads: 0, reliedOn: [7] });
    // A caller without a session never relies on a version: past cacheMs it reads.
    await warm.dfOf(['hike', 'boot']);
    expect(sent).toHaveLength(4);
    // The index moved on: nothing read under 7 is used again.
    clock = 31_500;
    warm.observe(8);
    expect(await relied(length4)).toStrictEqual({ reads: 1, reliedOn: [] });
    expect(await relied(dfs)).toStrictEqual({ reads: 1, reliedOn: [] });
    // Read at 31.5 s, when 8 had not settled; read again at 34 s under 8, which lasts versionedMs.
    clock = 34_000;
    expect(await relied(length4)).toStrictEqual({ reads: 1, reliedOn: [] });
    clock = 93_999;
    expect(await relied(length4)).toStrictEqual({ reads: 0, reliedOn: [8] });
    clock = 94_000;
    expect(await relied(length4)).toStrictEqual({ reads: 1, reliedOn: [] });
    // cacheMs 0 keeps nothing, under a version or not.
    const cold = createDictionary({ client, tableName: table.tableName, cacheMs: 0, now: () => clock });
    cold.observe(8);
    clock = 200_000;
    await cold.ofLength(4);
    const session = cold.session();
    await session.dictionary.ofLength(4);
    expect(sent).toHaveLength(10);
    expect(session.reliedOn.size).toBe(0);
  });

  it('finds a term committed after the expansion a warm container kept: the query is made again', async () => {
    const own = await freshTable();
    const ownItems = createItemRepository(own);
    const indexer = createIndexer({ ...own, items: ownItems });
    // The dictionary's reads (queries of its indexes).
    const { client, sent } = counting(own, (command) =>
      command instanceof QueryCommand && command.input.IndexName !== undefined
        ? command.input.IndexName
        : undefined,
    );
    const create = async (description: string) => {
      const item = await ownItems.create({ name: 'craft', description, tags: [], attributes: {} });
      await indexer.reindexItems([item.id]);
      return item.id;
    };
    const first = await create('a zephyr over the hills');
    await create('the zenith of the climb');
    let clock = 0;
    const retrieve = createRetriever({
      search: createSearch(own),
      items: ownItems,
      dictionary: createDictionary({ client, tableName: own.tableName, now: () => clock }),
    });
    const cold = createRetriever({
      search: createSearch(own),
      items: ownItems,
      dictionary: createDictionary({ ...own, cacheMs: 0 }),
    });
    const request = { query: 'zep', topK: 5, minScore: 0, prefix: true } as const;
    const ids = async () => (await retrieve(request)).results.map((r) => r.item.id);
    // The first query sees the version; one 3 s later reads the dictionary under it; one later still reads nothing.
    expect(await ids()).toContain(first);
    clock = 3_000;
    await ids();
    expect(sent).toHaveLength(2);
    clock = 60_000;
    expect(await retrieve(request)).toStrictEqual(await cold(request));
    expect(sent).toHaveLength(2);
    // A new completion of "zep", committed: the kept expansion lacks it, the counts show the commit, the query is
    // made again and reads the dictionary afresh.
    const added = await create('a zeppelin at dawn');
    clock = 70_000;
    const found = await ids();
    expect(found).toContain(added);
    expect(found).toContain(first);
    expect(sent).toHaveLength(3);
    expect(await retrieve(request)).toStrictEqual(await cold(request));
  });

  it('keeps at most cacheTerms terms, the least recently used going first', async () => {
    const { client, sent } = counting();
    const lengths = [4, 5, 6];
    const sizes = await Promise.all(lengths.map((l) => dictionary.ofLength(l)));
    const small = createDictionary({
      client,
      tableName: table.tableName,
      cacheTerms: (sizes[1]?.length ?? 0) + (sizes[2]?.length ?? 0),
    });
    for (const length of lengths) await small.ofLength(length);
    expect(sent).toHaveLength(3);
    // 4 went to make room for 6; 5 and 6 are still there.
    await small.ofLength(6);
    await small.ofLength(5);
    expect(sent).toHaveLength(3);
    await small.ofLength(4);
    expect(sent).toHaveLength(4);
  });
});

describe('npm run reindex -- --dictionary (tails that lost their df class)', () => {
  it('puts every tail’s entry with its df class back, leaves the rest, and gives exhaustive completions again', async () => {
    const rows = await tails();
    // Strip every class (as a removal from a sealed block takes a tail's away: postings.ts).
    for (const row of rows)
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk: row.pk, sk: TAIL_SK },
          UpdateExpression: 'REMOVE wf',
        }),
      );
    const withEntries = rows.filter((row) => row.wt !== undefined && (row.df as number) > 0);
    expect(withEntries.length).toBeGreaterThan(60);
    // The writers' blocks of 3 (so the tails that list their directory are the ones the writer made list it).
    const first = await backfillDictionary({ ...table, blockCapacity: 3 });
    expect(first).toStrictEqual({ tails: rows.length, entries: rows.filter(needsEntry).length });
    for (const row of await tails()) {
      const term = termOfPk(row.pk) ?? '';
      const df = row.df as number;
      if (df > 0 && isDictionaryTerm(term)) expect(row.wf, term).toBe(dfClass(df));
      else expect([row.wt, row.wf], term).toStrictEqual([undefined, undefined]);
    }
    // Nothing left to do.
    expect(await backfillDictionary({ ...table, blockCapacity: 3 })).toStrictEqual({
      tails: rows.length,
      entries: 0,
    });
    for (const prefix of ['zq', 'hi', 'bo'])
      expect(termsOf(await completions(counted, prefix))).toStrictEqual(exhaustiveTop(prefix, PREFIX_TERMS));
  });
});

/** Every term's tail (a consistent scan). */
async function tails() {
  const { Items = [] } = await table.client.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'sk = :tail',
      ExpressionAttributeValues: { ':tail': TAIL_SK },
      ConsistentRead: true,
    }),
  );
  return Items;
}
/** Whether a tail without its df class needs an entry written: a dictionary term with postings, or one to remove. */
const needsEntry = (row: Record<string, unknown>) =>
  ((row.df as number) > 0 && isDictionaryTerm(termOfPk(row.pk) ?? '')) || row.wt !== undefined;

describe('a local table whose indexes differ from infra/table.json', { timeout: 180_000 }, () => {
  // A DynamoDB Local of its own: on the stack's, which the suite's other files keep busy, an index's change was seen
  // to stay CREATING or DELETING for minutes (it takes about a second alone).
  let own: DynamoDbLocal;
  beforeAll(async () => {
    own = await startDynamoDbLocal({ port: await freePort() });
  }, 120_000);
  afterAll(() => own?.stop());
  const oldTable = async (indexes: CreateTableCommandInput['GlobalSecondaryIndexes']) => {
    const raw = localClient(own.endpoint);
    const tableName = `old-${randomUUID()}`;
    await raw.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          ...(indexes?.length
            ? (['wp', 'wl', 'wt'] as const).map((name) => ({
                AttributeName: name,
                AttributeType: 'S' as const,
              }))
            : []),
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        ...(indexes?.length ? { GlobalSecondaryIndexes: indexes } : {}),
      }),
    );
    return { raw, tableName };
  };

  it('made before the dictionary is refused by ensureTable with what to do', async () => {
    const { raw, tableName } = await oldTable([]);
    await expect(ensureTable(raw, tableName)).rejects.toThrow(
      /lacks the index\(es\) terms-by-prefix-v2, terms-by-length-v2.*rm -rf \.local\/dynamodb/,
    );
    raw.destroy();
  });

  it('with other term indexes gets the prefix index of df classes and the length index by last letters in their places', async () => {
    const { raw, tableName } = await oldTable([
      {
        IndexName: 'terms-by-prefix',
        KeySchema: [
          { AttributeName: 'wp', KeyType: 'HASH' },
          { AttributeName: 'wt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['df'] },
      },
      {
        IndexName: 'terms-by-length',
        KeySchema: [
          { AttributeName: 'wl', KeyType: 'HASH' },
          { AttributeName: 'wt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    const heard: IndexChanges[] = [];
    expect(await ensureTable(raw, tableName, { onIndexes: (changes) => heard.push(changes) })).toBe(false);
    // Created in infra/table.json's order; deleted in the order the table lists them.
    expect(heard.map(({ created, deleted }) => ({ created, deleted: [...deleted].sort() }))).toStrictEqual([
      {
        created: ['terms-by-prefix-v2', 'terms-by-length-v2'],
        deleted: ['terms-by-length', 'terms-by-prefix'],
      },
    ]);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName }));
    expect(
      (Table?.GlobalSecondaryIndexes ?? [])
        .map((index) => [index.IndexName, index.KeySchema?.map((k) => k.AttributeName), index.Projection])
        .sort(),
    ).toStrictEqual([
      ['terms-by-length-v2', ['wl', 'wr'], { ProjectionType: 'KEYS_ONLY' }],
      ['terms-by-prefix-v2', ['wp', 'wt'], { ProjectionType: 'INCLUDE', NonKeyAttributes: ['wf'] }],
    ]);
    // Once in line, nothing more happens.
    expect(await ensureTable(raw, tableName, { onIndexes: (changes) => heard.push(changes) })).toBe(false);
    expect(heard).toHaveLength(1);
    raw.destroy();
  });
});
