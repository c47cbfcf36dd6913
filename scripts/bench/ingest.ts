// `npm run bench:ingest`: how fast and at what cost the index keeps up with Cranfield's new items and edits through
// the stream consumer's path on DynamoDB Local (method: BENCHMARKS.md, Ingest).
import { loadavg } from 'node:os';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../lib/concurrency.ts';
import { batchGet } from '../../lib/dynamodb/batch-get.ts';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import { queryAll } from '../../lib/dynamodb/query-all.ts';
import { writableFields } from '../../lib/items/merge-patch.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import type { ItemWrite } from '../../lib/items/schema.ts';
import {
  countsQuery,
  docKey,
  idOfDocKey,
  shrunkBytes,
  shrunkOf,
  shrunkQuery,
  sumCounts,
} from '../../lib/search/format/keys.ts';
import { COMPACT_AT, COMPACT_BYTES, createIndexer } from '../../lib/search/write/indexer.ts';
import { indexChanges } from '../../lib/search/write/stream.ts';
import { concurrentBatches, deliverBatch, pollStream, streamSettings } from '../local/stream-batches.ts';
import { createMeter, meterClient, newTally, type Tally } from './capacity.ts';
import { envNumber, fmt, pause, raisePriority, sum, table, writeResult } from './common.ts';
import { cranfieldWrite, loadCranfield, REVISION } from './cranfield.ts';
import { localPutRate, withDynamoDb } from './service.ts';

const EDITS = envNumber('BENCH_INGEST_EDITS', 100);
/** Edits made one at a time after those, each indexed before the next is written: each its own stream batch. */
const SINGLE_EDITS = envNumber('BENCH_INGEST_SINGLE_EDITS', 10);
/**
 * Items the shrunk set holds at most when the bench compacts it (the singles' and, to make up the number, other items
 * cut, or halved, in bursts): the writer's default compactAt (indexer.ts), and a set fills to its COMPACT_BYTES
 * first if its entries are larger, so the compaction's units an item are the service's.
 */
const COMPACTION = envNumber('BENCH_INGEST_COMPACTION', COMPACT_AT);
/** The set's bytes at which the bench compacts it: the writer's default COMPACT_BYTES (other sizes, to weigh it). */
const COMPACTION_BYTES = envNumber('BENCH_INGEST_COMPACTION_BYTES', COMPACT_BYTES);
/** Edits a burst that fills the set makes: the set is read after each, and compacted once it is full. */
const FILL_BURST = 16;
const PARALLEL = envNumber('BENCH_INGEST_PARALLEL', streamSettings.parallelizationFactor);
/** Per phase: past it the run reports how far it got. */
const LIMIT_SECONDS = 3600;
const WRITERS = 8;
const tableName = 'ingest';
const started = Date.now();
raisePriority();

/** A probe: true once every id is indexed at its version (no rebuild pending) and N is `items`; else how many are. */
function settleProbe(client: DynamoDBDocumentClient, expected: Map<number, number>, items: number) {
  const waiting = new Set(expected.keys());
  // The oldest first, 100 at a time: the stream delivers in order, so a chunk not yet in ends the probe.
  return async () => {
    for (let probe = [...waiting].slice(0, 100); probe.length > 0; probe = [...waiting].slice(0, 100)) {
      const docs = await batchGet(client, tableName, probe.map(docKey), { consistent: true });
      for (const doc of docs)
        if (!(doc.pending as unknown[] | undefined)?.length) {
          const id = idOfDocKey(String(doc.pk), String(doc.sk)) ?? 0;
          if (expected.get(id) === Number(doc.version)) waiting.delete(id);
        }
      if (probe.some((id) => waiting.has(id))) break;
    }
    if (waiting.size > 0) return expected.size - waiting.size;
    const { docs } = sumCounts(await queryAll(client, countsQuery(tableName, true)));
    return docs === items ? true : expected.size;
  };
}

