// `npm run bench:ingest`: how fast and at what cost the index keeps up with Cranfield's new items and edits through
// the stream consumer's path on DynamoDB Local (method: BENCHMARKS.md, Ingest).
import { loadavg } from 'node:os';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { mapLimit } from '../../lib/concurrency.ts';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import { itemIdOf } from '../../lib/items/keys.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { ItemWrite } from '../../lib/items/schema.ts';
import { COMPACT_AT, createIndexer, indexChanges } from '../../lib/search/index.ts';
import { ensureTable } from '../local/dynamodb.ts';
import { concurrentBatches, deliverBatch, pollStream, streamSettings } from '../local/stream-batches.ts';
import type { FailureRecord } from '../redrive.ts';
import { createMeter, meterClient, newTally, type Tally } from './capacity.ts';
import { envNumber, fmt, pause, raisePriority, sum, table, writeResult } from './common.ts';
import { cranfieldWrite, editOf, loadCranfield, REVISION, revised } from './cranfield.ts';
import { localPutRate, withDynamoDb } from './service.ts';

const EDITS = envNumber('BENCH_INGEST_EDITS', 100);
/** Edits made one at a time after those, each indexed before the next is written: each its own stream batch. */
const SINGLE_EDITS = envNumber('BENCH_INGEST_SINGLE_EDITS', 10);
/** Items in the shrunk set when the bench compacts it: the writer's default compactAt, so its units are the service's. */
const COMPACTION = envNumber('BENCH_INGEST_COMPACTION', COMPACT_AT);
/** Edits a burst that fills the shrunk set makes. */
const FILL_BURST = 16;
const PARALLEL = envNumber('BENCH_INGEST_PARALLEL', streamSettings.parallelizationFactor);
/** Per phase: past it the run reports how far it got. */
const LIMIT_SECONDS = 3600;
const WRITERS = 8;
const TABLE = 'ingest';
const PACE_TABLE = 'ingest-pace';
raisePriority();

/** What the index's commands consumed, per item (or edit) of `count`. */
const perUnit = (tally: Tally, count: number) => ({
  wcu: tally.wcu / count,
  dictionaryWcu: tally.indexWcu / count,
  // The doc records' share does not follow the stream's batching: each item writes its own.
  docWcu: sum([...tally.keys].filter(([key]) => key.startsWith('D#')).map(([, wcu]) => wcu)) / count,
  reportedWcu: tally.reportedWcu / count,
  rcu: tally.rcu / count,
  requests: tally.calls / count,
});
/** A write of the `i`th item (a create) or of item `i` (an edit); the item written. */
type Write = (i: number) => Promise<{ id: number }>;

/** The stream read as the local consumer reads it, each batch run as PARALLEL concurrent ones; what it delivered. */
class Consumer {
  /** Batches, records read, item records (each batch's), retried batches, and the events' bytes. */
  readonly seen = { batches: 0, records: 0, itemRecords: 0, sizes: [] as number[], retries: 0, bytes: 0 };
  lastBusy = 0;
  /** Each item's stream records the handler has indexed (the stream carries keys only: one a write). */
  readonly indexed = new Map<number, number>();
  private stopping = false;
  private readonly polling: Promise<void>;

