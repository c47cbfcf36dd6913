import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { writableFields } from '../../lib/items/merge-patch.ts';
import { createItemLookup } from '../../lib/items/reader.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import { BLOCK_CAPACITY } from '../../lib/search/format/blocks.ts';
import { tailKey } from '../../lib/search/format/keys.ts';
import { ANSWER_CACHE_MS, ANSWER_RANKING_MS, AnswerCache } from '../../lib/search/read/answers.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { createRetriever, type RetrieveInput, type Retriever } from '../../lib/search/read/retrieve.ts';
import { createIndexer, type Indexer } from '../../lib/search/write/indexer.ts';
import { intercepting } from '../support/index-state.ts';
import { freshTable } from '../support/stack.ts';

let table: Awaited<ReturnType<typeof freshTable>>;
let items: ItemRepository;
let indexer: Indexer;

beforeAll(async () => {
  table = await freshTable();
  items = createItemRepository(table);
  indexer = createIndexer({ ...table, items });
}, 60_000);

/**
 * A retriever as the service runs it (counts kept 1 s, tails 250 ms), answers kept (`answerMs`, `rankingMs`), on a
 * clock the test moves; `sent` lists the commands it sends, `rankings` counts the queries it ranked.
 */
function warmRetriever(answerMs: number, { limit = 1_000, rankingMs = ANSWER_RANKING_MS } = {}) {
  const sent: string[] = [];
  const clock = { now: 0 };
  const now = () => clock.now;
  const client = intercepting(table.client, (command, send) => {
    sent.push(command.constructor.name);
    return send(command);
  });
  const own = { client, tableName: table.tableName };
  const search = createSearch({ ...own, firstReads: { cacheMs: 1_000, tailCacheMs: 250, now } });
  const counted = { rankings: 0 };
  const original = search.prepare;
  const prepare: typeof search.prepare = async (request) => {
    const prepared = await original(request);
    const run = () => {
      counted.rankings += 1;
      return prepared.run();
    };
    return { ...prepared, run };
  };
  const retrieve: Retriever = createRetriever({
    search: Object.assign(search, { prepare }),
    items: createItemLookup(own),
    dictionary: createDictionary({ ...own, cacheMs: 0 }),
    answers: new AnswerCache({ ms: answerMs, rankingMs, limit, now }),
  });
  return { retrieve, sent, clock, counted };
}

const create = async (name: string, description = name) => {
  const item = await items.create({ name, description, tags: [], attributes: {} });
  await indexer.reindexItems([item.id]);
  return item;
};
const request = (query: string, more: Partial<RetrieveInput> = {}) => ({
  query,
  topK: 10,
  minScore: 0,
  ...more,
});
const ranked = async (retrieve: Retriever, query: string, more: Partial<RetrieveInput> = {}) =>
  (await retrieve(request(query, more))).results.map(({ item, score }) => ({ id: item.id, score }));

