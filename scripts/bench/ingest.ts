// `npm run bench:ingest`: how fast, and at what cost, the index keeps up with new items through the stream consumer's
// path on DynamoDB Local, for Cranfield's 1,400 documents and the synthetic collection of bench:scale: items written
// with the repository (8 writers), the stream read as scripts/local/stream-consumer.ts reads it, each batch handed to
// `indexChanges`; measured until the index has settled, with every index call metered (capacity.ts). The method is
// in BENCHMARKS.md ("Ingest").
//
// Options (environment): BENCH_INGEST_COLLECTIONS (cranfield,synthetic), BENCH_INGEST_SYNTHETIC (items of the
// synthetic collection, 10000; a prefix when smaller), BENCH_INGEST_EDITS (100), BENCH_INGEST_LIMIT_SECONDS (time
// limit per collection's ingest, 3600: past it the run stops and reports how far it got), BENCH_INGEST_PARALLEL
// (concurrent batches of the shard), BENCH_INGEST_REQUEST_TIMEOUT_MS.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../lib/concurrency.ts';
import { batchGet } from '../../lib/dynamodb/batch-get.ts';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import { queryAll } from '../../lib/dynamodb/query-all.ts';
import { allShardPks, isItemKey } from '../../lib/items/keys.ts';
import { writableFields } from '../../lib/items/merge-patch.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import type { ItemWrite } from '../../lib/items/schema.ts';
import { countsQuery, docKey, idOfDocKey, sumCounts } from '../../lib/search/format/keys.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { indexChanges } from '../../lib/search/write/stream.ts';
import { ensureTable } from '../local/dynamodb.ts';
import { concurrentBatches, deliverBatch, pollStream, streamSettings } from '../local/stream-batches.ts';
import { createMeter, hottest, type KeyTally, meterClient, newTally, type Tally } from './capacity.ts';
import { envList, envNumber, fmt, pause, RESULTS_DIR, raisePriority, table, writeResult } from './common.ts';
import { cranfieldWrite, loadCranfield } from './cranfield.ts';
import { withDynamoDb } from './service.ts';
import { syntheticWrite } from './synthetic.ts';

const COLLECTIONS = envList('BENCH_INGEST_COLLECTIONS', 'cranfield,synthetic');
const SYNTHETIC_SIZE = envNumber('BENCH_INGEST_SYNTHETIC', 10_000);
const SYNTHETIC_FULL = 10_000;
const EDITS = envNumber('BENCH_INGEST_EDITS', 100);
const LIMIT_SECONDS = envNumber('BENCH_INGEST_LIMIT_SECONDS', 3600);
/** Concurrent writers of items (the repository's create), and of the edits. */
const WRITERS = 8;
/** As scripts/local/stream-consumer.ts (and serverless.yml, both from infra/stream.json): item records a batch. */
const BATCH_LIMIT = streamSettings.batchSize;
/** Concurrent batches of the shard (Lambda's parallelizationFactor): BENCH_INGEST_PARALLEL, else infra/stream.json's. */
const PARALLEL = envNumber('BENCH_INGEST_PARALLEL', streamSettings.parallelizationFactor);
/**
 * Per-request time limit of every client here. The handler's client allows 2 s (lib/dynamodb/client.ts); DynamoDB
 * Local on this shared 2-core machine stalls past that under load, and a timed-out batch is retried, which
 * measures the machine, not the index. Same client factory and retries otherwise.
 */
const REQUEST_TIMEOUT_MS = envNumber('BENCH_INGEST_REQUEST_TIMEOUT_MS', 10_000);
const started = Date.now();
const priority = raisePriority();

