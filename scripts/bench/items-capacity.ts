// `npm run bench:capacity`: the items' capacity model, from DynamoDB's documented limits and rules and the
// layout in lib/items/keys.ts; a model, not a measurement on AWS. Per partition key: 1,000 WCU/s and 3,000 RCU/s; a
// write costs ceil(size / 1 KB) WCU (twice inside a transaction), a consistent read ceil(size / 4 KB) RCU per call.
// Item size: the 36 sample items of scripts/seed-data.json as the table stores them (lib/items/record.ts), by
// DynamoDB's size rule (attribute names and values in bytes). Prices: on-demand, us-east-1 (November 2024 on):
// $0.625 per million write request units, $0.125 per million read request units; Lambda $0.20 per million requests
// and $0.0000166667 per GB-second (1,024 MB, the functions' size); API Gateway HTTP API $1.00 per million requests;
// CloudFront $0.0100 per 10,000 HTTPS requests (North America).
import { readFileSync } from 'node:fs';
import { ID_BLOCK, ITEM_SHARDS } from '../../lib/items/keys.ts';
import { toRecord } from '../../lib/items/record.ts';
import { STATS_SHARDS } from '../../lib/search/format/keys.ts';
import { recordBytes } from './capacity.ts';

const KEY_WCU = 1000;
const KEY_RCU = 3000;
const HEADROOM = 0.5;
const TARGET = 10_000;
const MAX_LEASE = 100;
const PAGE = 100;
const PRICE = { wru: 0.625, rru: 0.125, lambdaRequest: 0.2, gbSecond: 0.0000166667, api: 1, cdn: 1 };
/** Warm durations per request on Lambda (ms): bench:warm's figures here rounded up, to bill whole milliseconds. */
const LAMBDA_MS = { create: 15, list: 15 };

const samples: {
  name: string;
  description?: string;
  tags?: string[];
  attributes?: Record<string, unknown>;
}[] = JSON.parse(readFileSync(new URL('../seed-data.json', import.meta.url), 'utf8'));
const sizes = samples.map((s, i) =>
  recordBytes(
    toRecord({
      id: 1_000_000 + i,
      name: s.name,
      description: s.description ?? '',
      tags: s.tags ?? [],
      attributes: (s.attributes ?? {}) as Record<string, string | number | boolean>,
      createdAt: '2026-11-25T00:00:00.000Z',
      updatedAt: '2026-11-25T00:00:00.000Z',
      version: 1,
    }),
  ),
);
const itemBytes = sizes.reduce((a, b) => a + b, 0) / sizes.length;
const itemWcu = Math.ceil(itemBytes / 1024);

// Creates. Containers hold blocks of ids a lease each; consecutive leases land on consecutive shards, so at R
// creates/s the item writes spread over min(containers, shards) keys; the counter takes one ADD a lease.
const plainPerCreate = itemWcu;
const idemPerCreate = 2 * itemWcu; // the item's put inside the idempotency transaction
const perShard = (rate: number, wcu: number) => (rate * wcu) / ITEM_SHARDS;
const counterWcu = (rate: number) => rate / MAX_LEASE;
const maxCreates = (wcu: number) =>
  Math.min((KEY_WCU * HEADROOM * ITEM_SHARDS) / wcu, KEY_WCU * HEADROOM * MAX_LEASE);

// List pages. A full page of limit 100 reads 101 dense ids from one or two blocks: ceil(bytes / 4 KB) per Query.
const pageRcu = Math.ceil((PAGE * itemBytes) / 4096) + 1;
// The first page always reads block 0 (ids 1–99) and block 1 (ids 100–101): shard ITEM#0 bears nearly all of it.
const firstPageHotRcu = Math.ceil((99 * itemBytes) / 4096);
const firstPagesUncached = (KEY_RCU * HEADROOM) / firstPageHotRcu;
// With the CDN and cacheMaxAge N, an edge location asks the origin at most once every N s per cache key (URL,
// Authorization absent): 600 locations at N = 1 s is 600 origin requests/s, whatever the viewers' rate.
const EDGES = 600;
const originAt = (maxAge: number) => EDGES / maxAge;

