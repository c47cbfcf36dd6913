// Freshness on AWS, a model (`npm run bench:capacity`): creates arrive at a steady rate; each reaches the stream after
// the stream's delay; Lambda's poller hands a writer what is there (at most the batch size); the writer's batch runs
// the steps of a pass (docs/index-format.md, the writer's protocol) one after another, each step's requests
// WRITE_CONCURRENCY at a time. Requests a step: the pass's (plan: a BatchGetItem of the items and one of
// their doc records per 100; write-ahead: one put an item; homes: a BatchGetItem per 100, one write each; commit: a
// transaction per 99 items, one after another), with the homes of real items (Cranfield's: a batch of n items
// writes the distinct stems of its n items, bench:ingest's measured requests an item agree within 1 %).
import {
  indexTerms,
  isExactForm,
  itemText,
  TAIL_READS_CACHE_MS,
  WRITE_CONCURRENCY,
} from '../../lib/search/index.ts';
import { streamSettings } from '../local/stream-batches.ts';
import { fmt, prng, quantile } from './common.ts';
import { cranfieldWrite } from './cranfield.ts';

/** Lambda polls a DynamoDB stream's shard 4 times a second (AWS Lambda Developer Guide, "Using Lambda with DynamoDB"). */
const POLL_MS = 250;
/**
 * DynamoDB's request latency, lognormal: median 5 ms ("single-digit millisecond", AWS), p99 20 ms (client-side
 * measurements put a typical request at 10–20 ms: dynobase.dev, "DynamoDB Performance & Latency").
 */
const [MEDIAN_MS, P99_MS] = [5, 20];
const SIGMA = Math.log(P99_MS / MEDIAN_MS) / 2.326;
/** The stream's delay from a write to its record: AWS says "near-real time" and publishes no figure: two guesses. */
const STREAM_DELAYS_MS = [100, 500];
const SECONDS = 30;

type Run = { rate: number; factor: number; delay: number; concurrency: number };

/** Each request's latency: a seeded lognormal. */
function latencies(random: () => number) {
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return () => MEDIAN_MS * Math.exp(SIGMA * normal());
}

/** One batch's times: until its postings are written (findable), until its commits (settled). */
function batchTimes(items: number, homes: number, latency: () => number, concurrency: number) {
  // A step's requests go to `concurrency` slots, each taking the next request as it frees (mapLimit).
  const step = (requests: number) => {
    const slots = Array.from({ length: concurrency }, () => 0);
    for (let i = 0; i < requests; i++) {
      const free = slots.indexOf(Math.min(...slots));
      slots[free] = (slots[free] ?? 0) + latency();
    }
    return Math.max(...slots);
  };
  const findable =
    step(2 * Math.ceil(items / 100)) + step(items) + step(Math.ceil(homes / 100)) + step(homes);
  const requests = 3 * Math.ceil(items / 100) + items + Math.ceil(homes / 100) + homes;
  return { findable, settled: findable + step(1) * Math.ceil(items / 99), requests };
}

/** One run: every create's seconds from its 201 to findable by a cold read, and to settled; the mean batch. */
function simulate({ rate, factor, delay, concurrency }: Run, stems: Set<string>[]) {
  const latency = latencies(prng(rate * 31 + factor));
  const [found, settled, batches] = [[] as number[], [] as number[], [] as number[]];
  const requests = { total: 0 };
  // Each writer (parallelizationFactor of them on the shard) gets the creates whose keys hash to it.
  for (let writer = 0; writer < factor; writer++) {
    const arrivals = Array.from(
      { length: Math.round((rate * SECONDS) / factor) },
      (_, i) => (i * 1000 * factor) / rate,
    );
    let [clock, next] = [0, 0];
    while (next < arrivals.length) {
      const ready = arrivals.findLastIndex((at) => at + delay <= clock);
      if (ready < next) {
        clock += POLL_MS;
        continue;
      }
      const batch = arrivals.slice(next, Math.min(ready + 1, next + streamSettings.batchSize));
      const homes = new Set(batch.flatMap((_, i) => [...(stems[(next + i) % stems.length] ?? [])])).size;
      const times = batchTimes(batch.length, homes, latency, concurrency);
      requests.total += times.requests;
      for (const at of batch) found.push((clock + times.findable - at) / 1000);
      for (const at of batch) settled.push((clock + times.settled - at) / 1000);
      batches.push(batch.length);
      [clock, next] = [clock + times.settled, next + batch.length];
    }
  }
  const items = batches.reduce((a, b) => a + b, 0);
  return { found, settled, batch: items / batches.length, requests: requests.total / items };
}

/**
 * The stages' stream consumers: dev's (and the local consumer's) from infra/stream.json and the indexer's default;
 * prod's from serverless.yml's prod parameters (indexParallelization, indexConcurrency); and prod's with one batch a
 * shard, the cheaper choice.
 */
const STAGES = [
  { stage: 'dev', factor: streamSettings.parallelizationFactor, concurrency: WRITE_CONCURRENCY },
  { stage: 'prod', factor: 4, concurrency: 128 },
  { stage: 'prod with one batch a shard', factor: 1, concurrency: 128 },
];

/** The model's tables: p50 and p99 seconds from a create's 201 to findable and settled; a backlog's pace. */
export function freshnessModel(docs: readonly Parameters<typeof cranfieldWrite>[0][]): string {
  // A home holds a stem and its exact forms: an item writes one a stem.
  const stems = docs.map((doc) => {
    const tokens = indexTerms(itemText({ ...cranfieldWrite(doc), tags: [] })).tokens;
    return new Set(tokens.filter((term) => !isExactForm(term)));
  });
  const p = (values: number[], q: number) => fmt(quantile(values, q), 2);
  const rows = STREAM_DELAYS_MS.flatMap((delay) =>
    STAGES.flatMap(({ stage, factor, concurrency }) =>
      [10, 1000].map((rate) => {
        const { found, settled, batch, requests } = simulate({ rate, factor, delay, concurrency }, stems);
        // A warm container last read the term's tail at a moment spread evenly over its kept time.
        const warm = found.map((s, i) => s + (((i * 0.618034) % 1) * TAIL_READS_CACHE_MS) / 1000);
        return `| ${delay} | ${stage} (P = ${factor}, ${concurrency} in flight) | ${fmt(rate, 0)} | ${fmt(batch, 0)} | ${fmt(requests)} | ${p(found, 0.5)} / **${p(found, 0.99)}** | ${p(warm, 0.5)} / ${p(warm, 0.99)} | ${p(settled, 0.5)} / ${p(settled, 0.99)} |`;
      }),
    ),
  );
  // A backlog: full batches back to back on each of the shard's P writers.
  const full = new Set(stems.slice(0, streamSettings.batchSize).flatMap((set) => [...set])).size;
  const backlog = STAGES.map(({ stage, factor, concurrency }) => {
    const { settled } = batchTimes(streamSettings.batchSize, full, latencies(prng(7)), concurrency);
    return `${stage} ${fmt((factor * streamSettings.batchSize * 1000) / settled, 0)}`;
  });
  return `| stream delay (ms, assumed) | stage's consumer | creates/s | mean batch | index requests an item | findable, a cold read: p50 / p99 (s) | … a warm container (tails kept ${TAIL_READS_CACHE_MS} ms) | settled: p50 / p99 (s) |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Under a backlog (batches of ${fmt(streamSettings.batchSize, 0)} back to back) a stream shard ingests, items/s: ${backlog.join(', ')}.`;
}
