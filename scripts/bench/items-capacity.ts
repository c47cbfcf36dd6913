// `npm run bench:capacity`: the items' capacity and cost model and the index's ingest ceiling on AWS, from DynamoDB's
// documented limits, rules and prices and bench:ingest's figures a new item: a model, not a measurement.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { ID_BLOCK, ITEM_SHARDS } from '../../lib/items/keys.ts';
import { toRecord } from '../../lib/items/record.ts';
import { ItemWriteSchema } from '../../lib/items/schema.ts';
import {
  ANSWER_CACHE_MS,
  ANSWER_RANKING_MS,
  COMPACT_BYTES,
  FIRST_READS_CACHE_MS,
  SHRUNK_PARTITIONS,
  STATS_PK,
  STATS_SHARDS,
  TAIL_READS_CACHE_MS,
} from '../../lib/search/index.ts';
import { recordBytes } from './capacity.ts';
import { mean, RESULTS_DIR } from './common.ts';
import { loadCranfield } from './cranfield.ts';
import { freshnessModel } from './freshness-model.ts';
import { benchQueries } from './synthetic.ts';

const [KEY_WCU, KEY_RCU, HEADROOM, TARGET, MAX_LEASE, PAGE] = [1000, 3000, 0.5, 10_000, 100, 100];
/** $ per million: write and read request units, Lambda requests, API Gateway and CloudFront requests; $ a GB-s. */
const PRICE = { wru: 0.625, rru: 0.125, lambdaRequest: 0.2, gbSecond: 0.0000166667, api: 1, cdn: 1 };
/** Warm Lambda milliseconds a request (bench:warm's, rounded up), at 1 GB. */
const LAMBDA_MS = 15;

// The sample items (scripts/seed-data.json) as created (omitted fields take their defaults) and stored.
const stamp = { createdAt: '2026-11-25T00:00:00.000Z', updatedAt: '2026-11-25T00:00:00.000Z', version: 1 };
const seed = JSON.parse(readFileSync(new URL('../seed-data.json', import.meta.url), 'utf8'));
const samples = v.parse(v.array(ItemWriteSchema), seed);
const sizes = samples.map((s, i) => recordBytes(toRecord({ id: 1_000_000 + i, ...s, ...stamp })));
const itemBytes = sizes.reduce((a, b) => a + b, 0) / sizes.length;
const itemWcu = Math.ceil(itemBytes / 1024);

// Consecutive leases land on consecutive shards, so creates spread over the shards; the counter takes an ADD a lease.
const [plainPerCreate, idemPerCreate] = [itemWcu, 2 * itemWcu]; // the idempotent put is inside a transaction
const perShard = (rate: number, wcu: number) => (rate * wcu) / ITEM_SHARDS;
const counterWcu = (rate: number) => rate / MAX_LEASE;
const maxCreates = (wcu: number) =>
  Math.min((KEY_WCU * HEADROOM * ITEM_SHARDS) / wcu, KEY_WCU * HEADROOM * MAX_LEASE);
// A full list page reads 101 dense ids from one or two blocks; the first page reads ids 1–99 from ITEM#0.
const pageRcu = Math.ceil((PAGE * itemBytes) / 4096) + 1;
const firstPageHotRcu = Math.ceil((99 * itemBytes) / 4096);
const firstPagesUncached = (KEY_RCU * HEADROOM) / firstPageHotRcu;
// With the CDN, each of 600 edge locations asks the origin at most once every cacheMaxAge seconds a URL.
const EDGES = 600;
const originAt = (maxAge: number) => EDGES / maxAge;

const usd = (n: number) => `$${n.toFixed(2)}`;
const lambda = (LAMBDA_MS / 1000) * 1e6 * PRICE.gbSecond;
const createCost = (wcuPerCreate: number) =>
  (wcuPerCreate + 1 / MAX_LEASE) * PRICE.wru + PRICE.lambdaRequest + lambda + PRICE.api;
// The idempotency record: a conditional put, then its update (which holds the item) inside the transaction.
const idemCreateCost = createCost(idemPerCreate + 1 + 2 * Math.ceil((itemBytes + 200) / 1024));
const listCost = pageRcu * PRICE.rru + PRICE.lambdaRequest + lambda + PRICE.api;
const en = (n: number) => n.toLocaleString('en');
const percent = (wcu: number) => ((wcu / KEY_WCU) * 100).toFixed(1);
const createRow = (r: number) =>
  `| ${en(r)} | ${perShard(r, plainPerCreate).toFixed(0)} | ${percent(perShard(r, plainPerCreate))} | ${perShard(r, idemPerCreate).toFixed(0)} | ${percent(perShard(r, idemPerCreate))} | ${counterWcu(r).toFixed(0)} | ${percent(counterWcu(r))} |`;

