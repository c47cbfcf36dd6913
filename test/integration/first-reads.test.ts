import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryEach } from '../../lib/dynamodb/query-all.ts';
import { createItemLookup } from '../../lib/items/reader.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import { SHRUNK_PARTITIONS, shrunkOf, shrunkQueries } from '../../lib/search/format/keys.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { FIRST_READS_CACHE_MS, TAIL_READS_CACHE_MS } from '../../lib/search/read/first-reads.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { createRetriever, type Retriever } from '../../lib/search/read/retrieve.ts';
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

/** A client that lists the partition key of every Query it sends (the search's first reads are Queries). */
function counting(client: DynamoDBDocumentClient) {
  const queried: string[] = [];
  /** Every command sent, settled or not. */
  const sent: Promise<unknown>[] = [];
  const send = client.send.bind(client);
  const counted = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (...args: Parameters<typeof send>) => {
        const input = (args[0] as { input?: Record<string, unknown> }).input ?? {};
        const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
        if (args[0].constructor.name === 'QueryCommand' && !input.IndexName)
          queried.push(String(values[':pk']));
        const reply = Promise.resolve(send(...args));
        sent.push(reply);
        return reply;
      };
    },
  });
  return { client: counted, queried, sent };
}

/** The shrunk set's partitions, as a query reads them (all, side by side). */
const SHRUNK = Array.from({ length: SHRUNK_PARTITIONS }, (_, partition) => `SHRUNK#${partition}`);

/** A retriever over the table whose first reads are kept `cacheMs` (tails `tailCacheMs`) on a clock the test moves. */
function warmRetriever(cacheMs: number, tailCacheMs = cacheMs) {
  const { client, queried } = counting(table.client);
  const clock = { now: 0 };
  const own = { client, tableName: table.tableName };
  const retrieve: Retriever = createRetriever({
    search: createSearch({ ...own, firstReads: { cacheMs, tailCacheMs, now: () => clock.now } }),
    items: createItemLookup(own),
    dictionary: createDictionary({ ...own, cacheMs: 0 }),
  });
  return { retrieve, queried, clock };
}

const create = async (name: string) => {
  const item = await items.create({ name, description: name, tags: [], attributes: {} });
  await indexer.reindexItems([item.id]);
  return item;
};
const ids = async (retrieve: Retriever, query: string) =>
  (await retrieve({ query, topK: 10, minScore: 0 })).results.map((result) => result.item.id).sort();