  constructor(indexer: ReturnType<typeof createIndexer>, streams: DynamoDBStreamsClient, streamArn: string) {
    const handler = (event: { Records: DynamoDBRecord[] }) => this.handle(indexer, event);
    const stopping = () => this.stopping;
    this.polling = pollStream(streams, streamArn, {
      batchSize: streamSettings.batchSize,
      stopping,
      deliver: async (records, shardId, read) => {
        this.seen.batches++;
        this.seen.records += read;
        this.seen.itemRecords += records.length;
        this.seen.sizes.push(records.length);
        // What Lambda would hand the function for these records: its event's JSON (6 MB at most an invocation).
        this.seen.bytes += Buffer.byteLength(JSON.stringify({ Records: records }));
        const options = { handler, settings: streamSettings, streamArn, shardId, stopping };
        const batches = concurrentBatches(records, PARALLEL);
        // A phase waits for every record: one given up would hold it to its time limit, so say so at once.
        const onFailure = (failure: FailureRecord) =>
          console.log(`  the consumer gave up ${failure.DDBStreamBatchInfo.batchSize} records`);
        await Promise.all(batches.map((batch) => deliverBatch(batch, { ...options, onFailure })));
        this.lastBusy = Date.now();
      },
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.polling;
  }

  /** The stream handler; the records before the first one it reports failed are indexed. */
  private async handle(indexer: ReturnType<typeof createIndexer>, event: { Records: DynamoDBRecord[] }) {
    const reply = await indexChanges(indexer, event.Records).catch((error: unknown) => {
      console.log(`  the handler threw: ${error}`);
      throw error;
    });
    if (reply.batchItemFailures.length > 0) this.seen.retries++;
    const failed = new Set(reply.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const record of event.Records) {
      if (failed.has(record.dynamodb?.SequenceNumber ?? '')) break;
      const keys = record.dynamodb?.Keys;
      const id = itemIdOf({ pk: keys?.pk?.S, sk: keys?.sk?.S });
      if (id !== undefined) this.indexed.set(id, (this.indexed.get(id) ?? 0) + 1);
    }
    return reply;
  }
}

/** The handler's runtime on DynamoDB Local reading `streamArn`: the items written apart, the index metered. */
function createRun(endpoint: string, streamArn: string) {
  // DynamoDB Local stalls past the handler's 2 s under load: 10 s a request.
  const clientOf = () => createDocumentClient({ region: 'us-east-1', endpoint, requestTimeoutMs: 10_000 });
  const [itemClient, indexClient] = [clientOf(), clientOf()];
  const meter = createMeter();
  meterClient(indexClient, meter);
  const items = createItemRepository({ client: itemClient, tableName: TABLE });
  // The consumer never compacts the shrunk set itself: the bench compacts it, apart, to cost it apart.
  const indexer = createIndexer({
    client: indexClient,
    tableName: TABLE,
    items: createItemRepository({ client: indexClient, tableName: TABLE }),
    compactAt: Number.POSITIVE_INFINITY,
    compactBytes: Number.POSITIVE_INFINITY,
  });
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials });
  const consumer = new Consumer(indexer, streams, streamArn);
  const stop = async () => {
    await consumer.stop();
    for (const client of [streams, itemClient, indexClient]) client.destroy();
  };
  return { meter, items, indexer, consumer, stop };
}
type Run = ReturnType<typeof createRun>;

/**
 * Writes with WRITERS at once, waits until the index holds every write, then until the consumer is quiet for 2 s;
 * the index's commands are counted in `tally` (a new one, unless phases share one).
 */
async function phase(run: Run, what: string, count: number, write: Write, tally = newTally()) {
  run.meter.tally = tally;
  // Each id is written once a phase, after the last phase's records were indexed: it awaits one record more.
  const [before, expected] = [new Map(run.consumer.indexed), new Map<number, number>()];
  const begin = Date.now();
  const deadline = begin + LIMIT_SECONDS * 1000;
  await mapLimit([...Array(count).keys()], WRITERS, async (i) => {
    if (Date.now() >= deadline) return;
    const { id } = await write(i);
    expected.set(id, (before.get(id) ?? 0) + 1);
  });
  const writeSeconds = (Date.now() - begin) / 1000;
  console.log(`  ${what}: ${expected.size} written in ${writeSeconds.toFixed(1)} s`);
  const done = () =>
    [...expected].filter(([id, records]) => (run.consumer.indexed.get(id) ?? 0) >= records).length;
  for (let lastLog = Date.now(); done() < expected.size && Date.now() < deadline; await pause(100)) {
    if (Date.now() - lastLog < 15_000) continue;
    lastLog = Date.now();
    console.log(`  ${what}: ${done()}/${expected.size} indexed`);
  }
  const indexed = done();
  const seconds = (Date.now() - begin) / 1000;
  console.log(`  ${what}: ${indexed} indexed in ${seconds.toFixed(1)} s`);
  const quietSince = Date.now();
  while (Date.now() - Math.max(run.consumer.lastBusy, quietSince) < 2_000 && Date.now() <= deadline + 60_000)
    await pause(200);
  return { ids: [...expected.keys()], settled: indexed === expected.size, indexed, seconds, writeSeconds };
}