console.log(`## Items capacity model (\`npm run bench:capacity\`)

Layout: ${ITEM_SHARDS} shards, blocks of ${ID_BLOCK} ids, leases of up to ${MAX_LEASE} ids. Item record: ${itemBytes.toFixed(0)} bytes on average
over the 36 sample items (${Math.min(...sizes)}–${Math.max(...sizes)}), ${itemWcu} WCU a put. Limits per partition key: ${KEY_WCU} WCU/s, ${KEY_RCU} RCU/s; headroom ${HEADROOM * 100} %.

| creates/s | item WCU/s per shard (plain) | % of a key | with Idempotency-Key | % | counter WCU/s | % |
|---|---|---|---|---|---|---|
${[1_000, 10_000, 20_000].map(createRow).join('\n')}

Sustained creates with no key above ${HEADROOM * 100} %: ${en(maxCreates(plainPerCreate))}/s plain, ${en(maxCreates(idemPerCreate))}/s with an
Idempotency-Key (target ${en(TARGET)}/s).

First page of \`GET /items\` (limit 100, consistent): ${firstPageHotRcu} RCU on ITEM#0 a page, so ${firstPagesUncached.toFixed(0)} pages/s without a cache at
${HEADROOM * 100} % of the key; any page about ${pageRcu} RCU. With \`cdn=true\` and \`cacheMaxAge\` N, the origin sees at most ${EDGES} / N
requests/s per URL (${EDGES} edge locations): ${originAt(1).toFixed(0)}/s at N = 1, ${originAt(5).toFixed(0)}/s at N = 5, so ${en(TARGET)} first-page requests/s
and more are served for N ≥ ${Math.ceil(EDGES / firstPagesUncached)} with ITEM#0 under ${HEADROOM * 100} %.

Cost per million (DynamoDB on demand + Lambda ${LAMBDA_MS} ms at 1 GB + API Gateway): creates ${usd(createCost(plainPerCreate))} plain,
${usd(idemCreateCost)} with an Idempotency-Key; list pages ${usd(listCost)} uncached; a page served by CloudFront
${usd(PRICE.cdn)} (and nothing at the origin).`);

// The index's ingest on AWS: the freshness model (freshness-model.ts), and what bounds the whole table: the hottest
// key of bench:ingest's latest result, and the counts' parts, which share the key STATS: a commit (99 items at most)
// holds its part about two requests' time (5 ms each) and writes it as a transaction does (2 WCU).
const ingestFile = join(RESULTS_DIR, 'ingest.json');
const fmt = (n: number) => en(Math.round(n));
type Measured = { label: string; hotKeys: { key: string; wcuPer1000: number }[] };
const { docs } = await loadCranfield();
console.log(`
### Freshness and ingest on AWS (a model)

${freshnessModel(docs)}`);
if (!existsSync(ingestFile))
  console.log("\nThe table's ingest ceiling takes bench:ingest's figures: run `npm run bench:ingest` first.");
else {
  const measured: Measured = JSON.parse(readFileSync(ingestFile, 'utf8')).data.collections[0];
  const hot = measured.hotKeys[0];
  const keyCap = hot ? `\`${hot.key}\` at ${fmt((KEY_WCU * 1000) / hot.wcuPer1000)} items/s` : '—';
  console.log(`Whatever the shards: the hottest key (${measured.label}, bench:ingest) takes 1,000 WCU/s ${keyCap}; the counts'
${STATS_SHARDS} parts ${fmt(Math.min((STATS_SHARDS * 99) / 0.01, (KEY_WCU / 2) * 99))} items/s.`);
}

// The read path's hot keys: bench:options's RCU by partition key of each query (a miss, and the same query again in a
// container that keeps its first reads). A kept read is made at most once every FIRST_READS_CACHE_MS a container, so
// its key sees at most containers ÷ that time reads a second; containers = queries/s × D (Little's law; D: the run's
// mean, DynamoDB Local's latency in it). At 1,000,000 each query's hottest key grows as over the last tenfold measured.
const optionsFile = join(RESULTS_DIR, 'options.json');
type Tallied = {
  reads: Record<string, number>[];
  keptReads?: Record<string, number>[];
  answeredReads?: Record<string, number>[];
  answeredMs?: number[];
  latencies: number[];
};
type KeyRcu = [key: string, rcu: number];
const biggest = (entries: KeyRcu[]) => entries.reduce((best, e) => (e[1] > best[1] ? e : best), ['—', 0]);
/** A query's hottest key but the counts' (kept), with its RCU. */
const hottest = (reads: Record<string, number> = {}) =>
  biggest(Object.entries(reads).filter(([key]) => key !== STATS_PK));
const keptSeconds = FIRST_READS_CACHE_MS / 1000;

