// `npm run bench:scale`: retrieval at 1k to 100k synthetic items in DynamoDB Local, loaded in bulk with the
// records the indexer writes (checked first against the real repository + indexer on 30 items) and kept as
// snapshots (collections.ts). A fixed query set runs through the retriever POST /retrieve uses; every command
// asks for ReturnConsumedCapacity; each result list is compared with the exact BM25 ranking computed in memory.
import { randomUUID } from 'node:crypto';
import { Agent, request as httpSend } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { type DynamoDBClient, PutItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { createItemRepository } from '../../lib/items/repository.ts';
import { BLOCK_CAPACITY, decodeBlock } from '../../lib/search/format/blocks.ts';
import { BLOCK_PREFIX, termPk } from '../../lib/search/format/keys.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch, SEARCH_DEFAULTS } from '../../lib/search/read/query.ts';
import { indexInMemory } from '../../lib/search/read/rank.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { ensureTable, startDynamoDbLocal } from '../local/dynamodb.ts';
import { freePort } from '../local/ports.ts';
import { COLLECTION_TABLE, prepareCollections, withCollections } from './collections.ts';
import { median, ms, type PackedPage, quantile, writeResult } from './common.ts';
import { meteredClient } from './metered.ts';
import { benchQueries, bulkLoad, syntheticItem, vocabulary } from './synthetic.ts';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,2000,5000,10000,20000,50000,100000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const REPEATS = Number(process.env.BENCH_SCALE_REPEATS ?? 10);
const TOP_K = 10;
const started = Date.now();

const queries = benchQueries;

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

// The bulk loader writes what the repository and the indexer write: compare on 30 items, at the service's block
// capacity and at a capacity of 4 postings, where blocks split many times.
const timestamp = '2026-01-01T00:00:00.000Z';
const checker = await startDynamoDbLocal({ port: await freePort() });
let identical = false;
try {
  const { raw, client } = meteredClient(checker.endpoint);
  for (const blockCapacity of [BLOCK_CAPACITY, 4]) {
    const real = `check-real-${randomUUID()}`;
    const bulk = `check-bulk-${randomUUID()}`;
    await ensureTable(raw, real);
    await ensureTable(raw, bulk);
    const items = createItemRepository({ client, tableName: real, now: () => new Date(timestamp) });
    const indexer = createIndexer({ client, tableName: real, items, blockCapacity });
    for (let id = 1; id <= 30; id++) {
      const { id: _id, createdAt: _c, updatedAt: _u, version: _v, ...fields } = syntheticItem(id, timestamp);
      const created = await items.create(fields);
      if (created.id !== id) throw new Error(`expected id ${id}, got ${created.id}`);
      await indexer.reindexItem(id);
    }
    await bulkLoad(client, bulk, 30, { timestamp, blockCapacity });
    const [realRecords, bulkRecords] = [await scanAll(raw, real), await scanAll(raw, bulk)];
    identical = isDeepStrictEqual(realRecords, bulkRecords);
    if (!identical)
      throw new Error(`the bulk loader does not write what the indexer writes (blocks of ${blockCapacity})`);
    console.log(
      `bulk loader check (blocks of ${blockCapacity}): ${realRecords.length} records identical to repository + indexer`,
    );
  }
  raw.destroy();
} finally {
  await checker.stop();
}

const loads = await prepareCollections(SIZES);

/** Exact BM25 top 10 of each query over items 1…size, computed in memory from the same generator. */
const docs: { id: number; tokens: string[] }[] = [];
function exactTopK(size: number) {
  while (docs.length < size) {
    const item = syntheticItem(docs.length + 1, timestamp);
    docs.push({ id: item.id, tokens: tokenize(itemText(item)) });
  }
  const rank = indexInMemory(docs.slice(0, size));
  return queries.map((query) => rank(tokenize(query), TOP_K));
}

/** Sum of a result list's scores over the exact top 10's: how close the answer is where it differs. */
function scoreShare(found: { score: number }[], exact: { score: number }[]): number {
  const best = exact.reduce((sum, hit) => sum + hit.score, 0);
  return best === 0 ? 1 : found.reduce((sum, hit) => sum + hit.score, 0) / best;
}

/** Share of the exact top 10 a result list holds, by score (a tie at the 10th score counts as found). */
function recall(found: { score: number }[], exact: { score: number }[]): number {
  const kth = exact.at(-1)?.score ?? 0;
  const hits = found.filter((hit) => hit.score >= kth * (1 - 1e-9)).length;
  return exact.length === 0 ? 1 : Math.min(1, hits / exact.length);
}

interface SizeResult {
  size: number;
  loadSeconds: number;
  records: number;
  reused: boolean;
  p50: number;
  p99: number;
  unitsPerQuery: number[];
  calls: number[];
  /** Postings the query read. */
  postings: number[];
  recall: number[];
  scoreShare: number[];
  /** Without the per-term budget: what proving the exact top 10 reads. */
  exactUnits: number[];
  exactCalls: number[];
  latencies: number[];
}
/** The retriever POST /retrieve runs (the service's settings), and the same without the read budget. */
function retrievers(endpoint: string, options: Partial<Parameters<typeof createSearch>[0]> = {}) {
  const { raw, client, meter } = meteredClient(endpoint);
  const items = createItemRepository({ client, tableName: COLLECTION_TABLE });
  const dictionary = createDictionary({ client, tableName: COLLECTION_TABLE });
  const retrieve = createRetriever({
    search: createSearch({ client, tableName: COLLECTION_TABLE, ...options }),
    items,
    dictionary,
  });
  const unbounded = createRetriever({
    search: createSearch({
      client,
      tableName: COLLECTION_TABLE,
      maxPostingsPerTerm: Number.POSITIVE_INFINITY,
      filterMaxPostingsPerTerm: Number.POSITIVE_INFINITY,
    }),
    items,
    dictionary,
  });
  return { raw, meter, retrieve, unbounded };
}

/** REPEATS passes of the query set; each query goes to every retriever in rotating order, and each time is kept. */
async function timeInterleaved<T extends { retrieve: ReturnType<typeof retrievers>['retrieve'] }>(
  targets: T[],
  keep: (target: T, ms: number) => void,
) {
  for (let r = 0; r < REPEATS; r++) {
    for (const [q, query] of queries.entries()) {
      for (let i = 0; i < targets.length; i++) {
        const target = targets[(r + q + i) % targets.length];
        if (!target) continue;
        const begin = performance.now();
        await target.retrieve({ query, topK: TOP_K, minScore: 0 });
        keep(target, performance.now() - begin);
      }
    }
  }
}

// Read units, calls and recall: one size at a time.
const results: SizeResult[] = [];
const exactBySize = new Map<number, ReturnType<typeof exactTopK>>();
for (const size of SIZES) {
  const exact = exactTopK(size);
  exactBySize.set(size, exact);
  const load = loads.find((l) => l.size === size);
  results.push(
    await withCollections([size], async (endpoints) => {
      const { raw, meter, retrieve, unbounded } = retrievers(endpoints.get(size) ?? '');
      const metered = async (run: () => ReturnType<typeof retrieve>) => {
        meter.units = 0;
        meter.calls = 0;
        meter.reported = 0;
        meter.postings = 0;
        const value = await run();
        if (meter.reported === 0) throw new Error('DynamoDB Local reported no consumed capacity');
        return { results: value.results, units: meter.units, calls: meter.calls, postings: meter.postings };
      };
      const result: SizeResult = {
        size,
        loadSeconds: load?.loadSeconds ?? 0,
        records: load?.records ?? 0,
        reused: load?.reused ?? false,
        p50: Number.NaN,
        p99: Number.NaN,
        unitsPerQuery: [],
        calls: [],
        postings: [],
        recall: [],
        scoreShare: [],
        exactUnits: [],
        exactCalls: [],
        latencies: [],
      };
      for (const [i, query] of queries.entries()) {
        const run = await metered(() => retrieve({ query, topK: TOP_K, minScore: 0 }));
        result.unitsPerQuery.push(run.units);
        result.calls.push(run.calls);
        result.postings.push(run.postings);
        result.recall.push(recall(run.results, exact[i] ?? []));
        result.scoreShare.push(scoreShare(run.results, exact[i] ?? []));
        const proof = await metered(() => unbounded({ query, topK: TOP_K, minScore: 0 }));
        if (recall(proof.results, exact[i] ?? []) < 1)
          throw new Error(`unbounded search is not exact: ${query}`);
        result.exactUnits.push(proof.units);
        result.exactCalls.push(proof.calls);
      }
      raw.destroy();
      console.log(`measured read units and recall at ${size}`);
      return result;
    }),
  );
}

// Latency: every size served at once and the queries interleaved across sizes (rotating order), so drift on this
// shared machine hits every size alike.
await withCollections(SIZES, async (endpoints) => {
  const running = SIZES.map((size) => ({ size, ...retrievers(endpoints.get(size) ?? '') }));
  for (const { retrieve } of running)
    for (const query of queries) await retrieve({ query, topK: TOP_K, minScore: 0 });
  await timeInterleaved(running, (target, ms) =>
    results.find((result) => result.size === target.size)?.latencies.push(ms),
  );
  for (const { raw } of running) raw.destroy();
});
for (const result of results) {
  result.p50 = quantile(result.latencies, 0.5);
  result.p99 = quantile(result.latencies, 0.99);
}

// The read budget's trade-off: other settings of it, on the smallest and the largest collection side by side.
const SWEEP = [
  { maxPostingsPerTerm: 500, poolPerResult: 4 },
  { maxPostingsPerTerm: 1000, poolPerResult: 4 },
  { maxPostingsPerTerm: 2000, poolPerResult: 4 },
  { maxPostingsPerTerm: 4000, poolPerResult: 4 },
];
const ends = [SIZES[0] ?? 0, SIZES[SIZES.length - 1] ?? 0];
const rawPages: { limit: number; size: number; via: 'sdk' | 'http'; p50: number }[] = [];
/** A raw Query for the first `limit` blocks of the most common term's postings, what the search reads. */
const commonBlocksPage = (limit: number) => ({
  TableName: COLLECTION_TABLE,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :b)',
  ExpressionAttributeValues: { ':pk': { S: termPk(vocabulary[0] ?? '') }, ':b': { S: BLOCK_PREFIX } },
  ExpressionAttributeNames: { '#p': 'p' },
  ProjectionExpression: '#p',
  Limit: limit,
});
/** Block counts of the raw pages measured. */
const RAW_PAGE_BLOCKS = [1, 4];
const keepAlive = new Agent({ keepAlive: true });