describe('a warm container’s first reads', () => {
  it('reads the counts and a term’s tail once while they are fresh, and again once they are cacheMs old', async () => {
    const first = await create('quokka lantern');
    const { retrieve, queried, clock } = warmRetriever(1_000);
    expect(await ids(retrieve, 'quokka')).toStrictEqual([first.id]);
    expect(queried).toStrictEqual(['STATS', 'T#quokka']);
    // A second item with the word, indexed now: a query 999 ms after the first reads answers from them.
    const second = await create('quokka tapir');
    clock.now = 999;
    expect(await ids(retrieve, 'quokka')).toStrictEqual([first.id]);
    // Another word reads its own tail; the counts are still those kept.
    expect(await ids(retrieve, 'tapir')).toStrictEqual([second.id]);
    expect(queried).toStrictEqual(['STATS', 'T#quokka', 'T#tapir']);
    // cacheMs after the first reads, both are read again, and the new item is found.
    clock.now = 1_000;
    expect(await ids(retrieve, 'quokka')).toStrictEqual([first.id, second.id].sort());
    expect(queried).toStrictEqual(['STATS', 'T#quokka', 'T#tapir', 'STATS', 'T#quokka']);
  });

  it('never answers with an item deleted since, though its postings are in a kept tail', async () => {
    const kept = await create('wombat ember');
    const gone = await create('wombat cinder');
    const { retrieve, queried } = warmRetriever(60_000);
    expect(await ids(retrieve, 'wombat')).toStrictEqual([kept.id, gone.id].sort());
    await items.delete(gone.id);
    expect(await ids(retrieve, 'wombat')).toStrictEqual([kept.id]);
    expect(queried.filter((pk) => pk === 'T#wombat')).toHaveLength(1);
  });

  it('shares one read among concurrent queries, and keeps no failed read', async () => {
    await create('narwhal tundra');
    const { retrieve, queried } = warmRetriever(1_000);
    await Promise.all([1, 2, 3].map(() => retrieve({ query: 'narwhal', topK: 3, minScore: 0 })));
    expect(queried).toStrictEqual(['STATS', 'T#narwhal']);
    // A search on a table that does not exist fails; the failure is not kept: the next query reads again.
    const failing = counting(table.client);
    const missing = { client: failing.client, tableName: `${table.tableName}-missing` };
    const search = createSearch({ ...missing, firstReads: { cacheMs: 1_000, now: () => 0 } });
    await expect(search.start([]).stats).rejects.toThrow();
    // Once the failed read has settled (its callbacks run), it is out of the cache.
    await Promise.allSettled(failing.sent);
    await new Promise((settled) => setImmediate(settled));
    await expect(search.start([]).stats).rejects.toThrow();
    expect(failing.queried).toStrictEqual(['STATS', 'STATS']);
  });

  it('keeps at most cacheRecords records, the least recently used dropped first', async () => {
    for (const name of ['alpaca', 'bison', 'camel']) await create(name);
    // Room for two tails (the counts are kept apart, under the same bound).
    const { client, queried } = counting(table.client);
    const search = createSearch({
      client,
      tableName: table.tableName,
      firstReads: { cacheMs: 60_000, cacheRecords: 2, now: () => 0 },
    });
    const first = (term: string) => search.start([term]).terms.get(term);
    await first('alpaca');
    await first('bison');
    await first('alpaca');
    // camel's tail is one record too many: bison's, the least recently used, goes.
    await first('camel');
    await first('alpaca');
    await first('bison');
    expect(queried.filter((pk) => pk !== 'STATS')).toStrictEqual([
      'T#alpaca',
      'T#bison',
      'T#camel',
      'T#bison',
    ]);
  });

  it('keeps nothing with cacheMs 0, and in the service the counts 1 s, tails 250 ms', async () => {
    await create('ocelot');
    const { retrieve, queried } = warmRetriever(0);
    await ids(retrieve, 'ocelot');
    await ids(retrieve, 'ocelot');
    expect(queried).toStrictEqual(['STATS', 'T#ocelot', 'STATS', 'T#ocelot']);
    expect([FIRST_READS_CACHE_MS, TAIL_READS_CACHE_MS]).toStrictEqual([1_000, 250]);
  });

  it('finds a new item once the kept tail is tailCacheMs old, the counts still kept', async () => {
    const first = await create('pangolin reef');
    const { retrieve, queried, clock } = warmRetriever(1_000, 250);
    expect(await ids(retrieve, 'pangolin')).toStrictEqual([first.id]);
    const second = await create('pangolin shoal');
    clock.now = 249;
    expect(await ids(retrieve, 'pangolin')).toStrictEqual([first.id]);
    clock.now = 250;
    expect(await ids(retrieve, 'pangolin')).toStrictEqual([first.id, second.id].sort());
    expect(queried).toStrictEqual(['STATS', 'T#pangolin', 'T#pangolin']);
  });

  it('keeps the tails it reads by key (a prefix’s small completions) as it keeps those read by Query', async () => {
    await create('qwobbel ridge');
    await create('qwofer shelf');
    const tailsByKey: string[][] = [];
    const client = intercepting(table.client, (command, send) => {
      const keys = (command.input as { RequestItems?: Record<string, { Keys: { pk: string }[] }> })
        .RequestItems;
      const pks = Object.values(keys ?? {}).flatMap(({ Keys }) => Keys.map(({ pk }) => pk));
      if (pks.some((pk) => pk.startsWith('T#'))) tailsByKey.push(pks.sort());
      return send(command);
    });
    const clock = { now: 0 };
    const own = { client, tableName: table.tableName };
    const retrieve = createRetriever({
      search: createSearch({
        ...own,
        firstReads: { cacheMs: 1_000, tailCacheMs: 250, now: () => clock.now },
      }),
      items: createItemLookup(own),
      dictionary: createDictionary({ ...own, cacheMs: 0 }),
    });
    const ask = async () => (await retrieve({ query: 'qwo', prefix: true, topK: 5, minScore: 0 })).results;
    expect(await ask()).toHaveLength(2);
    expect(tailsByKey).toStrictEqual([['T#qwobbel', 'T#qwofer']]);
    clock.now = 249;
    expect(await ask()).toHaveLength(2);
    expect(tailsByKey).toHaveLength(1);
    clock.now = 250;
    expect(await ask()).toHaveLength(2);
    expect(tailsByKey).toHaveLength(2);
  });

  it('reads the shrunk set only while the counts say it has entries, beside the counts once a read found some', async () => {
    const { retrieve, queried, clock } = warmRetriever(1_000);
    const emu = await create('emu');
    expect(await ids(retrieve, 'emu')).toStrictEqual([emu.id]);
    expect(queried).toStrictEqual(['STATS', 'T#emu']);
    // A shorter item (its postings kept at the old length): an entry in the shrunk set.
    const long = await create('emu dune dune dune dune dune dune dune');
    await items.update(long.id, () => ({
      name: 'emu dune',
      description: 'emu dune',
      tags: [],
      attributes: {},
    }));
    await indexer.reindexItems([long.id]);
    const entries = shrunkOf(await queryEach(table.client, shrunkQueries(table.tableName)));
    expect(entries.map((entry) => entry.id)).toStrictEqual([long.id]);
    // The counts say so: the set's partitions are read after them, then kept with them.
    clock.now = 1_000;
    expect(await ids(retrieve, 'emu')).toStrictEqual([emu.id, long.id].sort());
    expect(queried.slice(2)).toStrictEqual(['STATS', 'T#emu', ...SHRUNK]);
    clock.now = 1_500;
    await ids(retrieve, 'emu');
    expect(queried).toHaveLength(8);
    // The next read begins the set's partitions beside the counts: no second round trip.
    clock.now = 2_000;
    await ids(retrieve, 'emu');
    expect(queried.slice(8)).toStrictEqual([...SHRUNK, 'STATS', 'T#emu']);
  });
});