const perUnit = (tally: Tally, count: number) => ({
  wcu: tally.wcu / count,
  dictionaryWcu: tally.indexWcu / count,
  // The doc records' share does not follow the stream's batching: each item writes its own.
  docWcu: sum([...tally.keys].filter(([key]) => key.startsWith('D#')).map(([, wcu]) => wcu)) / count,
  reportedWcu: tally.reportedWcu / count,
  rcu: tally.rcu / count,
  requests: tally.calls / count,
});
type Units = ReturnType<typeof perUnit>;
/** Edits made one at a time (bench's single edits, cuts…): how many, the stream batches they came in, their units. */
type Alone = { count: number; batches: number; index: Units };
/** The kinds of edit made one at a time, in this order, to the same items. */
type SingleKind = 'edit' | 'cut' | 'trim' | 'halving';

const writes = (await loadCranfield()).docs.map(cranfieldWrite);
const label = `Cranfield (${writes.length.toLocaleString('en')})`;
const c = await withDynamoDb([tableName], async ({ endpoint, raw }) => {
  const ratedBefore = await localPutRate(raw);
  const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error('the table has no stream');

  // The handler's runtime: one client, metered, for the indexer and the repository it reads with; the items
  // are written and the index probed apart. DynamoDB Local stalls past the handler's 2 s under load: 10 s a request.
  const clientOf = () => createDocumentClient({ region: 'us-east-1', endpoint, requestTimeoutMs: 10_000 });
  const [itemClient, indexClient, probeClient] = [clientOf(), clientOf(), clientOf()];
  const indexMeter = createMeter();
  meterClient(indexClient, indexMeter);
  const items = createItemRepository({ client: itemClient, tableName });
  const indexItems = createItemRepository({ client: indexClient, tableName });
  // The consumer never compacts the shrunk set itself: the bench compacts it, apart, to cost it apart.
  const indexer = createIndexer({
    client: indexClient,
    tableName,
    items: indexItems,
    compactAt: Number.POSITIVE_INFINITY,
    compactBytes: Number.POSITIVE_INFINITY,
  });

  // The stream read as the local consumer reads it, each shard's batch run as PARALLEL concurrent batches.
  const consumer = {
    batches: 0,
    records: 0,
    itemRecords: 0,
    retries: 0,
    lastBusy: 0,
    sizes: [] as number[],
    bytes: 0,
  };
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
      consumer.itemRecords += records.length;
      consumer.sizes.push(records.length);
      // What Lambda would hand the function for these records: its event's JSON (6 MB at most an invocation).
      consumer.bytes += Buffer.byteLength(JSON.stringify({ Records: records }));
      const options = { handler, settings: streamSettings, streamArn, shardId, onFailure: () => {} };
      const batches = concurrentBatches(records, PARALLEL);
      await Promise.all(
        batches.map((batch) => deliverBatch(batch, { ...options, stopping: () => stopping })),
      );
      consumer.lastBusy = Date.now();
    },
  });

  /**
   * Writes with WRITERS at once, waits until the index has settled, then until the consumer is quiet for 2 s; the
   * index's commands are counted in `tally` (a new one, unless phases share one).
   */
  const phase = async (
    what: string,
    count: number,
    write: (i: number) => Promise<{ id: number; version: number }>,
    itemCount?: number,
    tally: Tally = newTally(),
  ) => {
    indexMeter.tally = tally;
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
    const settled = settleProbe(probeClient, expected, itemCount ?? expected.size);
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
  const [ingestIndex, ingestConsumer] = [indexMeter.tally, { ...consumer, sizes: [...consumer.sizes] }];

  // Edits spread over the collection, each appending words to the description (its length changes).
  let edits: { count: number; seconds: number; batches: number; index: Units } | undefined;
  const singles: Partial<Record<SingleKind, Alone>> = {};
  const ids = ingest.ids.sort((a, b) => a - b);
  const revised = new Set<number>();
  const singlesPicked = new Set<number>();
  const revise = (id: number) => {
    revised.add(id);
    return items.update(id, (current) => ({
      ...writableFields(current),
      description: `${current.description.slice(0, 4960)}${REVISION}`,
    }));
  };
  /**
   * The revision taken back and the description's last five words with it: the item shorter than it was when its
   * postings were written, and some of its tfs lower: its postings kept, the item into the shrunk set with its length
   * and its cut (keys.ts), until a compaction rewrites them with its norm (its length less an eighth: postings.ts
   * `LENGTH_SLACK`).
   */
  const cut = (id: number) =>
    items.update(id, (current) => ({
      ...writableFields(current),
      description: current.description.replace(REVISION, '').split(' ').slice(0, -5).join(' '),
    }));
  /** Three more words taken off: the item shorter again, still at least its norm, so it keeps its postings. */
  const trim = (id: number) =>
    items.update(id, (current) => ({
      ...writableFields(current),
      description: current.description.split(' ').slice(0, -3).join(' '),
    }));
  /** The description cut to its first half: the item below its norm, half its words gone (ghosts in its cut). */
  const halve = (id: number) =>
    items.update(id, (current) => {
      const words = current.description.split(' ');
      return {
        ...writableFields(current),
        description: words.slice(0, Math.ceil(words.length / 2)).join(' '),
      };
    });
  /** One edit to each item of `edited`, made one at a time, each indexed before the next is written. */
  const alone = async (
    name: string,
    edited: number[],
    change: (id: number) => ReturnType<typeof revise>,
  ): Promise<Alone> => {
    const total = newTally();
    const before = consumer.batches;
    for (const [i, id] of edited.entries())
      await phase(`${name} ${i + 1}`, 1, () => change(id), ids.length, total);
    return { count: edited.length, batches: consumer.batches - before, index: perUnit(total, edited.length) };
  };
  if (ingest.settled && EDITS > 0) {
    const count = Math.min(EDITS, ids.length);
    const edit = (i: number) => revise(ids[Math.floor((i * ids.length) / count)] ?? 1);
    const { seconds } = await phase(`${label} edits`, count, edit, ids.length);
    edits = {
      count,
      seconds,
      // Edits of one batch share blocks: the units per edit follow how many batches the stream cut them into.
      batches: consumer.batches - ingestConsumer.batches,
      index: perUnit(indexMeter.tally, count),
    };
  }
  if (ingest.settled && SINGLE_EDITS > 0) {
    // Other items than those, the same change: what an edit costs when no other shares its batch.
    const count = Math.min(SINGLE_EDITS, ids.length);
    for (let i = 0; i < count; i++) {
      const from = Math.floor(((i + 0.5) * ids.length) / count);
      singlesPicked.add(ids.slice(from).find((other) => !revised.has(other)) ?? ids[from] ?? 1);
    }
    // The same items then cut (an edit that shortens an item), trimmed (shortened again, within its norm) and
    // halved (taken below its norm), each alone.
    const changes: [SingleKind, (id: number) => ReturnType<typeof revise>][] = [
      ['edit', revise],
      ['cut', cut],
      ['trim', trim],
      ['halving', halve],
    ];
    for (const [kind, change] of changes)
      singles[kind] = await alone(`single ${kind}`, [...singlesPicked], change);
  }
  /**
   * The shrunk set filled by `change` made to other items (not edited before), a burst at a time, until it holds
   * COMPACTION entries or COMPACTION_BYTES (where a writer compacts it), then compacted at once.
   */
  const untouched = ids.filter((id) => !revised.has(id) && !singlesPicked.has(id));
  const fillAndCompact = async (name: string, change: (id: number) => ReturnType<typeof revise>) => {
    const inSet = async () => {
      const rows = await queryAll(probeClient, shrunkQuery(tableName));
      return { entries: shrunkOf(rows).length, bytes: shrunkBytes(rows) };
    };
    const edits = newTally();
    let made = 0;
    for (
      let set = await inSet();
      set.entries < COMPACTION && set.bytes < COMPACTION_BYTES && untouched.length > 0;
      set = await inSet()
    ) {
      const burst = untouched.splice(0, Math.min(FILL_BURST, COMPACTION - set.entries));
      await phase(
        `${name} to fill the shrunk set`,
        burst.length,
        (i) => change(burst[i] ?? 1),
        ids.length,
        edits,
      );
      made += burst.length;
    }
    const set = await inSet();
    const tally = newTally();
    indexMeter.tally = tally;
    const begin = Date.now();
    const count = await indexer.compact(1);
    const result = {
      count,
      seconds: (Date.now() - begin) / 1000,
      index: perUnit(tally, Math.max(1, count)),
      edits: perUnit(edits, Math.max(1, made)),
      set: set.entries,
      bytes: set.bytes,
    };
    console.log(
      `  compaction: ${count} items (${set.bytes} bytes) in ${result.seconds.toFixed(1)} s, ${(await inSet()).entries} left in the set`,
    );
    return result;
  };
  // The set of cuts first (the singles' cuts, trims and halvings are in it), then a set of halvings alone.
  let compaction: Awaited<ReturnType<typeof fillAndCompact>> | undefined;
  let halvings: Awaited<ReturnType<typeof fillAndCompact>> | undefined;
  if (ingest.settled && COMPACTION > 0) {
    compaction = await fillAndCompact('cuts', cut);
    halvings = await fillAndCompact('halvings', halve);
  }
  stopping = true;
  await polling;
  streams.destroy();

  const localPutsPerSecond = [ratedBefore, await localPutRate(raw)];
  for (const c of [itemClient, indexClient, probeClient]) c.destroy();
  const hotKeys = [...ingestIndex.keys]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([key, wcu]) => ({ key, wcuPer1000: (wcu / ingest.indexed) * 1000 }));
  return {
    label,
    localPutsPerSecond,
    loadAverage: [loadAtStart, loadavg()[0] ?? 0],
    indexed: ingest.indexed,
    settled: ingest.settled,
    writeSeconds: ingest.writeSeconds,
    seconds: ingest.seconds,
    itemsPerSecond: ingest.indexed / ingest.seconds,
    consumer: ingestConsumer,
    index: perUnit(ingestIndex, ingest.indexed),
    hotKeys,
    edits,
    singles,
    compaction,
    halvings,
  };
});