const usd = (n: number) => `$${n.toFixed(2)}`;
const gbSeconds = (ms: number) => (ms / 1000) * 1;
const createCost = (wcuPerCreate: number) =>
  (wcuPerCreate + 1 / MAX_LEASE) * PRICE.wru +
  PRICE.lambdaRequest +
  gbSeconds(LAMBDA_MS.create) * 1e6 * PRICE.gbSecond +
  PRICE.api;
// The idempotency record: a conditional put (1 WCU), then its update inside the transaction (2 × its size, which
// holds the item).
const idemCreateCost = createCost(idemPerCreate + 1 + 2 * Math.ceil((itemBytes + 200) / 1024));
const listCost =
  pageRcu * PRICE.rru + PRICE.lambdaRequest + gbSeconds(LAMBDA_MS.list) * 1e6 * PRICE.gbSecond + PRICE.api;

console.log(`## Items capacity model (\`npm run bench:capacity\`)

Layout: ${ITEM_SHARDS} shards, blocks of ${ID_BLOCK} ids, leases of up to ${MAX_LEASE} ids. Item record: ${itemBytes.toFixed(0)} bytes on average
over the 36 sample items (${Math.min(...sizes)}–${Math.max(...sizes)}), ${itemWcu} WCU a put. Limits per partition key: ${KEY_WCU} WCU/s, ${KEY_RCU} RCU/s; headroom ${HEADROOM * 100} %.

| creates/s | item WCU/s per shard (plain) | % of a key | with Idempotency-Key | % | counter WCU/s | % |
|---|---|---|---|---|---|---|
${[1_000, 10_000, 20_000]
  .map(
    (r) =>
      `| ${r.toLocaleString('en')} | ${perShard(r, plainPerCreate).toFixed(0)} | ${((perShard(r, plainPerCreate) / KEY_WCU) * 100).toFixed(1)} | ${perShard(r, idemPerCreate).toFixed(0)} | ${((perShard(r, idemPerCreate) / KEY_WCU) * 100).toFixed(1)} | ${counterWcu(r).toFixed(0)} | ${((counterWcu(r) / KEY_WCU) * 100).toFixed(1)} |`,
  )
  .join('\n')}

Sustained creates with no key above ${HEADROOM * 100} %: ${maxCreates(plainPerCreate).toLocaleString('en')}/s plain, ${maxCreates(idemPerCreate).toLocaleString('en')}/s with an
Idempotency-Key (target ${TARGET.toLocaleString('en')}/s). The layout before: one key, so ${(KEY_WCU * HEADROOM) / plainPerCreate}/s and ${(KEY_WCU * HEADROOM) / idemPerCreate}/s.

First page of \`GET /items\` (limit 100, consistent): ${firstPageHotRcu} RCU on ITEM#0 a page, so ${firstPagesUncached.toFixed(0)} pages/s without a cache at
${HEADROOM * 100} % of the key; any page about ${pageRcu} RCU. With \`cdn=true\` and \`cacheMaxAge\` N, the origin sees at most ${EDGES} / N
requests/s per URL (${EDGES} edge locations): ${originAt(1).toFixed(0)}/s at N = 1, ${originAt(5).toFixed(0)}/s at N = 5, so ${TARGET.toLocaleString('en')} first-page requests/s
and more are served for N ≥ ${Math.ceil(EDGES / firstPagesUncached)} with ITEM#0 under ${HEADROOM * 100} %.

Cost per million (DynamoDB on demand + Lambda ${LAMBDA_MS.create} ms at 1 GB + API Gateway): creates ${usd(createCost(plainPerCreate))} plain,
${usd(idemCreateCost)} with an Idempotency-Key; list pages ${usd(listCost)} uncached; a page served by CloudFront
${usd(PRICE.cdn)} (and nothing at the origin).`);

