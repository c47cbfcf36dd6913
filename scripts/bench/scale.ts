// `npm run bench:scale`: retrieval at 1k, 10k and 100k synthetic items in DynamoDB Local, loaded in bulk with the
// records the indexer writes (`--check` compares them with the real repository + indexer on a few items). A
// fixed query set runs through the retriever POST /retrieve uses; every command asks for ReturnConsumedCapacity.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { CreateTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createIndexer } from '../../lib/search/indexer.ts';
import { createSearch } from '../../lib/search/query.ts';
import { createRetriever } from '../../lib/search/retrieve.ts';
import { ensureTable, startDynamoDbLocal, tableDefinition } from '../local/dynamodb.ts';
import { freePort } from '../local/ports.ts';
import { median, ms, quantile, writeResult } from './common.ts';
import { bulkLoad, emptyCorpus, syntheticItem, vocabulary } from './synthetic.ts';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,2000,5000,10000,100000').split(',').map(Number);
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 4);
/** A size is skipped when the total load time would pass this, projected from the rate measured so far. */
const LOAD_BUDGET_SECONDS = Number(process.env.BENCH_SCALE_LOAD_BUDGET ?? 600);
const REPEATS = Number(process.env.BENCH_SCALE_REPEATS ?? 5);
const TOP_K = 10;
const started = Date.now();

// 20 fixed queries of 1–3 terms: vocabulary ranks chosen from common (0–20), middle (100–600) and rare (2000+).
const QUERY_RANKS = [
  [0],
  [3],
  [150],
  [2500],
  [4200],
  [1, 7],
  [2, 300],
  [5, 3000],
  [120, 450],
  [900, 1800],
  [2200, 4100],
  [10, 600],
  [0, 4, 9],
  [2, 140, 2600],
  [30, 500, 3500],
  [700, 1500, 4800],
  [6, 8, 11],
  [250, 260, 270],
  [15, 1600, 4900],
  [3, 60, 2100],
];
const queries = QUERY_RANKS.map((ranks) => ranks.map((rank) => vocabulary[rank] ?? '').join(' '));

/** A document client whose every command asks for the consumed capacity, which it adds up. */
function meteredClient(endpoint: string) {
  const raw = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const meter = { units: 0, calls: 0, reported: 0 };
  raw.middlewareStack.add(
    (next) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      meter.calls++;
      for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
        meter.units += (entry as { CapacityUnits?: number }).CapacityUnits ?? 0;
        meter.reported++;
      }
      return result;
    },
    { step: 'initialize', name: 'consumedCapacity' },
  );
  return {
    raw,
    client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
    meter,
  };
}

async function scanAll(raw: DynamoDBClient, tableName: string) {
  const records: unknown[] = [];
  let ExclusiveStartKey: Record<string, never> | undefined;
  do {
    const page = await raw.send(
      new ScanCommand({ TableName: tableName, ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}) }),
    );
    records.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey as typeof ExclusiveStartKey;
  } while (ExclusiveStartKey);
  return records.map((r) => JSON.stringify(r, Object.keys(r as object).sort())).sort();
}