function readRow(size: string, name: string, t: Tallied, grow = (_query: number) => 1) {
  // The counts' key as measured; a shrunk set's partition when the set is full (its share of COMPACT_BYTES).
  const full = 0.5 * Math.ceil(COMPACT_BYTES / SHRUNK_PARTITIONS / 4096);
  const stats = [Math.max(0.5, ...t.reads.map((r) => r[STATS_PK] ?? 0)), full];
  const d = mean(t.latencies) / 1000;
  const hot = (t.keptReads ?? []).map((reads, i): KeyRcu => [hottest(reads)[0], hottest(reads)[1] * grow(i)]);
  const [key, worst] = biggest(hot);
  const average = mean(hot.map(([, rcu]) => rcu));
  const q = (rcu: number) => fmt((KEY_RCU * HEADROOM) / rcu);
  const both = (values: number[], f = q) => values.map(f).join(' / ');
  return `| ${size} | ${name} | ${both(stats, String)} | ${both(stats)} | ${fmt(d * 1000)} | ${both(stats, (rcu) => q((rcu * d) / keptSeconds))} | ${average.toFixed(1)} / ${worst.toFixed(1)} (\`${key}\`) | ${both([average, worst])} |`;
}

const VARIANTS = ['plain', 'prefix (', 'typos: 1 ('];
/** How each query's hottest key grows from the last size but one to the last, for the next tenfold (at least 1). */
const growth = (last: Tallied | undefined, before: Tallied | undefined) => (i: number) =>
  Math.max(1, hottest(last?.keptReads?.[i])[1] / Math.max(0.5, hottest(before?.keptReads?.[i])[1]));

// A popular query with its answer and blocks kept (answers.ts, block-cache.ts). Quiet: it is ranked once every
// ANSWER_RANKING_MS, its items read again every ANSWER_CACHE_MS. New items: items with its terms keep coming, so
// every read of its tails (each TAIL_READS_CACHE_MS) finds one changed and it is ranked again, reading its items each
// time; its blocks stay kept (new postings go to tails: the sealed version holds). Edits: besides, each version of the
// counts a container reads (each FIRST_READS_CACHE_MS) shows a pass that rewrote a sealed block, so its blocks are
// read again that often. Its tails are read every TAIL_READS_CACHE_MS throughout. A key takes, a container and a
// second, the ranking's RCU on it (keptReads) at those rates, a term key's at the blocks' and an item key's at the
// items', and its tail's (reads less keptReads) at the tails'. Containers (Little's law): queries/s × h over the
// share of a second a container is not busy with rankings and reads, each counted at the run's mean D; h is a kept
// answer's time (measured) plus INVOKE_MS.
/** A warm invocation's time in its container besides the handler's work (assumed: the runtime's call to the Lambda API). */
const INVOKE_MS = 1;
const tailReadsPerSecond = 1000 / TAIL_READS_CACHE_MS;
/** Reads a second a container makes of a popular query's blocks and of its items. */
type Rates = { blocks: number; items: number };
const QUIET: Rates = { blocks: 1000 / ANSWER_RANKING_MS, items: 1000 / ANSWER_CACHE_MS };
const NEW_ITEMS: Rates = { blocks: 1000 / ANSWER_RANKING_MS, items: tailReadsPerSecond };
const EDITS: Rates = { blocks: 1000 / FIRST_READS_CACHE_MS, items: tailReadsPerSecond };

/** Queries/s of one query before its hottest key reaches HEADROOM, its blocks and items read at `rates`. */
function answeredRate(t: Tallied, i: number, rates: Rates, grow: number) {
  const kept = t.keptReads?.[i] ?? {};
  const cold = t.reads[i] ?? {};
  const perContainer = Object.keys({ ...kept, ...cold })
    .filter((key) => key !== STATS_PK)
    .map((key) => {
      const ranking = (kept[key] ?? 0) * grow;
      const tail = Math.max(0, (cold[key] ?? 0) * grow - ranking);
      return (key.startsWith('ITEM#') ? rates.items : rates.blocks) * ranking + tailReadsPerSecond * tail;
    });
  const containers = (KEY_RCU * HEADROOM) / Math.max(...perContainer, 1e-9);
  const busy = ((tailReadsPerSecond + rates.items) * mean(t.latencies)) / 1000;
  const h = (mean(t.answeredMs ?? []) + INVOKE_MS) / 1000;
  // With a large D (a loaded machine's) a container's re-reads alone fill its second: it has no time left to answer,
  // and the model gives 0 (below target), not a negative rate.
  return (containers * Math.max(0, 1 - busy)) / h;
}

