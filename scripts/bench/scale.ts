// `npm run bench:scale`: retrieval over the synthetic collections (collections.ts) as they grow: read units, calls,
// blocks and recall of each fixed query at each size, every answer checked against exhaustive BM25 in memory;
// latency with every size served at once; and the read ceiling's trade-off at the smallest and the largest size.
import { SEARCH_DEFAULTS, type SearchOptions } from '../../lib/search/read/query.ts';
import { indexInMemory, type RankedDoc } from '../../lib/search/read/rank.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { metered, NORM_PAGE } from './capacity.ts';
import { collectionRetriever, interleave, prepareCollections, withCollections } from './collections.ts';
import { envNumber, envSizes, mean, ms, quantile, sum, writeResult } from './common.ts';
import { benchQueries as queries, syntheticItem } from './synthetic.ts';

const SIZES = envSizes('BENCH_SCALE_SIZES', '1000,10000,100000');
const REPEATS = envNumber('BENCH_SCALE_REPEATS', 10);
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

/** The settings of one sweep point: `Infinity` lifts the filter's ceiling too, so the plan is always exact. */
const ceilingOf = ({ maxBlocks, rangeGap }: (typeof SWEEP)[number]): Partial<SearchOptions> => ({
  maxBlocks,
  ...(maxBlocks === Number.POSITIVE_INFINITY ? { filterMaxBlocks: maxBlocks } : {}),
  ...(rangeGap === undefined ? {} : { rangeGap }),
});
const EXACT = ceilingOf({ maxBlocks: Number.POSITIVE_INFINITY });
const request = (query: string) => ({ query, topK: TOP_K, minScore: 0 });

// The bulk loader writes the records the repository and the indexer write: test/integration/bulk-load.test.ts.
const loads = await prepareCollections(SIZES);

/**
 * Exhaustive BM25 over items 1…size, computed in memory from the same generator: each query's exact top 10, and
 * every matching item's score (to check the scores the service returns, whatever it ranks).
 */
const docs: { id: number; tokens: string[] }[] = [];
function exhaustive(size: number): { top: RankedDoc[]; scores: Map<number, number> }[] {
  while (docs.length < size) {
    const item = syntheticItem(docs.length + 1, '2026-01-01T00:00:00.000Z');
    docs.push({ id: item.id, tokens: tokenize(itemText(item)) });
  }
  const rank = indexInMemory(docs.slice(0, size));
  return queries.map((query) => {
    const all = rank(tokenize(query), size);
    return { top: all.slice(0, TOP_K), scores: new Map(all.map((doc) => [doc.id, doc.score])) };
  });
}
type Truth = ReturnType<typeof exhaustive>[number];
type Found = { score: number; item: { id: number } }[];

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** Throws unless the answer is the exact top 10: every rank the score of the exact one, every score the item's. */
function checkExact(found: Found, exact: Truth, what: string): void {
  const fail = (why: string) => {
    throw new Error(`maxBlocks: Infinity is not exact for ${what}: ${why}`);
  };
  if (found.length !== exact.top.length) fail(`${found.length} results, not ${exact.top.length}`);
  for (const [i, hit] of found.entries()) {
    const truth = exact.scores.get(hit.item.id);
    const expected = exact.top[i]?.score ?? Number.NaN;
    // Items tied at a score may come in either order; their scores may not differ.
    if (truth === undefined || !close(hit.score, truth) || !close(truth, expected))
      fail(
        `rank ${i + 1}: item ${hit.item.id} scored ${hit.score} (exhaustive ${truth}), the exact rank ${i + 1} scores ${expected}`,
      );
  }
  if (new Set(found.map((hit) => hit.item.id)).size !== found.length) fail('an item twice');
}

/** Sum of a result list's scores over the exact top 10's: how close the answer is where it differs. */
function scoreShare(found: Found, exact: Truth): number {
  const best = sum(exact.top.map((hit) => hit.score));
  return best === 0 ? 1 : sum(found.map((hit) => hit.score)) / best;
}

/** Share of the exact top 10 a result list holds, by score (a tie at the 10th score counts as found). */
function recall(found: Found, exact: Truth): number {
  const kth = exact.top.at(-1)?.score ?? 0;
  const hits = found.filter((hit) => hit.score >= kth * (1 - 1e-9)).length;
  return exact.top.length === 0 ? 1 : Math.min(1, hits / exact.top.length);
}

/** What one size measured; `exact…` with `maxBlocks: Infinity`, `listed` the sealed blocks of the query's terms. */
function sizeResult(size: number) {
  const load = loads.find((l) => l.size === size);
  const series = (): number[] => [];
  return {
    size,
    loadSeconds: load?.builtSeconds ?? 0,
    records: load?.records ?? 0,
    reused: load?.reused ?? false,
    p50: Number.NaN,
    p99: Number.NaN,
    unitsPerQuery: series(),
    calls: series(),
    /** Sealed blocks the query read (tails and directory pages are read by every query). */
    blocks: series(),
    /** Pages of lengths the same reads would need with lengths apart from the postings (capacity.ts NORM_PAGE). */
    normPages: series(),
    recall: series(),
    scoreShare: series(),
    exactUnits: series(),
    exactCalls: series(),
    exactBlocks: series(),
    listed: series(),
    latencies: series(),
  };
}