const [hot, edits, singles, compaction, halvings] = [
  c.hotKeys[0],
  c.edits,
  c.singles,
  c.compaction,
  c.halvings,
];
const compactionCell = (run: typeof compaction) =>
  run
    ? `${run.count} of ${run.set} (${fmt(run.bytes / 1024)} KB), ${fmt(run.index.wcu)} (${fmt(run.index.rcu)}), ${fmt(run.seconds)} s; ${fmt(run.index.docWcu)} an item the doc records`
    : '—';
const aloneCell = (run: Alone | undefined) =>
  run
    ? `${fmt(run.index.wcu)} (${fmt(run.index.reportedWcu)}), ${run.count} edits in ${run.batches} stream batches; ${fmt(run.index.docWcu)} the doc records`
    : '—';
const rows = [
  ['items indexed', `${c.label}${c.settled ? '' : `: ${c.indexed} before the time limit`}`],
  ['wall time, first create → index settled (s)', fmt(c.seconds)],
  ['**items/s** (indexed ÷ wall time)', `**${fmt(c.itemsPerSecond, 2)}**`],
  [`… of which writing the items (s; ${WRITERS} writers)`, fmt(c.writeSeconds)],
  ['index settled after the last item was written (s)', fmt(c.seconds - c.writeSeconds)],
  ['index requests per new item', fmt(c.index.requests)],
  [
    "DynamoDB Local's own rate: small conditional PutItems/s, 32 in flight (before / after the run)",
    c.localPutsPerSecond.map((r) => fmt(r, 0)).join(' / '),
  ],
  [
    'index WCU per new item (AWS rule; DynamoDB Local reported)',
    `${fmt(c.index.wcu)} (${fmt(c.index.reportedWcu)})`,
  ],
  [
    "of which the term dictionary's index writes / the doc records",
    `${fmt(c.index.dictionaryWcu)} / ${fmt(c.index.docWcu)}`,
  ],
  ['index RCU per new item', fmt(c.index.rcu)],
  [
    'index WCU per edit (AWS rule; Local reported)',
    edits
      ? `${fmt(edits.index.wcu)} (${fmt(edits.index.reportedWcu)}), ${edits.count} edits in ${edits.batches} stream batches`
      : '—',
  ],
  ['of which the doc records', fmt(edits?.index.docWcu)],
  ['index RCU per edit', fmt(edits?.index.rcu)],
  ['edits: wall time until indexed (s)', fmt(edits?.seconds)],
  ['index WCU per edit made alone (each indexed before the next is written)', aloneCell(singles.edit)],
  [
    'index WCU per edit that shortens an item, made alone (the same items, cut: the terms whose tf rose, the item into the shrunk set)',
    aloneCell(singles.cut),
  ],
  [
    'index WCU per edit that shortens it again within its norm, made alone (the same items, trimmed)',
    aloneCell(singles.trim),
  ],
  [
    'index WCU per edit that takes an item below its norm, made alone (the same items, halved)',
    aloneCell(singles.halving),
  ],
  ['the shrunk set of cuts compacted: items (bytes), WCU (RCU) an item, seconds', compactionCell(compaction)],
  [
    `… the cuts that filled it, in bursts of ${FILL_BURST}: WCU an edit`,
    compaction ? fmt(compaction.edits.wcu) : '—',
  ],
  [
    '**an edit that first shortens an item alone, its compaction included** (WCU)',
    compaction && singles.cut ? `**${fmt(singles.cut.index.wcu + compaction.index.wcu)}**` : '—',
  ],
  [
    'the shrunk set of halvings compacted: items (bytes), WCU (RCU) an item, seconds',
    compactionCell(halvings),
  ],
  [
    `… the halvings that filled it, in bursts of ${FILL_BURST}: WCU an edit`,
    halvings ? fmt(halvings.edits.wcu) : '—',
  ],
  [
    '**an edit that halves an item alone, its compaction included** (WCU)',
    halvings && singles.halving ? `**${fmt(singles.halving.index.wcu + halvings.index.wcu)}**` : '—',
  ],
  ['hottest partition key: WCU per 1,000 items', hot ? `${fmt(hot.wcuPer1000, 0)} (\`${hot.key}\`)` : '—'],
  [
    'ingest ceiling at 1,000 WCU/s on that key (items/s)',
    hot ? `${fmt(1_000_000 / hot.wcuPer1000, 0)} (\`${hot.key}\`)` : '—',
  ],
  ['machine load average (1 min) at start / end', c.loadAverage.map((x) => fmt(x)).join(' / ')],
  [
    'stream: batches (item records in each), records read (item records)',
    `${fmt(c.consumer.batches, 0)} (${c.consumer.sizes.map((n) => fmt(n, 0)).join(' + ')}), ${fmt(c.consumer.records, 0)} (${fmt(c.consumer.itemRecords, 0)})${c.consumer.retries ? `; ${c.consumer.retries} retried` : ''}`,
  ],
  [
    "stream: event bytes per item record (the creates'; Lambda hands a function 6 MB at most)",
    fmt(c.consumer.bytes / Math.max(1, c.consumer.itemRecords), 0),
  ],
];
const markdown = `${table(['', 'cranfield'], rows)}

Hottest keys, per 1,000 items ingested:

- ${c.label}: ${c.hotKeys.map((k) => `\`${k.key}\` ${fmt(k.wcuPer1000, 0)} WCU`).join('; ')} (per 1,000 items)`;
writeResult('ingest', markdown, { collections: [c] }, started);
process.exit(0);
