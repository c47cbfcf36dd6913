// `npm run bench:scale`: retrieval over the synthetic collections as they grow, every answer checked against
// exhaustive BM25, and latency with every size served at once.
import { indexInMemory, itemText, tokenize } from '../../lib/search/index.ts';
import { interleave, prepareCollections, withCollections } from './collections.ts';
import {
  close,
  envNumber,
  envSizes,
  max,
  mean,
  min,
  ms,
  percentiles,
  series,
  sum,
  writeResult,
} from './common.ts';
import { benchQueries as queries, syntheticItem } from './synthetic.ts';

const SIZES = envSizes('BENCH_SCALE_SIZES', '1000,10000,100000');
const REPEATS = envNumber('BENCH_SCALE_REPEATS', 10);
const TOP_K = 10;
/** No read ceiling (the filter's lifted too): the plan reads until it proves the top 10. */
const EXACT = { maxBlocks: Number.POSITIVE_INFINITY, filterMaxBlocks: Number.POSITIVE_INFINITY };
const request = (query: string) => ({ query, topK: TOP_K, minScore: 0 });

/** Exhaustive BM25 over items 1…size in memory: each query's exact top 10 and every matching item's score. */
const docs: { id: number; tokens: string[] }[] = [];
function exhaustive(size: number) {
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

/** Throws unless every score is the item's exhaustive one, and (`exact`) the answer is the exact top 10. */
function check(found: Found, truth: Truth, what: string, exact: boolean): void {
  const fail = (why: string) => {
    throw new Error(`${what}: ${why}`);
  };
  if (exact && found.length !== truth.top.length) fail(`${found.length} results, not ${truth.top.length}`);
  for (const [i, hit] of found.entries()) {
    const score = truth.scores.get(hit.item.id) ?? Number.NaN;
    if (!close(hit.score, score)) fail(`item ${hit.item.id} scored ${hit.score}, exhaustively ${score}`);
    // Items tied at a score may come in either order.
    if (exact && !close(score, truth.top[i]?.score ?? Number.NaN)) fail(`rank ${i + 1} is not the exact one`);
  }
  if (exact && new Set(found.map((hit) => hit.item.id)).size !== found.length) fail('an item twice');
}
/** Share of the exact top 10 an answer holds, by score (a tie at the 10th score counts as found). */
function recall(found: Found, truth: Truth): number {
  const kth = truth.top.at(-1)?.score ?? 0;
  const hits = found.filter((hit) => hit.score >= kth * (1 - 1e-9)).length;
  return truth.top.length === 0 ? 1 : Math.min(1, hits / truth.top.length);
}
/** The answer's scores over the exact top 10's. */
function scoreShare(found: Found, truth: Truth): number {
  const best = sum(truth.top.map((hit) => hit.score));
  return best === 0 ? 1 : sum(found.map((hit) => hit.score)) / best;
}

// Read units, calls, blocks and recall, one size at a time, with the service's ceiling and the exact plan.
const results = (await prepareCollections(SIZES)).map(({ size, records, reused, builtSeconds }) => ({
  ...{ size, records, reused, loadSeconds: builtSeconds, p50: Number.NaN, p99: Number.NaN },
  exact: series('units', 'blocks', 'listed'),
  ...series('latencies', 'units', 'calls', 'blocks', 'recall', 'scoreShare'),
}));
for (const r of results) {
  const { size } = r;
  const truths = exhaustive(size);
  await withCollections([size], async (retriever) => {
    const [service, proof] = [retriever(size), retriever(size, EXACT)];
    for (const [i, query] of queries.entries()) {
      const truth = truths[i] ?? { top: [], scores: new Map() };
      const { value, tally } = await service.measure(request(query));
      check(value.results, truth, `"${query}" at ${size}`, false);
      for (const key of ['units', 'calls', 'blocks'] as const) r[key].push(tally[key]);
      r.recall.push(recall(value.results, truth));
      r.scoreShare.push(scoreShare(value.results, truth));
      const best = await proof.measure(request(query));
      check(best.value.results, truth, `maxBlocks: Infinity, "${query}" at ${size}`, true);
      for (const key of ['units', 'blocks', 'listed'] as const) r.exact[key].push(best.tally[key]);
    }
  });
  console.log(`measured read units and recall at ${size}`);
}

// Latency: every size served at once, the queries interleaved across sizes.
await withCollections(SIZES, async (retriever) => {
  const running = results.map((result) => ({ result, ...retriever(result.size) }));
  const run = (target: (typeof running)[number], query: string) => target.retrieve(request(query));
  await interleave(running, queries, REPEATS, run, (target, ms) => target.result.latencies.push(ms));
});
for (const result of results) Object.assign(result, percentiles(result.latencies));
console.log('measured latency at every size');

const [first, previous, last] = [results[0], results.at(-2), results.at(-1)];
const en = (n: number | undefined) => (n ?? 0).toLocaleString('en');
const f = (value: number, digits = 1) => value.toFixed(digits);
const rows = results.map(
  (r) =>
    `| ${en(r.size)} | ${en(r.records)} | ${f(r.loadSeconds, 0)} s${r.reused ? ' (snapshot)' : ''} | ${ms(r.p50)} | ${ms(r.p99)} | ${f(mean(r.units))} | ${f(max(r.units))} | ${f(mean(r.calls))} | ${f(mean(r.blocks))} / ${max(r.blocks)} | ${f(mean(r.recall), 3)} | ${f(min(r.recall))} | ${f(min(r.scoreShare), 4)} | ${f(mean(r.exact.units))} | ${f(max(r.exact.units))} | ${f(mean(r.exact.blocks))} / ${max(r.exact.blocks)} |`,
);
const latencyRatio = (last?.p50 ?? Number.NaN) / (first?.p50 ?? Number.NaN);
// "Grows": a query reads more at the largest size than at the one before it.
const grown = queries.filter((_, i) => (last?.units[i] ?? 0) > (previous?.units[i] ?? 0) + 0.5);
const ceiling = max(results.flatMap((r) => r.units));
/** Queries whose exact plan read every sealed block of its terms at the largest size. */
const wholeLists = queries.filter(
  (_, i) => (last?.exact.listed[i] ?? 0) > 0 && last?.exact.blocks[i] === last?.exact.listed[i],
);
const command = `${process.env.BENCH_SCALE_SIZES ? `BENCH_SCALE_SIZES=${SIZES.join(',')} ` : ''}npm run bench:scale`;
const [lastSize, previousSize] = [last?.size, previous?.size].map(en);
const quoted = (list: string[]) => list.map((q) => `\`${q}\``).join(', ');
const perSize = (what: string) => results.map((r) => `${what} ${en(r.size)}`).join(' | ');
const cells = (pick: (r: (typeof results)[number]) => number[], digits: number, i: number) =>
  results.map((r) => f(pick(r)[i] ?? 0, digits)).join(' | ');
const growth =
  previous === undefined
    ? ''
    : grown.length > 0
      ? `; ${grown.length} queries read more at ${lastSize} than at ${previousSize} (${quoted(grown)})`
      : `; none reads more at ${lastSize} than at ${previousSize}`;
const markdown = `\`${command}\` (${(process.uptime() / 60).toFixed(0)} min), ${queries.length} queries, top ${TOP_K}, ${REPEATS} passes.

| items | records | load | p50 ms | p99 ms | RCU / query (mean) | RCU (max) | DynamoDB calls / query | blocks read | recall@${TOP_K} (mean) | recall (min) | score share (min) | exact: RCU (mean) | exact: RCU (max) | exact: blocks |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

p50 at ${lastSize} ÷ p50 at ${en(first?.size)}: **${f(latencyRatio, 2)}** (budget ≤ 2: ${latencyRatio <= 2 ? 'met' : '**not met**'}).
Read units per fixed query: at most ${f(ceiling)} at any size${growth}.
The exact plan read every sealed block of its terms' lists for ${wholeLists.length} of ${queries.length} queries at ${lastSize} (${quoted(wholeLists) || 'none'}); over all queries it read ${f((100 * sum(last?.exact.blocks ?? [])) / Math.max(1, sum(last?.exact.listed ?? [])), 0)} % of the blocks listed.
`;
// Each query's figures at each size: in the console and the results file, not in BENCHMARKS.md.
const perQuery = `| query | ${perSize('RCU')} | ${perSize('blocks')} | ${perSize('recall')} | ${perSize('exact RCU')} | ${results.map((r) => `exact blocks ${en(r.size)} (of the lists')`).join(' | ')} |
|---|${results.map(() => '---|---|---|---|---').join('|')}|
${queries.map((q, i) => `| \`${q}\` | ${cells((r) => r.units, 1, i)} | ${cells((r) => r.blocks, 0, i)} | ${cells((r) => r.recall, 2, i)} | ${cells((r) => r.exact.units, 1, i)} | ${results.map((r) => `${r.exact.blocks[i] ?? 0} of ${r.exact.listed[i] ?? 0}`).join(' | ')} |`).join('\n')}`;
console.log(perQuery);
const data = { command, queries, results, latencyRatio, grown, ceiling, wholeLists, perQuery };
writeResult('scale', markdown, data);