// Read units, calls, blocks and recall: one size at a time. The exact plan's answers must be the in-memory ranking,
// and every score the service returns the item's exhaustive score.
const truthBySize = new Map(SIZES.map((size) => [size, exhaustive(size)]));
const results: ReturnType<typeof sizeResult>[] = [];
for (const size of SIZES) {
  const result = sizeResult(size);
  await withCollections([size], async (endpoints) => {
    const service = collectionRetriever(endpoints.get(size) ?? '');
    const exact = collectionRetriever(endpoints.get(size) ?? '', EXACT);
    for (const [i, query] of queries.entries()) {
      const truth = truthBySize.get(size)?.[i] ?? { top: [], scores: new Map() };
      const { value, tally } = await metered(service.meter, () => service.retrieve(request(query)));
      for (const hit of value.results)
        if (!close(hit.score, truth.scores.get(hit.item.id) ?? Number.NaN))
          throw new Error(
            `${query} at ${size}: item ${hit.item.id} scored ${hit.score}, not its exhaustive score`,
          );
      result.unitsPerQuery.push(tally.units);
      result.calls.push(tally.calls);
      result.blocks.push(tally.blocks);
      result.normPages.push(tally.normPages.size);
      result.recall.push(recall(value.results, truth));
      result.scoreShare.push(scoreShare(value.results, truth));
      const proof = await metered(exact.meter, () => exact.retrieve(request(query)));
      checkExact(proof.value.results, truth, `"${query}" at ${size}`);
      result.exactUnits.push(proof.tally.units);
      result.exactCalls.push(proof.tally.calls);
      result.exactBlocks.push(proof.tally.blocks);
      result.listed.push(proof.tally.listed);
    }
    for (const { raw } of [service, exact]) raw.destroy();
  });
  console.log(`measured read units and recall at ${size}`);
  results.push(result);
}
type SizeResult = (typeof results)[number];