// The index's ingest ceiling. The stream consumer's writer (lib/search/write/indexer.ts) works a batch in phases,
// each a number of rounds of requests at most CONCURRENCY in flight: the items (100 keys a call, one call at a time)
// and the doc records (four at a time) read, the write-ahead Put of each doc, the tails read (four calls at a time),
// one write a term, the commits one after another (99 docs each). A round takes about one request's latency. Its
// writes and the hottest keys they land on come from bench:write-model's replay of the writer (10,000 synthetic
// items); a key takes 1,000 WCU/s, and transactions on one item (a part of the counts, STATS, once per commit) are
// applied one at a time.
const INGEST_SIZE = 10_000;
const CONCURRENCY = 32;
const LATENCY_MS = [5, 10];
const FACTORS = [1, 2, 4, 10];
const { replayIngest, hottestIndex, hottestTerm } = await import('./write-model.ts');
const ingestRows = [1000, 100].map((batch) => {
  const tally = replayIngest([INGEST_SIZE], batch).get(INGEST_SIZE);
  if (!tally) throw new Error('the write model measured nothing');
  const terms = tally.terms / tally.batches;
  const rounds =
    Math.ceil(batch / 100) +
    Math.ceil(batch / CONCURRENCY) +
    Math.ceil(terms / 400) +
    Math.ceil(terms / CONCURRENCY) +
    Math.ceil(batch / 99);
  const [term, termWcu] = hottestTerm(tally);
  const [index, indexWcu] = hottestIndex(tally);
  const perItem = (value: number) => value / tally.items;
  // Transactions on the counts: one per commit, on one of their STATS_SHARDS parts (each part's transactions applied
  // one at a time, each holding it about two requests' time); the parts share the partition STATS (2 WCU a commit).
  const statsCap = (latency: number) =>
    Math.min(
      STATS_SHARDS / (perItem(tally.statsTransactions) * ((2 * latency) / 1000)),
      KEY_WCU / (2 * perItem(tally.statsTransactions)),
    );
  const keyCaps = [
    { what: `\`T#${term}\``, cap: KEY_WCU / perItem(termWcu) },
    { what: `\`${index}\``, cap: KEY_WCU / perItem(indexWcu) },
  ];
  return { batch, tally, terms, rounds, keyCaps, statsCap, perItem };
});

const fmt = (n: number) => Math.round(n).toLocaleString('en');
console.log(`
### The index's ingest ceiling (AWS, a model)

Replayed writer: ${INGEST_SIZE.toLocaleString('en')} synthetic items created in id order (\`npm run bench:write-model\`'s replay); ${CONCURRENCY} requests in flight;
a round of requests takes one request's latency (${LATENCY_MS.join(' or ')} ms). Per stream shard, parallelizationFactor P runs P batches
at once (a backlog keeps each full).

| batch | index WCU per item | requests per item | rounds per batch | one batch's items/s (${LATENCY_MS.join(' / ')} ms) | ${FACTORS.map((p) => `P = ${p}`).join(' | ')} (items/s a shard, ${LATENCY_MS[1]} ms) | hottest keys' ceilings (items/s) | the counts' ceiling (${STATS_SHARDS} parts; items/s, ${LATENCY_MS.join(' / ')} ms) |
|---|---|---|---|---|${FACTORS.map(() => '---').join('|')}|---|---|
${ingestRows
  .map(({ batch, tally, rounds, keyCaps, statsCap, perItem }) => {
    const rate = (latency: number) => batch / ((rounds * latency) / 1000);
    return `| ${batch} | ${perItem(tally.wcu).toFixed(1)} | ${perItem(tally.requests).toFixed(2)} | ${rounds} | ${LATENCY_MS.map((l) => fmt(rate(l))).join(' / ')} | ${FACTORS.map((p) => fmt(p * rate(LATENCY_MS[1] ?? 10))).join(' | ')} | ${keyCaps.map((k) => `${k.what} ${fmt(k.cap)}`).join('; ')} | ${LATENCY_MS.map((l) => fmt(statsCap(l))).join(' / ')} |`;
  })
  .join('\n')}

A shard's consumer ingests the column of its parallelizationFactor; the table's stream has a shard per partition, and
the hottest keys and the counts bound the whole table whatever the number of shards.`);