// How the benchmark tells that the index has settled: an item is indexed at version v when its doc record holds
// version v and no unfinished rebuild (`pending`), and N (the counts' parts' `docs`) is the number of items. Reads
// go through an unmetered client: they are the benchmark's, not the index's.
/** The version each of `ids` is indexed at (missing: not indexed). */
async function indexedVersions(client: DynamoDBDocumentClient, tableName: string, ids: readonly number[]) {
  const docs = await batchGet(client, tableName, ids.map(docKey), { consistent: true });
  const done = docs.filter((doc) => !(doc.pending as unknown[] | undefined)?.length);
  return new Map(done.map((doc) => [idOfDocKey(String(doc.pk), String(doc.sk)) ?? 0, Number(doc.version)]));
}
/** Whether N, as the index has it, is the number of items in the table (every shard's). */
async function countsAgree(client: DynamoDBDocumentClient, TableName: string): Promise<boolean> {
  const { docs } = sumCounts(await queryAll(client, countsQuery(TableName, true)));
  let items = 0;
  for (const pk of allShardPks()) {
    const query = { TableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } };
    items += (await queryAll(client, { ...query, ProjectionExpression: 'pk', ConsistentRead: true })).length;
  }
  return docs === items;
}

/**
 * Polls until every id in `expected` is indexed at its version and N equals the items in the table, or the
 * deadline passes. Returns when it settled (ms since the epoch; undefined at the deadline) and how many are in.
 */
async function settle(
  client: DynamoDBDocumentClient,
  tableName: string,
  expected: Map<number, number>,
  deadline: number,
  label: string,
): Promise<{ at: number | undefined; done: number }> {
  const waiting = new Set(expected.keys());
  let lastLog = Date.now();
  const begin = Date.now();
  while (Date.now() < deadline) {
    // The oldest first, 100 at a time: the stream delivers in order, so the probe moves on while whole chunks
    // are in, and pauses at the first chunk that is not.
    for (let probe = [...waiting].slice(0, 100); probe.length > 0; probe = [...waiting].slice(0, 100)) {
      const versions = await indexedVersions(client, tableName, probe);
      for (const id of probe) if (versions.get(id) === expected.get(id)) waiting.delete(id);
      if (probe.some((id) => waiting.has(id))) break;
    }
    if (waiting.size === 0 && (await countsAgree(client, tableName)))
      return { at: Date.now(), done: expected.size };
    if (Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      const [done, seconds] = [expected.size - waiting.size, (Date.now() - begin) / 1000];
      console.log(
        `  ${label}: ${done}/${expected.size} indexed after ${seconds.toFixed(0)} s (${(done / seconds).toFixed(1)}/s)`,
      );
    }
    await pause(250);
  }
  return { at: undefined, done: expected.size - waiting.size };
}

/**
 * DynamoDB Local's own pace: how many small conditional PutItems it takes a second with as many in flight as the
 * index writer keeps (32), on a scratch table.
 */