/**
 * Words appended (the item longer); edits that shorten it: the revision and five words taken back (a cut: the item at
 * its norm or above, into the shrunk set), or half its words (a halving: below its norm).
 */
const edits = (items: ItemRepository) => ({
  revise: editOf(items, revised),
  cut: editOf(items, (description) => description.replace(REVISION, '').split(' ').slice(0, -5).join(' ')),
  halve: editOf(items, (description) => {
    const words = description.split(' ');
    return words.slice(0, Math.ceil(words.length / 2)).join(' ');
  }),
});

/** One edit to each of `ids`, made one at a time, each indexed before the next is written. */
async function alone(run: Run, name: string, ids: readonly number[], change: Write) {
  const total = newTally();
  const before = run.consumer.seen.batches;
  for (const [i, id] of ids.entries()) await phase(run, `${name} ${i + 1}`, 1, () => change(id), total);
  const batches = run.consumer.seen.batches - before;
  return { count: ids.length, batches, index: perUnit(total, ids.length) };
}

/** The shrunk set filled to COMPACTION items by `change` to `untouched` items, a burst at a time, then compacted. */
async function fillAndCompact(run: Run, inSet: number, untouched: number[], change: Write) {
  const fill = newTally();
  const made = untouched.splice(0, Math.max(0, COMPACTION - inSet));
  for (let at = 0; at < made.length; at += FILL_BURST) {
    const burst = made.slice(at, at + FILL_BURST);
    await phase(run, 'edits to fill the shrunk set', burst.length, (i) => change(burst[i] ?? 1), fill);
  }
  run.meter.tally = newTally();
  const begin = Date.now();
  const count = await run.indexer.compact(1);
  const seconds = (Date.now() - begin) / 1000;
  console.log(`  compaction: ${count} items in ${seconds.toFixed(1)} s`);
  const edits = perUnit(fill, Math.max(1, made.length));
  return { count, seconds, index: perUnit(run.meter.tally, Math.max(1, count)), edits };
}

/** Edits of the indexed items: spread over them at once, then some alone (appended, then cut), then a compaction. */
async function measureEdits(run: Run, ids: number[]) {
  const { revise } = edits(run.items);
  const revised = new Set<number>();
  const count = Math.min(EDITS, ids.length);
  const before = run.consumer.seen.batches;
  const spread = (i: number) => {
    const id = ids[Math.floor((i * ids.length) / count)] ?? 1;
    revised.add(id);
    return revise(id);
  };
  const batch = count > 0 ? await phase(run, 'edits', count, spread) : undefined;
  // Edits of one batch share blocks: the units per edit follow how many batches the stream cut them into.
  const edited = batch && {
    count,
    seconds: batch.seconds,
    batches: run.consumer.seen.batches - before,
    index: perUnit(run.meter.tally, count),
  };
  // Other items than those, the same change: what an edit costs when no other shares its batch.
  const alones = Math.min(SINGLE_EDITS, ids.length);
  const singles = Array.from({ length: alones }, (_, i) => {
    const from = Math.floor(((i + 0.5) * ids.length) / alones);
    return ids.slice(from).find((other) => !revised.has(other)) ?? ids[from] ?? 1;
  });
  const single = await alone(run, 'single edit', singles, revise);
  // The same items shortened alone, then other items shortened in bursts until the set is full, and compacted.
  const untouched = ids.filter((id) => !revised.has(id) && !singles.includes(id));
  const shrink = async (kind: 'cut' | 'halve') => {
    const change = edits(run.items)[kind];
    const made = await alone(run, `single ${kind}`, singles, change);
    return { alone: made, compaction: await fillAndCompact(run, singles.length, untouched, change) };
  };
  return { edited, single, cut: await shrink('cut'), halving: await shrink('halve') };
}
type Edits = Awaited<ReturnType<typeof measureEdits>>;