// Latency: every size served at once and the queries interleaved across sizes (rotating order), so drift on this
// shared machine hits every size alike.
await withCollections(SIZES, async (endpoints) => {
  const running = results.map((result) => ({
    result,
    ...collectionRetriever(endpoints.get(result.size) ?? ''),
  }));
  await interleave(
    running,
    queries,
    REPEATS,
    (target, query) => target.retrieve(request(query)),
    (target, ms) => target.result.latencies.push(ms),
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
const sweep = await withCollections(ends, async (endpoints) => {
  const runs = SWEEP.flatMap((point) =>
    ends.map((size) => ({
      point,
      size,
      latencies: [] as number[],
      units: [] as number[],
      blocks: [] as number[],
      recall: [] as number[],
      ...collectionRetriever(endpoints.get(size) ?? '', ceilingOf(point)),
    })),
  );
  for (const run of runs) {
    for (const [i, query] of queries.entries()) {
      const truth = truthBySize.get(run.size)?.[i] ?? { top: [], scores: new Map() };
      const { value, tally } = await metered(run.meter, () => run.retrieve(request(query)));
      if (run.point.maxBlocks === Number.POSITIVE_INFINITY)
        checkExact(value.results, truth, `"${query}" at ${run.size}`);
      run.units.push(tally.units);
      run.blocks.push(tally.blocks);
      run.recall.push(recall(value.results, truth));
    }
  }
  await interleave(
    runs,
    queries,
    REPEATS,
    (run, query) => run.retrieve(request(query)),
    (run, ms) => run.latencies.push(ms),
  );
  for (const run of runs) run.raw.destroy();
  return SWEEP.map((point) => {
    const [small, large] = ends.map((size) => {
      const { latencies, units, blocks, recall } =
        runs.find((r) => r.point === point && r.size === size) ?? runs[0] ?? {};
      return {
        p50: quantile(latencies ?? [], 0.5),
        units: units ?? [],
        blocks: blocks ?? [],
        recall: recall ?? [],
      };
    });
    if (!small || !large) throw new Error('the sweep has no ends');
    // JSON has no Infinity: the exact plan's ceiling is written as null.
    return {
      maxBlocks: Number.isFinite(point.maxBlocks) ? point.maxBlocks : null,
      byKey: point.rangeGap === 0,
      ratio: large.p50 / small.p50,
      small,
      large,
    };
  });
});
console.log('measured the maxBlocks sweep');

const first = results[0];
const last = results[results.length - 1];
const max = (values: number[]) => Math.max(...values);
const min = (values: number[]) => Math.min(...values);
const perSize = (pick: (r: SizeResult) => number[], digits: number, i: number) =>
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
const ceiling = max(results.flatMap((r) => r.unitsPerQuery));
/** Queries whose exact plan read every sealed block of its terms at the largest size (no block skipped). */
const wholeLists = queries.filter(
  (_, i) => (last?.listed[i] ?? 0) > 0 && last?.exactBlocks[i] === last?.listed[i],
);
const command = `${process.env.BENCH_SCALE_SIZES ? `BENCH_SCALE_SIZES=${SIZES.join(',')} ` : ''}npm run bench:scale`;
const [smallEnd, largeEnd] = ends.map((size) => size.toLocaleString('en'));
const [lastSize, previousSize] = [last, previous].map((r) => r?.size.toLocaleString('en'));
const sweepRow = (s: (typeof sweep)[number]) =>
  `| ${s.maxBlocks === null ? 'Infinity (exact)' : s.maxBlocks.toLocaleString('en')}${s.byKey ? ', every block by key (`rangeGap: 0`)' : s.maxBlocks === SEARCH_DEFAULTS.maxBlocks ? ' (service)' : ''} | ${ms(s.small.p50)} | ${ms(s.large.p50)} | ${s.ratio.toFixed(2)} | ${mean(s.small.units).toFixed(1)} / ${max(s.small.units).toFixed(1)} | ${mean(s.large.units).toFixed(1)} / ${max(s.large.units).toFixed(1)} | ${mean(s.large.blocks).toFixed(1)} / ${max(s.large.blocks)} | ${mean(s.small.recall).toFixed(3)} / ${min(s.small.recall).toFixed(1)} | ${mean(s.large.recall).toFixed(3)} / ${min(s.large.recall).toFixed(1)} |`;
const quoted = (list: string[]) => list.map((q) => `\`${q}\``).join(', ');
const markdown = `\`${command}\` (${((Date.now() - started) / 60_000).toFixed(0)} min), ${queries.length} queries, top ${TOP_K}, ${REPEATS} passes.

| items | records | load | p50 ms | p99 ms | RCU / query (mean) | RCU (max) | DynamoDB calls / query | blocks read | recall@${TOP_K} (mean) | recall (min) | score share (min) | exact: RCU (mean) | exact: RCU (max) | exact: blocks |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

![retrieval latency against collection size](benchmarks/retrieval.svg)

p50 at ${lastSize} ÷ p50 at ${first?.size.toLocaleString('en')}: **${latencyRatio.toFixed(2)}** (budget ≤ 2: ${latencyRatio <= 2 ? 'met' : '**not met**'}).
Read units per fixed query: at most ${ceiling.toFixed(1)} at any size${previous === undefined ? '' : `; ${grown.length > 0 ? `${grown.length} queries read more at ${lastSize} than at ${previousSize} (${quoted(grown)})` : `none reads more at ${lastSize} than at ${previousSize}`}`}.
With lengths kept apart from the postings (Lucene's norms; ${NORM_PAGE.toLocaleString('en')} lengths a 4 KB page), the same reads would also read ${results.map((r) => `${mean(r.normPages).toFixed(1)}`).join(', ')} pages a query on average at ${results.map((r) => r.size.toLocaleString('en')).join(', ')} items (+${(mean(last?.normPages ?? []) * 0.5).toFixed(1)} RCU at ${lastSize}).
The exact plan read every sealed block of its terms' lists for ${wholeLists.length} of ${queries.length} queries at ${lastSize} (${quoted(wholeLists) || 'none'}); over all queries it read ${((100 * sum(last?.exactBlocks ?? [])) / Math.max(1, sum(last?.listed ?? []))).toFixed(0)} % of the blocks listed.

The read ceiling's trade-off (\`maxBlocks\`):

| maxBlocks | p50 ms at ${smallEnd} | p50 ms at ${largeEnd} | p50 ratio | RCU / query at ${smallEnd} (mean / max) | RCU / query at ${largeEnd} (mean / max) | blocks read at ${largeEnd} (mean / max) | recall@${TOP_K} at ${smallEnd} (mean / min) | recall@${TOP_K} at ${largeEnd} (mean / min) |
|---|---|---|---|---|---|---|---|---|
${sweep.map(sweepRow).join('\n')}

<details><summary>Read units, blocks and recall of each query at each size</summary>

| query | ${['RCU', 'blocks', 'recall', 'exact RCU'].map((what) => results.map((r) => `${what} ${r.size.toLocaleString('en')}`).join(' | ')).join(' | ')} | ${results.map((r) => `exact blocks ${r.size.toLocaleString('en')} (of the lists')`).join(' | ')} |
|---|${results.map(() => '---|---|---|---|---').join('|')}|
${queries.map((q, i) => `| \`${q}\` | ${perSize((r) => r.unitsPerQuery, 1, i)} | ${perSize((r) => r.blocks, 0, i)} | ${perSize((r) => r.recall, 2, i)} | ${perSize((r) => r.exactUnits, 1, i)} | ${results.map((r) => `${r.exactBlocks[i] ?? 0} of ${r.listed[i] ?? 0}`).join(' | ')} |`).join('\n')}

</details>
`;
const data = { command, queries, results, latencyRatio, unitsGrow: grown.length > 0, grown, ceiling };
writeResult(
  'scale',
  markdown,
  { ...data, serviceMaxBlocks: SEARCH_DEFAULTS.maxBlocks, wholeLists, sweep },
  started,
);