async function conditionalPutRate(raw: DynamoDBClient): Promise<number> {
  const scratch = `rate-${randomUUID()}`;
  await ensureTable(raw, scratch);
  const client = DynamoDBDocumentClient.from(raw);
  const count = 2_000;
  const begin = performance.now();
  await mapLimit(
    Array.from({ length: count }, (_, i) => i),
    32,
    (i) => {
      const Item = { pk: `T#rate${i}`, sk: 'B#~', p: '000123#0000000000000001:1:40', v: 1 };
      return client.send(
        new PutCommand({ TableName: scratch, Item, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    },
  );
  return count / ((performance.now() - begin) / 1000);
}

/** Index and item units per new item (or per edit). */
const perUnit = (tally: Tally, count: number) => ({
  wcu: tally.wcu / count,
  /** Of wcu, the term dictionary's index writes (capacity.ts). */
  dictionaryWcu: tally.indexWcu / count,
  reportedWcu: tally.reportedWcu / count,
  rcu: tally.rcu / count,
  requests: tally.calls / count,
});

async function runCollection(name: string, label: string, writes: ItemWrite[]) {
  return withDynamoDb([], async ({ endpoint, raw }) => {
    const tableName = `ingest-${randomUUID()}`;
    await ensureTable(raw, tableName);
    // DynamoDB Local's own pace, before and after the run (the machine is shared: both are shown).
    const ratedBefore = await conditionalPutRate(raw);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) throw new Error('the table has no stream');

    // The items' own writes (the API's repository) and the index's calls (the handler's runtime: one client
    // for the indexer and the repository it reads items with) are metered apart.
    const options = { region: 'us-east-1', endpoint, requestTimeoutMs: REQUEST_TIMEOUT_MS };
    const itemClient = createDocumentClient(options);
    const indexClient = createDocumentClient(options);
    const probeClient = createDocumentClient(options);
    const [itemMeter, indexMeter] = [createMeter(), createMeter()];
    meterClient(itemClient, itemMeter);
    meterClient(indexClient, indexMeter);
    const items = createItemRepository({ client: itemClient, tableName });
    const indexer = createIndexer({
      client: indexClient,
      tableName,
      items: createItemRepository({ client: indexClient, tableName }),
    });

    // The stream, read as the local consumer reads it; Lambda's parallelizationFactor: the shard's batch indexed as
    // that many concurrent batches, each retried (or given up) as Lambda would.
    const consumer = { batches: 0, records: 0, itemRecords: 0, retries: 0, lastBusy: 0 };
    let stopping = false;
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials });
    const polling = pollStream(streams, streamArn, {
      batchSize: BATCH_LIMIT,
      stopping: () => stopping,
      deliver: async (records, shardId, read) => {
        consumer.batches++;
        consumer.records += read;
        consumer.itemRecords += records.filter((r) =>
          isItemKey({ pk: r.dynamodb?.Keys?.pk?.S, sk: r.dynamodb?.Keys?.sk?.S }),
        ).length;
        const deliver = (batch: typeof records) =>
          deliverBatch(batch, {
            handler: async (event) => {
              const reply = await indexChanges(indexer, event.Records);
              if (reply.batchItemFailures.length > 0) consumer.retries++;
              return reply;
            },
            settings: streamSettings,
            streamArn,
            shardId,
            stopping: () => stopping,
            onFailure: () => {},
          });
        await Promise.all(concurrentBatches(records, PARALLEL).map(deliver));
        consumer.lastBusy = Date.now();
      },
    });
    /** Waits until the consumer has had nothing to index for 2 s (or a minute past `deadline`). */
    const quiet = async (deadline: number) => {
      const since = Date.now();
      while (Date.now() - Math.max(consumer.lastBusy, since) < 2_000 && Date.now() < deadline + 60_000)
        await pause(200);
    };

    const deadline = Date.now() + LIMIT_SECONDS * 1000;
    const loadAtStart = loadavg()[0] ?? 0;
    const begin = Date.now();
    const expected = new Map<number, number>();
    let next = 0;
    const writer = async () => {
      for (let fields = writes[next++]; fields && Date.now() < deadline; fields = writes[next++]) {
        const item = await items.create(fields);
        expected.set(item.id, item.version);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    const written = Date.now();
    console.log(`  ${label}: ${expected.size} items written in ${((written - begin) / 1000).toFixed(1)} s`);
    const ingest = await settle(probeClient, tableName, expected, deadline, label);
    const seconds = ((ingest.at ?? Date.now()) - begin) / 1000;
    console.log(
      `  ${label}: ${ingest.done}/${expected.size} indexed in ${seconds.toFixed(1)} s${ingest.at ? '' : ' (time limit)'}`,
    );

    // Let the consumer finish the stream's tail (re-deliveries of settled items) before counting edits apart.
    await quiet(deadline);
    const [ingestIndex, ingestItems] = [indexMeter.tally, itemMeter.tally];
    const ingestConsumer = { ...consumer };

    // Edits: a sample spread over the collection, each appending words to the description (its length changes,
    // so every posting of the item changes), written as the patch handler writes them.
    let edits: { count: number; settled: boolean; seconds: number; index: Units; item: Units } | undefined;
    if (ingest.at !== undefined && EDITS > 0) {
      indexMeter.tally = newTally();
      itemMeter.tally = newTally();
      const ids = [...expected.keys()].sort((a, b) => a - b);
      const count = Math.min(EDITS, ids.length);
      const sample = Array.from({ length: count }, (_, i) => ids[Math.floor((i * ids.length) / count)] ?? 1);
      const editExpected = new Map<number, number>();
      const editBegin = Date.now();
      await mapLimit(sample, WRITERS, async (id) => {
        const item = await items.update(id, (current) => ({
          ...writableFields(current),
          description: `${current.description.slice(0, 4960)} Revised: measured again with newer apparatus.`,
        }));
        editExpected.set(id, item.version);
      });
      const editDeadline = Date.now() + LIMIT_SECONDS * 1000;
      const settled = await settle(probeClient, tableName, editExpected, editDeadline, `${label} edits`);
      const editSeconds = ((settled.at ?? Date.now()) - editBegin) / 1000;
      await quiet(editDeadline);
      const [index, item] = [perUnit(indexMeter.tally, count), perUnit(itemMeter.tally, count)];
      edits = { count, settled: settled.at !== undefined, seconds: editSeconds, index, item };
      console.log(
        `  ${label}: ${count} edits indexed in ${editSeconds.toFixed(1)} s, ${index.wcu.toFixed(1)} WCU and ${index.rcu.toFixed(1)} RCU of index per edit`,
      );
    }
    stopping = true;
    await polling;
    streams.destroy();

    const n = ingest.done;
    /** A key's tallies per 1,000 items ingested. */
    const per1000 = (keys: Map<string, KeyTally>, count: number, by: 'wcu' | 'transactions' = 'wcu') =>
      hottest(keys, count, by).map((k) => ({
        key: k.key,
        wcuPer1000: (k.wcu / n) * 1000,
        writesPer1000: (k.writes / n) * 1000,
        transactionsPer1000: (k.transactions / n) * 1000,
      }));
    const localPutsPerSecond = [ratedBefore, await conditionalPutRate(raw)];
    for (const c of [itemClient, indexClient, probeClient]) c.destroy();
    return {
      localPutsPerSecond,
      name,
      loadAverage: [loadAtStart, loadavg()[0] ?? 0],
      label,
      planned: writes.length,
      written: expected.size,
      indexed: n,
      settled: ingest.at !== undefined,
      writeSeconds: (written - begin) / 1000,
      seconds,
      itemsPerSecond: n / seconds,
      consumer: ingestConsumer,
      index: { ...perUnit(ingestIndex, n), total: ingestIndex.wcu },
      item: perUnit(ingestItems, n),
      hotKeys: per1000(ingestIndex.keys, 5),
      hotItems: per1000(ingestIndex.items, 5),
      transactedItems: per1000(ingestIndex.items, 3, 'transactions'),
      // The item writes' own keys (the id counter and the items' partitions are written by every create).
      itemHotKeys: per1000(ingestItems.keys, 3),
      edits,
    };
  });
}
type Units = ReturnType<typeof perUnit>;
type IngestCollection = Awaited<ReturnType<typeof runCollection>>;
type KeyRow = IngestCollection['hotKeys'][number];

const collections: IngestCollection[] = [];
for (const name of COLLECTIONS) {
  if (name === 'cranfield') {
    const writes = (await loadCranfield()).docs.map(cranfieldWrite);
    console.log(`ingest: Cranfield, ${writes.length} documents`);
    collections.push(await runCollection(name, `Cranfield (${writes.length.toLocaleString('en')})`, writes));
  } else if (name === 'synthetic') {
    const writes = Array.from({ length: SYNTHETIC_SIZE }, (_, i) => syntheticWrite(i + 1));
    const [size, full] = [SYNTHETIC_SIZE, SYNTHETIC_FULL].map((x) => x.toLocaleString('en'));
    const label =
      SYNTHETIC_SIZE < SYNTHETIC_FULL ? `synthetic, first ${size} of ${full}` : `synthetic ${size}`;
    console.log(`ingest: ${label}`);
    collections.push(await runCollection(name, label, writes));
  } else {
    throw new Error(`unknown collection ${name} (cranfield, synthetic)`);
  }
}

// A run of some collections keeps the latest figures of the others (BENCH_INGEST_COLLECTIONS=cranfield re-runs one).
const file = join(RESULTS_DIR, 'ingest.json');
const previous: IngestCollection[] = existsSync(file)
  ? JSON.parse(readFileSync(file, 'utf8')).data.collections
  : [];
const kept = previous.filter((c) => !collections.some((run) => run.name === c.name));
const data = {
  date: new Date().toISOString(),
  priority,
  writers: WRITERS,
  batchLimit: BATCH_LIMIT,
  collections: [...collections, ...kept],
};

/** A key and its figure, e.g. `427 (\`T#couton\`)`; the ceiling a key at 1,000 WCU/s allows, in items/s. */
const keyCell = (k: KeyRow | undefined, value: (k: KeyRow) => number) =>
  k ? `${fmt(value(k), 0)} (\`${k.key}\`)` : '—';
const ceiling = (k: KeyRow) => 1_000_000 / k.wcuPer1000;
const ROWS: [string, (c: IngestCollection) => string][] = [
  ['items indexed', (c) => `${c.label}${c.settled ? '' : `: ${c.indexed} before the time limit`}`],
  ['wall time, first create → index settled (s)', (c) => fmt(c.seconds)],
  ['**items/s** (indexed ÷ wall time)', (c) => `**${fmt(c.itemsPerSecond, 2)}**`],
  [`… of which writing the items (s; ${WRITERS} writers)`, (c) => fmt(c.writeSeconds)],
  ['index settled after the last item was written (s)', (c) => fmt(c.seconds - c.writeSeconds)],
  ['index requests per new item', (c) => fmt(c.index.requests)],
  [
    "DynamoDB Local's own rate: small conditional PutItems/s, 32 in flight (before / after the run)",
    (c) => c.localPutsPerSecond.map((r) => fmt(r, 0)).join(' / '),
  ],
  [
    'index WCU per new item (AWS rule; DynamoDB Local reported)',
    (c) => `${fmt(c.index.wcu)} (${fmt(c.index.reportedWcu)})`,
  ],
  ["of which the term dictionary's index writes", (c) => fmt(c.index.dictionaryWcu)],
  ['index RCU per new item', (c) => fmt(c.index.rcu)],
  ["the item's own WCU / RCU per create", (c) => `${fmt(c.item.wcu)} / ${fmt(c.item.rcu)}`],
  [
    'index WCU per edit (AWS rule; Local reported)',
    (c) =>
      c.edits ? `${fmt(c.edits.index.wcu)} (${fmt(c.edits.index.reportedWcu)}), ${c.edits.count} edits` : '—',
  ],
  ['index RCU per edit', (c) => fmt(c.edits?.index.rcu)],
  ['edits: wall time until indexed (s)', (c) => fmt(c.edits?.seconds)],
  ['hottest partition key: WCU per 1,000 items', (c) => keyCell(c.hotKeys[0], (k) => k.wcuPer1000)],
  ['ingest ceiling at 1,000 WCU/s on that key (items/s)', (c) => keyCell(c.hotKeys[0], ceiling)],
  ['hottest item: WCU per 1,000 items', (c) => keyCell(c.hotItems[0], (k) => k.wcuPer1000)],
  ['ingest ceiling at 1,000 WCU/s on that item (items/s)', (c) => keyCell(c.hotItems[0], ceiling)],
  [
    'transactions (incl. cancelled) on the most transacted item per 1,000 items',
    (c) => keyCell(c.transactedItems[0], (k) => k.transactionsPer1000),
  ],
  ['machine load average (1 min) at start / end', (c) => c.loadAverage.map((x) => fmt(x)).join(' / ')],
  [
    'stream: batches, records read (item records)',
    (c) =>
      `${fmt(c.consumer.batches, 0)}, ${fmt(c.consumer.records, 0)} (${fmt(c.consumer.itemRecords, 0)})${c.consumer.retries ? `; ${c.consumer.retries} retried` : ''}`,
  ],
];
const hotList = (c: IngestCollection) =>
  `- ${c.label}: ${c.hotKeys
    .slice(0, 4)
    .map((k) => `\`${k.key}\` ${fmt(k.wcuPer1000, 0)} WCU / ${fmt(k.transactionsPer1000, 0)} transactions`)
    .join('; ')} (per 1,000 items); the items' own writes: ${c.itemHotKeys
    .slice(0, 2)
    .map((k) => `\`${k.key}\` ${fmt(k.wcuPer1000, 0)} WCU`)
    .join(', ')}`;
const markdown = `${table(
  ['', ...data.collections.map((c) => c.name)],
  ROWS.map(([label, cell]) => [label, ...data.collections.map(cell)]),
)}

Hottest keys, per 1,000 items ingested:

${data.collections.map(hotList).join('\n')}`;
writeResult('ingest', markdown, data, started);
process.exit(0);