describe('a warm container’s answers', () => {
  it('serves a query again without a read while its first reads find the same, its items read each ANSWER_CACHE_MS', async () => {
    const first = await create('okapi lantern');
    const { retrieve, sent, clock, counted } = warmRetriever(ANSWER_CACHE_MS);
    const answer = await ranked(retrieve, 'okapi');
    expect(answer.map(({ id }) => id)).toStrictEqual([first.id]);
    expect(counted.rankings).toBe(1);
    // Everything kept: no read at all.
    sent.length = 0;
    clock.now = 100;
    expect(await ranked(retrieve, 'okapi')).toStrictEqual(answer);
    expect(sent).toStrictEqual([]);
    // The tail read again (250 ms), unchanged: the answer still holds, no item is read.
    clock.now = 300;
    expect(await ranked(retrieve, 'okapi')).toStrictEqual(answer);
    expect(sent).toStrictEqual(['QueryCommand']);
    // ANSWER_CACHE_MS after it was ranked, its item is read again: unchanged, the answer stands, not ranked again.
    sent.length = 0;
    clock.now = ANSWER_CACHE_MS;
    expect(await ranked(retrieve, 'okapi')).toStrictEqual(answer);
    expect(sent).toContain('BatchGetCommand');
    expect(counted.rankings).toBe(1);
    sent.length = 0;
    clock.now = ANSWER_CACHE_MS + 100;
    expect(await ranked(retrieve, 'okapi')).toStrictEqual(answer);
    expect(sent).toStrictEqual([]);
  });

  it('ranks a query again once its ranking is rankingMs old, though nothing changed', async () => {
    await create('kinkajou lantern');
    const { retrieve, clock, counted } = warmRetriever(1_000, { rankingMs: 5_000 });
    const answer = await ranked(retrieve, 'kinkajou');
    clock.now = 4_999;
    expect(await ranked(retrieve, 'kinkajou')).toStrictEqual(answer);
    expect(counted.rankings).toBe(1);
    clock.now = 5_000;
    expect(await ranked(retrieve, 'kinkajou')).toStrictEqual(answer);
    expect(counted.rankings).toBe(2);
  });

  it('ranks again, ANSWER_CACHE_MS after it ranked, a query one of whose items has changed', async () => {
    const item = await create('axolotl pond');
    const { retrieve, clock, counted } = warmRetriever(ANSWER_CACHE_MS);
    const before = await retrieve(request('axolotl'));
    // A change the index holds nothing of (its stream record not yet indexed: no stamp moves).
    await items.update(item.id, (current) => ({
      ...writableFields(current),
      attributes: { colour: 'pink' },
    }));
    clock.now = ANSWER_CACHE_MS - 1;
    expect(await retrieve(request('axolotl'))).toStrictEqual(before);
    clock.now = ANSWER_CACHE_MS;
    const after = await retrieve(request('axolotl'));
    expect(after.results[0]?.item.attributes).toStrictEqual({ colour: 'pink' });
    expect(counted.rankings).toBe(2);
  });

  it('finds a new item as soon as its term’s tail is read again, however long answers are kept', async () => {
    const first = await create('dugong ember');
    const { retrieve, clock } = warmRetriever(60_000);
    expect((await ranked(retrieve, 'dugong')).map(({ id }) => id)).toStrictEqual([first.id]);
    const second = await create('dugong cinder');
    // The counts are still those kept (1 s): only the tail's version has moved.
    clock.now = 250;
    expect((await ranked(retrieve, 'dugong')).map(({ id }) => id).sort()).toStrictEqual(
      [first.id, second.id].sort(),
    );
  });

  it('ranks again once the counts show a commit, though no tail of its terms changed', async () => {
    await create('tapir meadow');
    await create('tapir tapir river');
    const { retrieve, clock } = warmRetriever(60_000);
    const before = await ranked(retrieve, 'tapir');
    // Another item, of other words: N changes, and with it every idf, but no tail of `tapir`.
    await create('gecko stone');
    clock.now = 999;
    expect(await ranked(retrieve, 'tapir')).toStrictEqual(before);
    clock.now = 1_000;
    const after = await ranked(retrieve, 'tapir');
    expect(after.map(({ id }) => id)).toStrictEqual(before.map(({ id }) => id));
    expect(after.map(({ score }) => score)).not.toStrictEqual(before.map(({ score }) => score));
    expect(after).toStrictEqual(await ranked(warmRetriever(0).retrieve, 'tapir'));
  });

  it('ranks again after an edit that changed only a sealed block, once the counts show its commit', async () => {
    // The first item holds `ibex` twice, the others once: its posting, in a sealed block, is the best.
    const made = [];
    for (let i = 0; i < BLOCK_CAPACITY + 8; i++) {
      const name = i === 0 ? 'ibex ibex 0' : `ibex ${i}`;
      made.push(await items.create({ name, description: '', tags: [], attributes: {} }));
    }
    await indexer.reindexItems(made.map(({ id }) => id));
    const { retrieve, clock } = warmRetriever(60_000);
    const before = await ranked(retrieve, 'ibex');
    const oldest = made[0];
    expect(before[0]?.id).toBe(oldest?.id);
    if (!oldest) throw new Error('no item');
    // An edit that lowers its tf: its sealed block changes, and neither its term's df nor the block's bound.
    const home = async () =>
      (await table.client.send(new GetCommand({ TableName: table.tableName, Key: tailKey('ibex') }))).Item?.v;
    const version = await home();
    await items.update(oldest.id, (current) => ({ ...writableFields(current), name: 'ibex zebu 0' }));
    await indexer.reindexItems([oldest.id]);
    expect(await home()).toBe(version);
    clock.now = 999;
    expect(await ranked(retrieve, 'ibex')).toStrictEqual(before);
    clock.now = 1_000;
    const after = await ranked(retrieve, 'ibex');
    expect(after[0]?.id).not.toBe(oldest.id);
    expect(after).toStrictEqual(await ranked(warmRetriever(0).retrieve, 'ibex'));
  }, 60_000);

  it('keeps an answer for its request: another topK, filter or highlight is ranked for itself', async () => {
    await create('marmot one', 'marmot');
    await create('marmot two', 'marmot marmot');
    const { retrieve } = warmRetriever(60_000);
    expect(await ranked(retrieve, 'marmot', { topK: 1 })).toHaveLength(1);
    expect(await ranked(retrieve, 'marmot', { topK: 2 })).toHaveLength(2);
    expect(await ranked(retrieve, 'marmot', { topK: 2, filter: { tags: ['none'] } })).toStrictEqual([]);
    const highlighted = await retrieve(request('marmot', { topK: 2, highlight: true }));
    expect(highlighted.results.every((result) => result.highlights !== undefined)).toBe(true);
    expect((await retrieve(request('marmot', { topK: 2 }))).results[0]?.highlights).toBeUndefined();
  });

  it('serves a deleted item ANSWER_CACHE_MS at most', async () => {
    const kept = await create('wombat ember');
    const gone = await create('wombat cinder');
    const { retrieve, clock } = warmRetriever(ANSWER_CACHE_MS);
    expect((await ranked(retrieve, 'wombat')).map(({ id }) => id).sort()).toStrictEqual(
      [kept.id, gone.id].sort(),
    );
    await items.delete(gone.id);
    clock.now = ANSWER_CACHE_MS - 1;
    expect(await ranked(retrieve, 'wombat')).toHaveLength(2);
    clock.now = ANSWER_CACHE_MS;
    expect((await ranked(retrieve, 'wombat')).map(({ id }) => id)).toStrictEqual([kept.id]);
  });

  it('holds `limit` results at most, the least recently used answer dropped first', async () => {
    for (const name of ['quoll', 'numbat', 'bilby']) await create(name);
    const { retrieve, sent } = warmRetriever(60_000, { limit: 2 });
    for (const query of ['quoll', 'numbat', 'bilby']) await retrieve(request(query));
    // Room for two one-result answers: `quoll`'s was dropped, `bilby`'s is kept.
    sent.length = 0;
    await retrieve(request('bilby'));
    expect(sent).toStrictEqual([]);
    await retrieve(request('quoll'));
    expect(sent).toContain('BatchGetCommand');
  });
});
