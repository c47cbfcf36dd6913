// `npm run bench:ingest`: how fast and at what cost the index keeps up with new items and edits through the stream
// consumer's path on DynamoDB Local, for Cranfield and the synthetic collection (method: BENCHMARKS.md, Ingest).
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
import { isItemKey } from '../../lib/items/keys.ts';
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
const EDITS = envNumber('BENCH_INGEST_EDITS', 100);
const PARALLEL = envNumber('BENCH_INGEST_PARALLEL', streamSettings.parallelizationFactor);
/** Per phase: past it the run reports how far it got. */
const LIMIT_SECONDS = 3600;
const WRITERS = 8;
const started = Date.now();
raisePriority();

/** A probe: true once every id is indexed at its version (no rebuild pending) and N is `items`; else how many are. */
function settleProbe(
  client: DynamoDBDocumentClient,
  TableName: string,
  expected: Map<number, number>,
  items: number,
) {
  const waiting = new Set(expected.keys());
  // The oldest first, 100 at a time: the stream delivers in order, so a chunk not yet in ends the probe.
  return async () => {
    for (let probe = [...waiting].slice(0, 100); probe.length > 0; probe = [...waiting].slice(0, 100)) {
      const docs = await batchGet(client, TableName, probe.map(docKey), { consistent: true });
      for (const doc of docs)
        if (!(doc.pending as unknown[] | undefined)?.length) {
          const id = idOfDocKey(String(doc.pk), String(doc.sk)) ?? 0;
          if (expected.get(id) === Number(doc.version)) waiting.delete(id);
        }
      if (probe.some((id) => waiting.has(id))) break;
    }
    if (waiting.size > 0) return expected.size - waiting.size;
    const { docs } = sumCounts(await queryAll(client, countsQuery(TableName, true)));
    return docs === items ? true : expected.size;
  };
}

/** DynamoDB Local's own pace: small conditional PutItems a second, 32 in flight, on a scratch table. */
async function conditionalPutRate(raw: DynamoDBClient): Promise<number> {
  const TableName = `rate-${randomUUID()}`;
  await ensureTable(raw, TableName);
  const client = DynamoDBDocumentClient.from(raw);
  const begin = performance.now();
  await mapLimit([...Array(2_000).keys()], 32, (i) => {
    const Item = { pk: `T#rate${i}`, sk: 'B#~', p: '000123#0000000000000001:1:40', v: 1 };
    return client.send(new PutCommand({ TableName, Item, ConditionExpression: 'attribute_not_exists(pk)' }));
  });
  return 2_000 / ((performance.now() - begin) / 1000);
}

const perUnit = (tally: Tally, count: number) => ({
  wcu: tally.wcu / count,
  dictionaryWcu: tally.indexWcu / count,
  reportedWcu: tally.reportedWcu / count,
  rcu: tally.rcu / count,
  requests: tally.calls / count,
});

