import { createItemRepository } from '../../lib/items/repository.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch, SEARCH_DEFAULTS, type SearchOptions } from '../../lib/search/read/query.ts';
import { indexInMemory, type RankedDoc } from '../../lib/search/read/rank.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { meteredClient } from './capacity.ts';
import { COLLECTION_TABLE, prepareCollections, withCollections } from './collections.ts';
import { ms, quantile, writeResult } from './common.ts';
import { benchQueries, syntheticItem } from './synthetic.ts';

const SIZES_ENV = process.env.BENCH_SCALE_SIZES;
const SIZES = (SIZES_ENV ?? '1000,10000,100000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const REPEATS = Number(process.env.BENCH_SCALE_REPEATS ?? 10);
const TOP_K = 10;
/**
 * The read ceilings compared (sealed blocks a query reads at most); Infinity is the exact plan. The last point is the
 * service's ceiling with every block read by key (`rangeGap: 0`), beside its reads by range.
 */
const SWEEP: { maxBlocks: number; rangeGap?: number }[] = [
  ...[16, 32, 64, 128, 256, 512, 2_048, Number.POSITIVE_INFINITY].map((maxBlocks) => ({ maxBlocks })),
  { maxBlocks: SEARCH_DEFAULTS.maxBlocks, rangeGap: 0 },
];
const started = Date.now();

const queries = benchQueries;

/** The settings of one sweep point: `Infinity` lifts the filter's ceiling too, so the plan is always exact. */
const ceilingOf = (maxBlocks: number): Partial<SearchOptions> =>
  maxBlocks === Number.POSITIVE_INFINITY ? { maxBlocks, filterMaxBlocks: maxBlocks } : { maxBlocks };
const label = (maxBlocks: number) =>
  maxBlocks === Number.POSITIVE_INFINITY ? 'Infinity (exact)' : maxBlocks.toLocaleString('en');

// The bulk loader writes the records the repository and the indexer write: test/integration/bulk-load.test.ts.
const timestamp = '2026-01-01T00:00:00.000Z';
const loads = await prepareCollections(SIZES);

/**
 * Exhaustive BM25 over items 1…size, computed in memory from the same generator: each query's exact top 10, and
 * every matching item's score (to check the scores the service returns, whatever it ranks).
 */
const docs: { id: number; tokens: string[] }[] = [];
function exhaustive(size: number): { top: RankedDoc[]; scores: Map<number, number> }[] {
  while (docs.length < size) {
    const item = syntheticItem(docs.length + 1, timestamp);
    docs.push({ id: item.id, tokens: tokenize(itemText(item)) });
  }
  const rank = indexInMemory(docs.slice(0, size));
  return queries.map((query) => {
    const all = rank(tokenize(query), size);
    return { top: all.slice(0, TOP_K), scores: new Map(all.map((doc) => [doc.id, doc.score])) };
  });
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
type Found = { score: number; item: { id: number } }[];

/** Why an answer is not the exact top 10 (every rank the score of the exact one, every score the item's), if not. */
function notExact(found: Found, exact: ReturnType<typeof exhaustive>[number]): string | undefined {
  if (found.length !== exact.top.length) return `${found.length} results, not ${exact.top.length}`;
  for (const [i, hit] of found.entries()) {
    const truth = exact.scores.get(hit.item.id);
    const expected = exact.top[i]?.score ?? Number.NaN;
    // Items tied at a score may come in either order; their scores may not differ.
    if (truth === undefined || !close(hit.score, truth) || !close(truth, expected))
      return `rank ${i + 1}: item ${hit.item.id} scored ${hit.score} (exhaustive ${truth}), the exact rank ${i + 1} scores ${expected}`;
  }
  if (new Set(found.map((hit) => hit.item.id)).size !== found.length) return 'an item twice';
  return undefined;
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
  /** Sealed blocks the query read (tails and directory pages are read by every query). */
  blocks: number[];
  /** Postings in the tails and blocks it read. */
  postings: number[];
  recall: number[];
  scoreShare: number[];
  /** With `maxBlocks: Infinity`: what proving the exact top 10 reads. */
  exactUnits: number[];
  exactCalls: number[];
  exactBlocks: number[];
  /** Sealed blocks the query's terms have (their directory entries): what reading whole lists would read. */
  listed: number[];
  latencies: number[];
}
/** The retriever POST /retrieve runs (the service's settings, or `options` over them), and the exact plan. */
function retrievers(endpoint: string, options: Partial<SearchOptions> = {}) {
  const { raw, client, meter } = meteredClient(endpoint);
  const items = createItemRepository({ client, tableName: COLLECTION_TABLE });
  const dictionary = createDictionary({ client, tableName: COLLECTION_TABLE });
  const retrieve = createRetriever({
    search: createSearch({ client, tableName: COLLECTION_TABLE, ...options }),
    items,
    dictionary,
  });
  const exact = createRetriever({
    search: createSearch({ client, tableName: COLLECTION_TABLE, ...ceilingOf(Number.POSITIVE_INFINITY) }),
    items,
    dictionary,
  });
  /** One call, its read units, DynamoDB calls and the index records it read. */
  const metered = async (run: () => ReturnType<typeof retrieve>) => {
    Object.assign(meter, { units: 0, calls: 0, reported: 0, postings: 0, blocks: 0, tails: 0, listed: 0 });
    const value = await run();
    if (meter.reported === 0) throw new Error('DynamoDB Local reported no consumed capacity');
    return { results: value.results, ...meter };
  };
  return { raw, metered, retrieve, exact };
}

/** REPEATS passes of the query set; each query goes to every retriever in rotating order, and each time is kept. */
async function timeInterleaved<T extends { retrieve: ReturnType<typeof retrievers>['retrieve'] }>(
  targets: T[],
  keep: (target: T, ms: number) => void,
) {
  for (const { retrieve } of targets)
    for (const query of queries) await retrieve({ query, topK: TOP_K, minScore: 0 });
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

// Read units, calls, blocks and recall: one size at a time. The exact plan's answers must be the in-memory ranking,
// and every score the service returns the item's exhaustive score.
const results: SizeResult[] = [];
const exactBySize = new Map<number, ReturnType<typeof exhaustive>>();
for (const size of SIZES) {
  const exact = exhaustive(size);
  exactBySize.set(size, exact);
  const load = loads.find((l) => l.size === size);
  results.push(
    await withCollections([size], async (endpoints) => {
      const { raw, metered, retrieve, exact: exactRetrieve } = retrievers(endpoints.get(size) ?? '');
      const result: SizeResult = {
        size,
        loadSeconds: load?.builtSeconds ?? 0,
        records: load?.records ?? 0,
        reused: load?.reused ?? false,
        p50: Number.NaN,
        p99: Number.NaN,
        unitsPerQuery: [],
        calls: [],
        blocks: [],
        postings: [],
        recall: [],
        scoreShare: [],
        exactUnits: [],
        exactCalls: [],
        exactBlocks: [],
        listed: [],
        latencies: [],
      };
      for (const [i, query] of queries.entries()) {
        const truth = exact[i] ?? { top: [], scores: new Map() };
        const run = await metered(() => retrieve({ query, topK: TOP_K, minScore: 0 }));
        for (const hit of run.results)
          if (!close(hit.score, truth.scores.get(hit.item.id) ?? Number.NaN))
            throw new Error(
              `${query} at ${size}: item ${hit.item.id} scored ${hit.score}, not its exhaustive score`,
            );
        result.unitsPerQuery.push(run.units);
        result.calls.push(run.calls);
        result.blocks.push(run.blocks);
        result.postings.push(run.postings);
        result.recall.push(recall(run.results, truth.top));
        result.scoreShare.push(scoreShare(run.results, truth.top));
        const proof = await metered(() => exactRetrieve({ query, topK: TOP_K, minScore: 0 }));
        const wrong = notExact(proof.results, truth);
        if (wrong) throw new Error(`maxBlocks: Infinity is not exact for "${query}" at ${size}: ${wrong}`);
        result.exactUnits.push(proof.units);
        result.exactCalls.push(proof.calls);
        result.exactBlocks.push(proof.blocks);
        result.listed.push(proof.listed);
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
  await timeInterleaved(running, (target, ms) =>
    results.find((result) => result.size === target.size)?.latencies.push(ms),
  );
  for (const { raw } of running) raw.destroy();
});
for (const result of results) {
  result.p50 = quantile(result.latencies, 0.5);
  result.p99 = quantile(result.latencies, 0.99);
}
console.log('measured latency at every size');

// The read ceiling's trade-off: each setting of maxBlocks on the smallest and the largest collection, side by side.
const ends = [SIZES[0] ?? 0, SIZES[SIZES.length - 1] ?? 0];
interface SweepEnd {
  p50: number;
  units: number[];
  blocks: number[];
  recall: number[];
}
const sweep = await withCollections(ends, async (endpoints) => {
  const runs = SWEEP.flatMap((point) =>
    ends.map((size) => ({
      point,
      maxBlocks: point.maxBlocks,
      size,
      latencies: [] as number[],
      units: [] as number[],
      blocks: [] as number[],
      recall: [] as number[],
      ...retrievers(endpoints.get(size) ?? '', {
        ...ceilingOf(point.maxBlocks),
        ...(point.rangeGap === undefined ? {} : { rangeGap: point.rangeGap }),
      }),
    })),
  );
  for (const run of runs) {
    for (const [i, query] of queries.entries()) {
      const truth = exactBySize.get(run.size)?.[i] ?? { top: [], scores: new Map() };
      const {
        results: found,
        units,
        blocks,
      } = await run.metered(() => run.retrieve({ query, topK: TOP_K, minScore: 0 }));
      if (run.maxBlocks === Number.POSITIVE_INFINITY) {
        const wrong = notExact(found, truth);
        if (wrong)
          throw new Error(`maxBlocks: Infinity is not exact for "${query}" at ${run.size}: ${wrong}`);
      }
      run.units.push(units);
      run.blocks.push(blocks);
      run.recall.push(recall(found, truth.top));
    }
  }
  await timeInterleaved(runs, (run, ms) => run.latencies.push(ms));
  for (const run of runs) run.raw.destroy();
  return SWEEP.map(({ maxBlocks, rangeGap }) => {
    const [small, large] = ends.map((size) => {
      const run = runs.find(
        (r) => r.maxBlocks === maxBlocks && r.point.rangeGap === rangeGap && r.size === size,
      );
      return {
        p50: quantile(run?.latencies ?? [], 0.5),
        units: run?.units ?? [],
        blocks: run?.blocks ?? [],
        recall: run?.recall ?? [],
      } satisfies SweepEnd;
    }) as [SweepEnd, SweepEnd];
    // JSON has no Infinity: the exact plan's ceiling is written as null.
    return {
      maxBlocks: Number.isFinite(maxBlocks) ? maxBlocks : null,
      byKey: rangeGap === 0,
      ratio: large.p50 / small.p50,
      small,
      large,
    };
  });
});
console.log('measured the maxBlocks sweep');

const first = results[0];
const last = results[results.length - 1];
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const max = (values: number[]) => Math.max(...values);
const min = (values: number[]) => Math.min(...values);
const perSize =
  (pick: (r: SizeResult) => number[], digits = 1) =>
  (i: number) =>
    results.map((r) => (pick(r)[i] ?? 0).toFixed(digits)).join(' | ');
const rows = results.map(
  (r) =>
    `| ${r.size.toLocaleString('en')} | ${r.records.toLocaleString('en')} | ${r.loadSeconds.toFixed(0)} s${r.reused ? ' (snapshot)' : ''} | ${ms(r.p50)} | ${ms(r.p99)} | ${mean(r.unitsPerQuery).toFixed(1)} | ${max(r.unitsPerQuery).toFixed(1)} | ${mean(r.calls).toFixed(1)} | ${mean(r.blocks).toFixed(1)} / ${max(r.blocks)} | ${mean(r.recall).toFixed(3)} | ${min(r.recall).toFixed(1)} | ${min(r.scoreShare).toFixed(4)} | ${mean(r.exactUnits).toFixed(1)} | ${max(r.exactUnits).toFixed(1)} | ${mean(r.exactBlocks).toFixed(1)} / ${max(r.exactBlocks)} |`,
);
const latencyRatio = first && last ? last.p50 / first.p50 : Number.NaN;
// "Grows": a query reads more at the largest size than at the one before it.
const previous = results[results.length - 2];
const grown = queries.filter(
  (_, i) => (last?.unitsPerQuery[i] ?? 0) > (previous?.unitsPerQuery[i] ?? 0) + 0.5,
);
const unitsGrow = grown.length > 0;
const ceiling = max(results.flatMap((r) => r.unitsPerQuery));
/** Queries whose exact plan read every sealed block of its terms at the largest size (no block skipped). */
const wholeLists = queries.filter(
  (_, i) => (last?.listed[i] ?? 0) > 0 && last?.exactBlocks[i] === last?.listed[i],
);
const sizesArg = SIZES_ENV ? `BENCH_SCALE_SIZES=${SIZES.join(',')} ` : '';
const command = `${sizesArg}npm run bench:scale`;
const [smallEnd, largeEnd] = ends.map((size) => size.toLocaleString('en'));
const sweepRow = (s: (typeof sweep)[number]) =>
  `| ${label(s.maxBlocks ?? Number.POSITIVE_INFINITY)}${s.byKey ? ', every block by key (`rangeGap: 0`)' : s.maxBlocks === SEARCH_DEFAULTS.maxBlocks ? ' (service)' : ''} | ${ms(s.small.p50)} | ${ms(s.large.p50)} | ${s.ratio.toFixed(2)} | ${mean(s.small.units).toFixed(1)} / ${max(s.small.units).toFixed(1)} | ${mean(s.large.units).toFixed(1)} / ${max(s.large.units).toFixed(1)} | ${mean(s.large.blocks).toFixed(1)} / ${max(s.large.blocks)} | ${mean(s.small.recall).toFixed(3)} / ${min(s.small.recall).toFixed(1)} | ${mean(s.large.recall).toFixed(3)} / ${min(s.large.recall).toFixed(1)} |`;
const markdown = `\`${command}\` (${((Date.now() - started) / 60_000).toFixed(0)} min), ${queries.length} queries, top ${TOP_K}, ${REPEATS} passes.

| items | records | load | p50 ms | p99 ms | RCU / query (mean) | RCU (max) | DynamoDB calls / query | blocks read | recall@${TOP_K} (mean) | recall (min) | score share (min) | exact: RCU (mean) | exact: RCU (max) | exact: blocks |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

![retrieval latency against collection size](benchmarks/retrieval.svg)

p50 at ${last?.size.toLocaleString('en')} ÷ p50 at ${first?.size.toLocaleString('en')}: **${latencyRatio.toFixed(2)}** (budget ≤ 2: ${latencyRatio <= 2 ? 'met' : '**not met**'}).
Read units per fixed query: at most ${ceiling.toFixed(1)} at any size; ${
  unitsGrow
    ? `${grown.length} queries read more at ${last?.size.toLocaleString('en')} than at ${previous?.size.toLocaleString('en')} (${grown.map((q) => `\`${q}\``).join(', ')})`
    : `none reads more at ${last?.size.toLocaleString('en')} than at ${previous?.size.toLocaleString('en')}`
}.
The exact plan read every sealed block of its terms' lists for ${wholeLists.length} of ${queries.length} queries at ${last?.size.toLocaleString('en')} (${wholeLists.map((q) => `\`${q}\``).join(', ') || 'none'}); over all queries it read ${(
  (100 * (last?.exactBlocks.reduce((a, b) => a + b, 0) ?? 0)) /
    Math.max(1, last?.listed.reduce((a, b) => a + b, 0) ?? 0)
).toFixed(0)} % of the blocks listed.

The read ceiling's trade-off (\`maxBlocks\`):

| maxBlocks | p50 ms at ${smallEnd} | p50 ms at ${largeEnd} | p50 ratio | RCU / query at ${smallEnd} (mean / max) | RCU / query at ${largeEnd} (mean / max) | blocks read at ${largeEnd} (mean / max) | recall@${TOP_K} at ${smallEnd} (mean / min) | recall@${TOP_K} at ${largeEnd} (mean / min) |
|---|---|---|---|---|---|---|---|---|
${sweep.map(sweepRow).join('\n')}

<details><summary>Read units, blocks and recall of each query at each size</summary>

| query | ${results.map((r) => `RCU ${r.size.toLocaleString('en')}`).join(' | ')} | ${results.map((r) => `blocks ${r.size.toLocaleString('en')}`).join(' | ')} | ${results.map((r) => `recall ${r.size.toLocaleString('en')}`).join(' | ')} | ${results.map((r) => `exact RCU ${r.size.toLocaleString('en')}`).join(' | ')} | ${results.map((r) => `exact blocks ${r.size.toLocaleString('en')} (of the lists')`).join(' | ')} |
|---|${results.map(() => '---|---|---|---|---').join('|')}|
${queries.map((q, i) => `| \`${q}\` | ${perSize((r) => r.unitsPerQuery)(i)} | ${perSize((r) => r.blocks, 0)(i)} | ${perSize((r) => r.recall, 2)(i)} | ${perSize((r) => r.exactUnits)(i)} | ${results.map((r) => `${r.exactBlocks[i] ?? 0} of ${r.listed[i] ?? 0}`).join(' | ')} |`).join('\n')}

</details>
`;
writeResult({
  part: 'scale',
  markdown,
  data: {
    command,
    queries,
    results,
    latencyRatio,
    unitsGrow,
    grown,
    ceiling,
    serviceMaxBlocks: SEARCH_DEFAULTS.maxBlocks,
    wholeLists,
    sweep,
  },
  seconds: (Date.now() - started) / 1000,
});