/** Cranfield created by WRITERS clients and indexed through the stream, then edited; every figure of the run. */
async function measure(endpoint: string, raw: DynamoDBClient, writes: ReturnType<typeof cranfieldWrite>[]) {
  // DynamoDB Local's pace on a table of its own with no stream: puts on the measured table would go through its
  // stream to the consumer, whose records read the run reports.
  await ensureTable(raw, PACE_TABLE, { stream: false });
  const ratedBefore = await localPutRate(endpoint, PACE_TABLE);
  const { Table } = await raw.send(new DescribeTableCommand({ TableName: TABLE }));
  if (!Table?.LatestStreamArn) throw new Error('the table has no stream');
  const run = createRun(endpoint, Table.LatestStreamArn);
  const loadAtStart = loadavg()[0] ?? 0;
  const label = `Cranfield (${writes.length.toLocaleString('en')})`;
  // Cranfield has two empty texts: an edit that cuts words from one changes nothing, so no stream record comes of it.
  const editable = new Set<number>();
  const ingest = await phase(run, label, writes.length, async (i) => {
    const item = await run.items.create(writes[i] as ItemWrite);
    if (item.description.split(' ').length > 10) editable.add(item.id);
    return item;
  });
  const [ingestIndex, consumer] = [run.meter.tally, structuredClone(run.consumer.seen)];
  const sorted = ingest.ids.filter((id) => editable.has(id)).sort((a, b) => a - b);
  const edited: Partial<Edits> = ingest.settled ? await measureEdits(run, sorted) : {};
  await run.stop();
  const hotKeys = [...ingestIndex.keys]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([key, wcu]) => ({ key, wcuPer1000: (wcu / ingest.indexed) * 1000 }));
  return {
    ...{ label, indexed: ingest.indexed, settled: ingest.settled, writeSeconds: ingest.writeSeconds },
    ...{ seconds: ingest.seconds, itemsPerSecond: ingest.indexed / ingest.seconds, consumer, hotKeys },
    localPutsPerSecond: [ratedBefore, await localPutRate(endpoint, PACE_TABLE)],
    loadAverage: [loadAtStart, loadavg()[0] ?? 0],
    index: perUnit(ingestIndex, ingest.indexed),
    ...edited,
  };
}
type Measured = Awaited<ReturnType<typeof measure>>;

/** WCU by AWS's rule (DynamoDB Local reported). */
const wcuCell = (index: ReturnType<typeof perUnit>) => `${fmt(index.wcu)} (${fmt(index.reportedWcu)})`;
/** Edits' WCU (AWS rule; Local reported), how many in how many stream batches, and (`docs`) the doc records'. */
const editsCell = (run: Edits['single'] | undefined, docs = true) =>
  run
    ? `${wcuCell(run.index)}, ${run.count} edits in ${run.batches} stream batches${docs ? `; ${fmt(run.index.docWcu)} the doc records` : ''}`
    : '—';

function editRows({ edited, single, cut, halving }: Measured) {
  return [
    ['index WCU per edit (AWS rule; Local reported)', editsCell(edited, false)],
    ['of which the doc records', fmt(edited?.index.docWcu)],
    ['index RCU per edit', fmt(edited?.index.rcu)],
    ['edits: wall time until indexed (s)', fmt(edited?.seconds)],
    ['index WCU per edit made alone (each indexed before the next is written)', editsCell(single)],
    ...shrinkRows(
      'shortens an item (cut: the terms whose tf rose, the item into the shrunk set)',
      'cuts',
      cut,
    ),
    ...shrinkRows('takes an item below its norm (halved)', 'halvings', halving),
  ];
}