function answersModel(
  sizes: number[],
  of: (size: number | undefined, variant: string) => Tallied | undefined,
) {
  const row = (size: string, name: string, t: Tallied, grow = (_i: number) => 1) => {
    const queries = (t.keptReads ?? []).map((_, i) => i);
    const worst = (rates: Rates) => Math.min(...queries.map((i) => answeredRate(t, i, rates, grow(i))));
    const unread = (t.answeredReads ?? []).every((reads) => Object.keys(reads).length === 0);
    const [quiet, arriving, edited] = [QUIET, NEW_ITEMS, EDITS].map(worst);
    const verdict = (q: number) => `${fmt(q)}${q >= TARGET ? '' : ' (below target)'}`;
    return `| ${size} | ${name} | ${(mean(t.answeredMs ?? []) + INVOKE_MS).toFixed(2)} | ${unread ? 'none' : 'some'} | ${verdict(quiet ?? 0)} | ${verdict(arriving ?? 0)} | ${verdict(edited ?? 0)} |`;
  };
  const rows = VARIANTS.flatMap((variant) => {
    const name = variant.replace(' (', '');
    const measured = sizes.flatMap((size) => {
      const t = of(size, variant);
      return t?.answeredMs?.length ? [row(en(size), name, t)] : [];
    });
    const [last, before] = [of(sizes.at(-1), variant), of(sizes.at(-2), variant)];
    return last?.answeredMs?.length && before
      ? [...measured, row('1,000,000 (modelled)', name, last, growth(last, before))]
      : measured;
  });
  return `A popular query with its answer and blocks kept (answers.ts, block-cache.ts): queries/s of the worst of the ${benchQueries.length}
queries before any key it reads reaches ${HEADROOM * 100} % of ${en(KEY_RCU)} RCU/s. Quiet: a container ranks it once every ${en(ANSWER_RANKING_MS)} ms and
reads its items again every ${ANSWER_CACHE_MS} ms. New items: items with its terms keep coming, so every read of its tails (each
${TAIL_READS_CACHE_MS} ms) finds one changed: ranked ${tailReadsPerSecond} times a second, its blocks kept (new postings go to tails). Edits: besides,
every read of the counts (each ${FIRST_READS_CACHE_MS} ms) shows a pass that rewrote a sealed block: its blocks read again that often.
h: a kept answer's milliseconds (measured) + ${INVOKE_MS} ms a Lambda invocation (assumed).

| items | query | h ms | reads of a kept answer | q/s, quiet (target ${en(TARGET)}) | q/s, new items | q/s, edits |
|---|---|---|---|---|---|---|
${rows.join('\n')}`;
}

if (existsSync(optionsFile)) {
  const data: Record<string, Tallied> = JSON.parse(readFileSync(optionsFile, 'utf8')).data;
  const sizes = [...new Set(Object.keys(data).map((key) => Number(key.split(' ')[0])))].sort((a, b) => a - b);
  const of = (size: number | undefined, variant: string) =>
    Object.entries(data).find(([key]) => key.startsWith(`${size} ${variant}`))?.[1];
  const rows = VARIANTS.flatMap((variant) => {
    const name = variant.replace(' (', '');
    const [last, before] = [of(sizes.at(-1), variant), of(sizes.at(-2), variant)];
    const grow = growth(last, before);
    const measured = sizes.map((size) => [en(size), of(size, variant)] as const);
    const rows = measured.flatMap(([size, t]) => (t?.keptReads?.length ? [readRow(size, name, t)] : []));
    return last && before ? [...rows, readRow('1,000,000 (modelled)', name, last, grow)] : rows;
  });
  console.log(`
### The read path's hot keys (AWS, a model)

Each query's read units by partition key, measured by \`npm run bench:options\` (${sizes.map(en).join(', ')} items, ${benchQueries.length} queries):
the counts \`${STATS_PK}\` are read by every query, and the shrunk set's ${SHRUNK_PARTITIONS} partitions \`SHRUNK#k\` by every query
while it has entries (each holds up to ${COMPACT_BYTES / 1024 / SHRUNK_PARTITIONS} KB of a full set); a term's key by the queries of that term.
A container keeps the counts and the set ${FIRST_READS_CACHE_MS} ms (first-reads.ts), so it reads each of those keys at most once in
that time: a key takes containers ÷ ${keptSeconds} s reads a second, containers = queries/s × D. Queries/s at which a key reaches ${HEADROOM * 100} % of ${en(KEY_RCU)} RCU/s:

| items | query | RCU a read: \`${STATS_PK}\` / a \`SHRUNK#k\` (full set) | q/s, read by every query (\`${STATS_PK}\` / \`SHRUNK#k\`) | D ms (mean) | q/s, kept (\`${STATS_PK}\` / \`SHRUNK#k\`) | hottest other key, RCU a query kept (mean / worst query) | q/s of one query on it (mean / worst) |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

A query's own keys (its terms' blocks, the items it returns) are read by every ranking of it, its terms' tails by
each container every ${TAIL_READS_CACHE_MS} ms.

${answersModel(sizes, of)}`);
} else
  console.log("\nThe read path's model takes bench:options's figures: run `npm run bench:options` first.");