async function runCollection(name: string, label: string, writes: ItemWrite[]) {
  return withDynamoDb([], async ({ endpoint, raw }) => {
    const tableName = `ingest-${randomUUID()}`;
    await ensureTable(raw, tableName);
    const ratedBefore = await conditionalPutRate(raw);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) throw new Error('the table has no stream');

    // The handler's runtime: one client for the indexer and the repository it reads with; the items' own writes
    // are metered apart. DynamoDB Local stalls past the handler's 2 s under load here: 10 s a request.
    const clientOf = () => createDocumentClient({ region: 'us-east-1', endpoint, requestTimeoutMs: 10_000 });
    const [itemClient, indexClient, probeClient] = [clientOf(), clientOf(), clientOf()];
    const [itemMeter, indexMeter] = [createMeter(), createMeter()];
    meterClient(itemClient, itemMeter);
    meterClient(indexClient, indexMeter);
    const items = createItemRepository({ client: itemClient, tableName });
    const indexItems = createItemRepository({ client: indexClient, tableName });
    const indexer = createIndexer({ client: indexClient, tableName, items: indexItems });

    // The stream read as the local consumer reads it, each shard's batch run as PARALLEL concurrent batches.
    const consumer = { batches: 0, records: 0, itemRecords: 0, retries: 0, lastBusy: 0 };
    let stopping = false;
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials });
    const handler = async (event: { Records: Parameters<typeof indexChanges>[1] }) => {
      const reply = await indexChanges(indexer, event.Records);
      if (reply.batchItemFailures.length > 0) consumer.retries++;
      return reply;
    };
    const polling = pollStream(streams, streamArn, {
      batchSize: streamSettings.batchSize,
      stopping: () => stopping,
      deliver: async (records, shardId, read) => {
        consumer.batches++;
        consumer.records += read;
        const keys = records.map((r) => ({ pk: r.dynamodb?.Keys?.pk?.S, sk: r.dynamodb?.Keys?.sk?.S }));
        consumer.itemRecords += keys.filter(isItemKey).length;
        const options = { handler, settings: streamSettings, streamArn, shardId, onFailure: () => {} };
        const batches = concurrentBatches(records, PARALLEL);
        await Promise.all(
          batches.map((batch) => deliverBatch(batch, { ...options, stopping: () => stopping })),
        );
        consumer.lastBusy = Date.now();
      },
    });

    /** Writes with WRITERS at once, waits until the index has settled, then until the consumer is quiet for 2 s. */
    const phase = async (
      what: string,
      count: number,
      write: (i: number) => Promise<{ id: number; version: number }>,
      itemCount?: number,
    ) => {
      itemMeter.tally = newTally();
      indexMeter.tally = newTally();
      const expected = new Map<number, number>();
      const begin = Date.now();
      const deadline = begin + LIMIT_SECONDS * 1000;
      await mapLimit([...Array(count).keys()], WRITERS, async (i) => {
        if (Date.now() >= deadline) return;
        const { id, version } = await write(i);
        expected.set(id, version);
      });
      const writeSeconds = (Date.now() - begin) / 1000;
      console.log(`  ${what}: ${expected.size} written in ${writeSeconds.toFixed(1)} s`);
      const settled = settleProbe(probeClient, tableName, expected, itemCount ?? expected.size);
      let done: number | true = 0;
      for (let lastLog = Date.now(); Date.now() < deadline; await pause(250)) {
        done = await settled();
        if (done === true) break;
        if (Date.now() - lastLog < 15_000) continue;
        lastLog = Date.now();
        console.log(
          `  ${what}: ${done}/${expected.size} indexed after ${((lastLog - begin) / 1000).toFixed(0)} s`,
        );
      }
      const seconds = (Date.now() - begin) / 1000;
      console.log(`  ${what}: ${done === true ? 'all' : done} indexed in ${seconds.toFixed(1)} s`);
      for (const since = Date.now(); Date.now() - Math.max(consumer.lastBusy, since) < 2_000; ) {
        if (Date.now() > deadline + 60_000) break;
        await pause(200);
      }
      const indexed = done === true ? expected.size : done;
      return { ids: [...expected.keys()], settled: done === true, indexed, seconds, writeSeconds };
    };

    const loadAtStart = loadavg()[0] ?? 0;
    const ingest = await phase(label, writes.length, (i) => items.create(writes[i] as ItemWrite));
    const [ingestIndex, ingestItems, ingestConsumer] = [indexMeter.tally, itemMeter.tally, { ...consumer }];

    // Edits spread over the collection, each appending words to the description (its length changes).
    let edits: { count: number; seconds: number; batches: number; index: Units; item: Units } | undefined;
    if (ingest.settled && EDITS > 0) {
      const ids = ingest.ids.sort((a, b) => a - b);
      const count = Math.min(EDITS, ids.length);
      const edit = (i: number) =>
        items.update(ids[Math.floor((i * ids.length) / count)] ?? 1, (current) => ({
          ...writableFields(current),
          description: `${current.description.slice(0, 4960)} Revised: measured again with newer apparatus.`,
        }));
      const { seconds } = await phase(`${label} edits`, count, edit, ids.length);
      edits = {
        count,
        seconds,
        // Edits of one batch share blocks: the units per edit follow how many batches the stream cut them into.
        batches: consumer.batches - ingestConsumer.batches,
        index: perUnit(indexMeter.tally, count),
        item: perUnit(itemMeter.tally, count),
      };
    }
    stopping = true;
    await polling;
    streams.destroy();

    const n = ingest.indexed;
    const per1000 = (keys: Map<string, KeyTally>, count: number, by: 'wcu' | 'transactions' = 'wcu') =>
      hottest(keys, count, by).map((k) => ({
        key: k.key,
        wcuPer1000: (k.wcu / n) * 1000,
        transactionsPer1000: (k.transactions / n) * 1000,
      }));
    const localPutsPerSecond = [ratedBefore, await conditionalPutRate(raw)];
    for (const c of [itemClient, indexClient, probeClient]) c.destroy();
    return {
      name,
      label,
      localPutsPerSecond,
      loadAverage: [loadAtStart, loadavg()[0] ?? 0],
      indexed: n,
      settled: ingest.settled,
      writeSeconds: ingest.writeSeconds,
      seconds: ingest.seconds,
      itemsPerSecond: n / ingest.seconds,
      consumer: ingestConsumer,
      index: perUnit(ingestIndex, n),
      item: perUnit(ingestItems, n),
      hotKeys: per1000(ingestIndex.keys, 4),
      hotItems: per1000(ingestIndex.items, 1),
      transactedItems: per1000(ingestIndex.items, 1, 'transactions'),
      itemHotKeys: per1000(ingestItems.keys, 2),
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
    collections.push(await runCollection(name, `Cranfield (${writes.length.toLocaleString('en')})`, writes));
  } else if (name === 'synthetic') {
    const writes = Array.from({ length: SYNTHETIC_SIZE }, (_, i) => syntheticWrite(i + 1));
    const size = SYNTHETIC_SIZE.toLocaleString('en');
    const label = SYNTHETIC_SIZE < 10_000 ? `synthetic, first ${size} of 10,000` : `synthetic ${size}`;
    collections.push(await runCollection(name, label, writes));
  } else throw new Error(`unknown collection ${name} (cranfield, synthetic)`);
}

// A run of some collections keeps the latest figures of the others.
const file = join(RESULTS_DIR, 'ingest.json');
const previous: IngestCollection[] = existsSync(file)
  ? JSON.parse(readFileSync(file, 'utf8')).data.collections
  : [];
const all = [...collections, ...previous.filter((c) => !collections.some((run) => run.name === c.name))];

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
      c.edits
        ? `${fmt(c.edits.index.wcu)} (${fmt(c.edits.index.reportedWcu)}), ${c.edits.count} edits` +
          (c.edits.batches === undefined ? '' : ` in ${c.edits.batches} stream batches`)
        : '—',
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
  ['', ...all.map((c) => c.name)],
  ROWS.map(([label, cell]) => [label, ...all.map(cell)]),
)}

Hottest keys, per 1,000 items ingested:

${all.map(hotList).join('\n')}`;
writeResult('ingest', markdown, { collections: all }, started);
process.exit(0);