/**
 * What the block layout buys: the most common term's first blocks (at least LAYOUT_POSTINGS postings) read as the
 * search reads them, against the same postings stored one per DynamoDB item (the layout before blocks, `sk, tf, dl`
 * under a bench-only key, written for this measurement into the scratch copy of each collection), both read
 * through the SDK and decoded, interleaved.
 */
const LAYOUT_POSTINGS = 1000;
const packedPages: PackedPage[] = [];
async function timeLayouts(runs: { size: number; raw: DynamoDBClient }[], sizes: number[]) {
  const blocksPage = (client: DynamoDBClient, limit: number) =>
    client.send(new QueryCommand({ ...commonBlocksPage(limit), ReturnConsumedCapacity: 'TOTAL' }));
  const singlePage = (client: DynamoDBClient, limit: number) =>
    client.send(
      new QueryCommand({
        TableName: COLLECTION_TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'BENCH#single' } },
        ProjectionExpression: 'sk, tf, dl',
        Limit: limit,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
  const targets = [];
  for (const size of sizes) {
    const client = runs.find((r) => r.size === size)?.raw;
    if (!client) continue;
    const { Items = [] } = await blocksPage(client, Math.ceil(LAYOUT_POSTINGS / 8));
    const postings = [];
    let blocks = 0;
    for (const item of Items) {
      if (postings.length >= LAYOUT_POSTINGS) break;
      postings.push(...decodeBlock(item.p?.S ?? ''));
      blocks++;
    }
    for (const { key, tf, dl } of postings)
      await client.send(
        new PutItemCommand({
          TableName: COLLECTION_TABLE,
          Item: { pk: { S: 'BENCH#single' }, sk: { S: key }, tf: { N: String(tf) }, dl: { N: String(dl) } },
        }),
      );
    targets.push({ size, client, blocks, count: postings.length });
  }
  const kinds = targets.flatMap((t) =>
    (['single', 'packed'] as const).map((kind) => ({ ...t, kind, times: [] as number[], units: 0 })),
  );
  for (let r = 0; r < 10 * REPEATS; r++) {
    for (let i = 0; i < kinds.length; i++) {
      const k = kinds[(r + i) % kinds.length];
      if (!k) continue;
      const begin = performance.now();
      let postings = 0;
      if (k.kind === 'single') {
        const reply = await singlePage(k.client, k.count);
        for (const item of reply.Items ?? []) if (item.sk?.S && item.tf?.N && item.dl?.N) postings++;
        k.units = reply.ConsumedCapacity?.CapacityUnits ?? 0;
      } else {
        const reply = await blocksPage(k.client, k.blocks);
        for (const item of reply.Items ?? []) postings += decodeBlock(item.p?.S ?? '').length;
        k.units = reply.ConsumedCapacity?.CapacityUnits ?? 0;
      }
      k.times.push(performance.now() - begin);
      if (postings !== k.count) throw new Error(`read ${postings} ${k.kind} postings, not ${k.count}`);
    }
  }
  return targets.map(({ size, count, blocks }) => {
    const of = (kind: 'single' | 'packed') => kinds.find((k) => k.size === size && k.kind === kind);
    return {
      size,
      postings: count,
      blocks,
      single: quantile(of('single')?.times ?? [], 0.5),
      packed: quantile(of('packed')?.times ?? [], 0.5),
      singleUnits: of('single')?.units ?? 0,
      packedUnits: of('packed')?.units ?? 0,
    };
  });
}
/** One DynamoDB request over plain HTTP, its JSON reply parsed, no SDK (DynamoDB Local does not check signatures). */
function httpRequest(endpoint: string, target: string, input: object): Promise<unknown> {
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const request = httpSend(
      endpoint,
      {
        method: 'POST',
        agent: keepAlive,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${target}`,
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => {
          if (response.statusCode !== 200)
            reject(new Error(`DynamoDB Local answered ${response.statusCode}: ${text}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
const sweep = await withCollections(ends, async (endpoints) => {
  const runs = SWEEP.flatMap((setting) =>
    ends.map((size) => ({
      setting,
      size,
      latencies: [] as number[],
      units: [] as number[],
      recall: [] as number[],
      ...retrievers(endpoints.get(size) ?? '', setting),
    })),
  );
  for (const run of runs) {
    for (const [i, query] of queries.entries()) {
      run.meter.units = 0;
      const { results: found } = await run.retrieve({ query, topK: TOP_K, minScore: 0 });
      run.units.push(run.meter.units);
      run.recall.push(recall(found, exactBySize.get(run.size)?.[i] ?? []));
    }
  }
  await timeInterleaved(runs, (run, ms) => run.latencies.push(ms));
  // The floor under those figures: one raw Query page of a common term's blocks (what the search reads), at each
  // end, through the SDK and over plain HTTP without it, interleaved.
  const pages = RAW_PAGE_BLOCKS.flatMap((limit) =>
    ends.flatMap((size) =>
      (['sdk', 'http'] as const).map((via) => ({
        limit,
        size,
        via,
        client: runs.find((r) => r.size === size)?.raw,
        endpoint: endpoints.get(size) ?? '',
        times: [] as number[],
      })),
    ),
  );
  for (let r = 0; r < 10 * REPEATS; r++) {
    for (let i = 0; i < pages.length; i++) {
      const page = pages[(r + i) % pages.length];
      if (!page?.client) continue;
      const input = commonBlocksPage(page.limit);
      const begin = performance.now();
      const reply =
        page.via === 'sdk'
          ? await page.client.send(new QueryCommand(input))
          : await httpRequest(page.endpoint, 'Query', input);
      page.times.push(performance.now() - begin);
      if ((reply as { Items?: unknown[] }).Items?.length !== page.limit) throw new Error('short raw page');
    }
  }
  rawPages.push(
    ...pages.map(({ limit, size, via, times }) => ({ limit, size, via, p50: quantile(times, 0.5) })),
  );
  packedPages.push(...(await timeLayouts(runs, ends)));
  for (const run of runs) run.raw.destroy();
  keepAlive.destroy();
  return SWEEP.map((setting) => {
    const [small, large] = ends.map((size) => runs.find((r) => r.setting === setting && r.size === size));
    return {
      ...setting,
      ratio: quantile(large?.latencies ?? [], 0.5) / quantile(small?.latencies ?? [], 0.5),
      p50Small: quantile(small?.latencies ?? [], 0.5),
      p50Large: quantile(large?.latencies ?? [], 0.5),
      unitsLarge: large?.units ?? [],
      recallLarge: large?.recall ?? [],
    };
  });
});

const first = results[0];
const last = results[results.length - 1];
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const perSize =
  (pick: (r: SizeResult) => number[], digits = 1) =>
  (i: number) =>
    results.map((r) => (pick(r)[i] ?? 0).toFixed(digits)).join(' | ');
const rows = results.map(
  (r) =>
    `| ${r.size.toLocaleString('en')} | ${r.records.toLocaleString('en')} | ${r.reused ? 'snapshot' : `${r.loadSeconds.toFixed(0)} s`} | ${ms(r.p50)} | ${ms(r.p99)} | ${mean(r.unitsPerQuery).toFixed(1)} | ${Math.max(...r.unitsPerQuery).toFixed(1)} | ${mean(r.calls).toFixed(1)} | ${median(r.postings).toLocaleString('en')} | ${mean(r.recall).toFixed(3)} | ${Math.min(...r.recall).toFixed(1)} | ${Math.min(...r.scoreShare).toFixed(4)} | ${mean(r.exactUnits).toFixed(1)} | ${Math.max(...r.exactUnits).toFixed(1)} |`,
);
const latencyRatio = first && last ? last.p50 / first.p50 : Number.NaN;
// "Grows": a query reads more at the largest size than at the one before it (small collections read less
// while a term's list is shorter than the per-term budget).
const previous = results[results.length - 2];
const grown = queries.filter(
  (_, i) => (last?.unitsPerQuery[i] ?? 0) > (previous?.unitsPerQuery[i] ?? 0) + 0.5,
);
const unitsGrow = grown.length > 0;
const ceiling = Math.max(...results.flatMap((r) => r.unitsPerQuery));
const markdown = `## Retrieval at scale

Synthetic items (seeded PRNG, Zipf-distributed vocabulary of ${vocabulary.length.toLocaleString('en')} pseudo-words;
names of 2–4 words, descriptions of 30–80 words, 1–3 tags) loaded into DynamoDB Local with BatchWriteItem as the
exact records the repository and the indexer write (items, doc records, posting blocks split as the posting writer
splits them, df, STATS, counter: checked record for record against \`items.create\` + \`indexer.reindexItem\` on 30
items, at blocks of ${BLOCK_CAPACITY} and of 4 postings: ${identical ? 'identical' : 'DIFFERENT'}).
Each size is its own DynamoDB Local database, built from scratch and kept as a snapshot under
\`.local/bench/collections/\` (keyed by a hash of the generator, tokenizer and record layout), so only the first run
pays the load (the *load* column).
${queries.length} fixed queries of 1–3 terms (common, middle and rare words), top ${TOP_K}, through
\`createRetriever\`/\`createSearch\` with the service's settings (what \`POST /retrieve\` runs, without HTTP); latency over
${REPEATS} passes of the set (${REPEATS * queries.length} queries per size) after one unmeasured pass, with every size
served at once (one DynamoDB Local each) and the queries interleaved across sizes in rotating order. Read units: every command sent with
\`ReturnConsumedCapacity: TOTAL\` and the reported \`CapacityUnits\` added up (DynamoDB Local reports them).
*Recall*: the share of the exact BM25 top ${TOP_K} (computed in memory over the same items) that the answer holds;
*score share*: the sum of the answer's scores over the sum of the exact top ${TOP_K}'s (1 = as good as exact).
*Exact*: the same queries with the per-term read budget removed, so the threshold algorithm runs until it proves
the top ${TOP_K} (every such answer checked equal to the in-memory ranking).

| items | records | load | p50 ms | p99 ms | RCU / query (mean) | RCU (max) | DynamoDB calls / query | postings read (median) | recall@${TOP_K} (mean) | recall (min) | score share (min) | exact: RCU (mean) | exact: RCU (max) |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

![retrieval latency against collection size](benchmarks/retrieval.svg)

p50 at ${last?.size.toLocaleString('en')} ÷ p50 at ${first?.size.toLocaleString('en')}: **${latencyRatio.toFixed(2)}** (budget ≤ 2: ${latencyRatio <= 2 ? 'met' : '**not met**'}).
Read units per fixed query: at most ${ceiling.toFixed(1)} at any size; ${
  unitsGrow
    ? `**${grown.length} queries read more at ${last?.size.toLocaleString('en')} than at ${previous?.size.toLocaleString('en')}** (${grown.map((q) => `\`${q}\``).join(', ')})`
    : `none reads more at ${last?.size.toLocaleString('en')} than at ${previous?.size.toLocaleString('en')}: once a term's list is longer than the budget, its cost stops growing`
}.

**The budget's trade-off** (the same queries with other settings of \`createSearch\`, the smallest and the largest
collection served side by side and interleaved; the service's setting is ${SEARCH_DEFAULTS.maxPostingsPerTerm.toLocaleString('en')} postings a term, pool ${SEARCH_DEFAULTS.poolPerResult} × k):

| postings per term | pool | p50 ms at ${ends[0]?.toLocaleString('en')} | p50 ms at ${ends[1]?.toLocaleString('en')} | p50 ratio | RCU / query at ${ends[1]?.toLocaleString('en')} (mean / max) | recall@${TOP_K} at ${ends[1]?.toLocaleString('en')} (mean / min) |
|---|---|---|---|---|---|---|
${sweep.map((s) => `| ${s.maxPostingsPerTerm.toLocaleString('en')} | ${s.poolPerResult} × k | ${ms(s.p50Small)} | ${ms(s.p50Large)} | ${s.ratio.toFixed(2)} | ${mean(s.unitsLarge).toFixed(1)} / ${Math.max(...s.unitsLarge).toFixed(1)} | ${mean(s.recallLarge).toFixed(3)} / ${Math.min(...s.recallLarge).toFixed(1)} |`).join('\n')}

Raw \`Query\` pages of the most common term's posting blocks (what the search reads; up to ${BLOCK_CAPACITY} postings a block), same run, interleaved (p50 ms):

| blocks | ${ends.map((size) => `through the SDK at ${size.toLocaleString('en')}`).join(' | ')} | ${ends.map((size) => `plain HTTP at ${size.toLocaleString('en')}`).join(' | ')} |
|---|---|---|---|---|
${RAW_PAGE_BLOCKS.map((limit) => `| ${limit} | ${(['sdk', 'http'] as const).flatMap((via) => ends.map((size) => ms(rawPages.find((p) => p.limit === limit && p.size === size && p.via === via)?.p50 ?? Number.NaN))).join(' | ')} |`).join('\n')}

What the block layout buys: the same term's first postings as the index stores them (blocks) and one per DynamoDB
item (the layout before blocks; written for this measurement into the scratch copy of each collection), read through
the SDK and decoded, same run, interleaved:

| items | postings | blocks: p50 ms | RCU | one posting per item: p50 ms | RCU |
|---|---|---|---|---|---|
${packedPages.map((p) => `| ${p.size.toLocaleString('en')} | ${p.postings.toLocaleString('en')} in ${p.blocks} blocks | ${ms(p.packed)} | ${p.packedUnits} | ${ms(p.single)} | ${p.singleUnits} |`).join('\n')}

<details><summary>Read units and recall of each query at each size</summary>

| query | ${results.map((r) => `RCU ${r.size.toLocaleString('en')}`).join(' | ')} | ${results.map((r) => `recall ${r.size.toLocaleString('en')}`).join(' | ')} | ${results.map((r) => `exact RCU ${r.size.toLocaleString('en')}`).join(' | ')} |
|---|${results.map(() => '---|---|---').join('|')}|
${queries.map((q, i) => `| \`${q}\` | ${perSize((r) => r.unitsPerQuery)(i)} | ${perSize((r) => r.recall, 2)(i)} | ${perSize((r) => r.exactUnits)(i)} |`).join('\n')}

</details>
`;
writeResult({
  part: 'scale',
  markdown,
  data: {
    queries,
    results,
    identical,
    latencyRatio,
    unitsGrow,
    grown,
    ceiling,
    sweep,
    rawPages,
    packedPages,
  },
  seconds: (Date.now() - started) / 1000,
});