const dynamodb = await startDynamoDbLocal({ port: await freePort() });
try {
  const { raw, client, meter } = meteredClient(dynamodb.endpoint);

  // The bulk loader writes what the repository and the indexer write: compare on 30 items.
  const timestamp = '2026-01-01T00:00:00.000Z';
  const real = `check-real-${randomUUID()}`;
  const bulk = `check-bulk-${randomUUID()}`;
  await ensureTable(raw, real);
  await ensureTable(raw, bulk);
  const items = createItemRepository({ client, tableName: real, now: () => new Date(timestamp) });
  const indexer = createIndexer({ client, tableName: real, items });
  for (let id = 1; id <= 30; id++) {
    const { id: _id, createdAt: _c, updatedAt: _u, version: _v, ...fields } = syntheticItem(id, timestamp);
    const created = await items.create(fields);
    if (created.id !== id) throw new Error(`expected id ${id}, got ${created.id}`);
    await indexer.reindexItem(id);
  }
  await bulkLoad(client, bulk, emptyCorpus(), 30, { timestamp });
  const [realRecords, bulkRecords] = [await scanAll(raw, real), await scanAll(raw, bulk)];
  const identical = isDeepStrictEqual(realRecords, bulkRecords);
  if (!identical) throw new Error('the bulk loader does not write what the indexer writes');
  console.log(`bulk loader check: ${realRecords.length} records identical to repository + indexer`);

  // The collection's table has the service's keys but no stream: nothing consumes it here, and DynamoDB Local
  // writes about twice as fast without one (the bulk loader stands in for the stream consumer).
  const tableName = `scale-${randomUUID()}`;
  const { TimeToLiveSpecification: _ttl, StreamSpecification: _stream, ...definition } = tableDefinition;
  await raw.send(new CreateTableCommand({ TableName: tableName, ...definition }));
  const corpus = emptyCorpus();
  const retrieve = createRetriever({
    search: createSearch({ client, tableName }),
    items: createItemRepository({ client, tableName }),
  });
  const results: {
    size: number;
    loadSeconds: number;
    records: number;
    p50: number;
    p99: number;
    unitsPerQuery: number[];
    calls: number[];
    latencies: number[];
  }[] = [];
  const skipped: string[] = [];
  let rate = 0; // items per second, measured
  let loadedSeconds = 0;
  for (const size of SIZES) {
    const adding = size - corpus.items;
    if (rate > 0 && loadedSeconds + adding / rate > LOAD_BUDGET_SECONDS) {
      skipped.push(
        `${size.toLocaleString('en')} (projected load ${Math.round(adding / rate)} s at ${Math.round(rate)} items/s)`,
      );
      continue;
    }
    const loadStart = performance.now();
    const { records } = await bulkLoad(client, tableName, corpus, size, { concurrency: CONCURRENCY });
    const loadSeconds = (performance.now() - loadStart) / 1000;
    rate = adding / loadSeconds;
    loadedSeconds += loadSeconds;
    console.log(`loaded ${size} items (${records} records added) in ${loadSeconds.toFixed(1)} s`);

    const unitsPerQuery: number[] = [];
    const calls: number[] = [];
    for (const query of queries) {
      meter.units = 0;
      meter.calls = 0;
      meter.reported = 0;
      await retrieve({ query, topK: TOP_K, minScore: 0 });
      if (meter.reported === 0) throw new Error('DynamoDB Local reported no consumed capacity');
      unitsPerQuery.push(meter.units);
      calls.push(meter.calls);
    }
    const latencies: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      for (const query of queries) {
        const begin = performance.now();
        await retrieve({ query, topK: TOP_K, minScore: 0 });
        latencies.push(performance.now() - begin);
      }
    }
    results.push({
      size,
      loadSeconds,
      records,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      unitsPerQuery,
      calls,
      latencies,
    });
  }
  raw.destroy();

  const first = results[0];
  const last = results[results.length - 1];
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const rows = results.map(
    (r) =>
      `| ${r.size.toLocaleString('en')} | ${r.records.toLocaleString('en')} | ${r.loadSeconds.toFixed(0)} (${Math.round((r.size - (results[results.indexOf(r) - 1]?.size ?? 0)) / r.loadSeconds)} items/s) | ${ms(r.p50)} | ${ms(r.p99)} | ${(sum(r.unitsPerQuery) / queries.length).toFixed(2)} | ${median(r.unitsPerQuery).toFixed(1)} | ${Math.max(...r.unitsPerQuery).toFixed(1)} | ${(sum(r.calls) / queries.length).toFixed(1)} |`,
  );
  const perQueryRows = queries.map(
    (query, i) =>
      `| \`${query}\` | ${results.map((r) => (r.unitsPerQuery[i] ?? 0).toFixed(1)).join(' | ')} |`,
  );
  const latencyRatio = first && last ? last.p50 / first.p50 : Number.NaN;
  const unitsGrow = results.some((r) =>
    r.unitsPerQuery.some((u, i) => u > (first?.unitsPerQuery[i] ?? 0) + 1e-9),
  );
  const markdown = `## Retrieval at scale

Synthetic items (seeded PRNG, Zipf-distributed vocabulary of ${vocabulary.length.toLocaleString('en')} pseudo-words;
names of 2–4 words, descriptions of 30–80 words, 1–3 tags) loaded into DynamoDB Local with BatchWriteItem as the
exact records the repository and the indexer write (items, doc records, postings, df, STATS, counter: checked
record for record against \`items.create\` + \`indexer.reindexItem\` on 30 items, ${identical ? 'identical' : 'DIFFERENT'}).
The collection grows in place from one size to the next. ${queries.length} fixed queries of 1–3 terms (common,
middle and rare words), top ${TOP_K}, through \`createRetriever\`/\`createSearch\` (what \`POST /retrieve\` runs, without HTTP);
latency over ${REPEATS} passes of the set (${REPEATS * queries.length} queries per size). Read units: every command
sent with \`ReturnConsumedCapacity: TOTAL\` and the reported \`CapacityUnits\` added up (DynamoDB Local reports them).

| items | records | load s (rate) | p50 ms | p99 ms | RCU / query (mean) | RCU (median) | RCU (max) | DynamoDB calls / query |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

![retrieval latency against collection size](benchmarks/retrieval.svg)

${skipped.length > 0 ? `Not run: ${skipped.join('; ')} — the loads would pass the ${LOAD_BUDGET_SECONDS} s load budget of one \`npm run bench\` (DynamoDB Local on this shared 2-core machine).\n` : ''}
p50 at ${last?.size.toLocaleString('en')} ÷ p50 at ${first?.size.toLocaleString('en')}: **${latencyRatio.toFixed(2)}** (budget ≤ 2: ${latencyRatio <= 2 ? 'met' : '**not met**'}).
Read units per fixed query ${unitsGrow ? '**grow** for some queries (table below)' : 'do not grow with the collection'}.

<details><summary>Read units of each query at each size</summary>

| query | ${results.map((r) => `${r.size.toLocaleString('en')}`).join(' | ')} |
|---|${results.map(() => '---').join('|')}|
${perQueryRows.join('\n')}

</details>
`;
  writeResult({
    part: 'scale',
    markdown,
    data: { queries, results, skipped, identical, latencyRatio, unitsGrow },
    seconds: (Date.now() - started) / 1000,
  });
} finally {
  await dynamodb.stop();
}