/** The rows of one shortening edit: made alone, then a set of them compacted. */
function shrinkRows(what: string, plural: string, run: Edits['cut'] | undefined) {
  const compaction = run?.compaction;
  return [
    [`index WCU per edit that ${what}, made alone (the same items)`, editsCell(run?.alone)],
    [
      `the shrunk set of ${plural} compacted: items, WCU (RCU) an item, seconds`,
      compaction
        ? `${compaction.count}, ${fmt(compaction.index.wcu)} (${fmt(compaction.index.rcu)}), ${fmt(compaction.seconds)} s; ${fmt(compaction.index.docWcu)} an item the doc records`
        : '—',
    ],
    [`… the ${plural} that filled it, in bursts of ${FILL_BURST}: WCU an edit`, fmt(compaction?.edits.wcu)],
    [
      `**an edit that ${what.split(' (')[0]} alone, its compaction included** (WCU)`,
      compaction && run?.alone ? `**${fmt(run.alone.index.wcu + compaction.index.wcu)}**` : '—',
    ],
  ];
}

function rows(c: Measured) {
  const hot = c.hotKeys[0];
  /** A figure of the hottest key's WCU per 1,000 items, and the key. */
  const onHot = (figure: (wcu: number) => number) =>
    hot ? `${fmt(figure(hot.wcuPer1000), 0)} (\`${hot.key}\`)` : '—';
  const stream = c.consumer;
  return [
    ['items indexed', `${c.label}${c.settled ? '' : `: ${c.indexed} before the time limit`}`],
    ['wall time, first create → index settled (s)', fmt(c.seconds)],
    ['**items/s** (indexed ÷ wall time)', `**${fmt(c.itemsPerSecond, 2)}**`],
    [`… of which writing the items (s; ${WRITERS} writers)`, fmt(c.writeSeconds)],
    ['index settled after the last item was written (s)', fmt(c.seconds - c.writeSeconds)],
    ['index requests per new item', fmt(c.index.requests)],
    [
      "DynamoDB Local's own rate: small conditional PutItems/s, 32 in flight, on a table with no stream (before / after the run)",
      c.localPutsPerSecond.map((r) => fmt(r, 0)).join(' / '),
    ],
    ['index WCU per new item (AWS rule; DynamoDB Local reported)', wcuCell(c.index)],
    [
      "of which the term dictionary's index writes / the doc records",
      `${fmt(c.index.dictionaryWcu)} / ${fmt(c.index.docWcu)}`,
    ],
    ['index RCU per new item', fmt(c.index.rcu)],
    ...editRows(c),
    ['hottest partition key: WCU per 1,000 items', onHot((wcu) => wcu)],
    ['ingest ceiling at 1,000 WCU/s on that key (items/s)', onHot((wcu) => 1_000_000 / wcu)],
    ['machine load average (1 min) at start / end', c.loadAverage.map((x) => fmt(x)).join(' / ')],
    [
      'stream: batches (item records in each), records read (item records)',
      `${fmt(stream.batches, 0)} (${stream.sizes.map((n) => fmt(n, 0)).join(' + ')}), ${fmt(stream.records, 0)} (${fmt(stream.itemRecords, 0)})${stream.retries ? `; ${stream.retries} retried` : ''}`,
    ],
    [
      "stream: event bytes per item record (the creates'; Lambda hands a function 6 MB at most)",
      fmt(stream.bytes / Math.max(1, stream.itemRecords), 0),
    ],
  ];
}

const writes = (await loadCranfield()).docs.map(cranfieldWrite);
const c = await withDynamoDb([TABLE], ({ endpoint, raw }) => measure(endpoint, raw, writes));
const markdown = `${table(['', 'cranfield'], rows(c))}

Hottest keys, per 1,000 items ingested:

- ${c.label}: ${c.hotKeys.map((k) => `\`${k.key}\` ${fmt(k.wcuPer1000, 0)} WCU`).join('; ')} (per 1,000 items)`;
writeResult('ingest', markdown, { collections: [c] });
process.exit(0);
