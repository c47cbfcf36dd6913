// `npm run bench:options`: what the search options of contract §8 cost on the bench:scale collections, each fixed
// query plain and with each option, interleaved across sizes and variants.
import { AnswerCache, expandQuery, type RetrieveInput } from '../../lib/search/index.ts';
import { newTally as newMeterTally } from './capacity.ts';
import { interleave, prepareCollections, withCollections } from './collections.ts';
import { envNumber, envSizes, max, mean, ms, pairedRatio, quantile, series, writeResult } from './common.ts';
import { benchQueries } from './synthetic.ts';

const SIZES = envSizes('BENCH_OPTIONS_SIZES', '1000,10000,100000');
const REPEATS = envNumber('BENCH_OPTIONS_REPEATS', 5);
const TOP_K = 10;

/** One edit in the middle of a word of five letters or more: two adjacent letters swapped. */
const swapMiddle = (word: string) => {
  if (word.length < 5) return word;
  const at = Math.floor(word.length / 2) - 1;
  return `${word.slice(0, at)}${word[at + 1]}${word[at]}${word.slice(at + 2)}`;
};
const misspell = (query: string) => query.split(' ').map(swapMiddle).join(' ');
/** The query as typed so far: its last word cut to its first three letters. */
const typing = (query: string) => query.replace(/(\S{3})\S*$/, '$1');

const plain = (query: string): RetrieveInput => ({ query, topK: TOP_K, minScore: 0 });
const prefix = (query: string) => ({ ...plain(typing(query)), prefix: true });
const typos = (typos: 1 | 2) => (query: string) => ({ ...plain(misspell(query)), typos });
/** Items tagged audio (≈ 19 %) of size under 5 (10 %). */
const audio = { listContains: { key: 'tags', value: 'audio' } } as const;
const small = { lessThan: { key: 'attributes.size', value: 5 } } as const;
const where = (query: string): RetrieveInput => ({ ...plain(query), where: { andAll: [audio, small] } });
// compare: the share of the plain top k the variant found; cold: served by a retriever whose dictionary keeps nothing
// (cacheMs 0), what the option costs in a container that has not read the words' dictionary partitions under the
// index's current version (the service's dictionary keeps them while the version holds: dictionary.ts).
const VARIANTS = [
  { name: 'plain', request: plain },
  { name: 'prefix (last word cut to 3 letters)', request: prefix, compare: true },
  { name: 'typos: 1 (two letters swapped in each word)', request: typos(1), compare: true },
  { name: 'where (≈ 2 % of items pass)', request: where },
  { name: 'highlight', request: (query: string) => ({ ...plain(query), highlight: true }), compare: true },
  { name: 'typos: 2 (same misspelling)', request: typos(2), compare: true },
  { name: 'prefix, dictionary not kept', request: prefix, compare: true, cold: true },
  { name: 'typos: 1, dictionary not kept', request: typos(1), compare: true, cold: true },
];

// reads: each query's RCU by partition key; keptReads: the same query's again in a container that keeps its first
// reads (made just before); answered: its RCU by key and milliseconds once more in a container that keeps its
// answer too: bench:capacity models the read path's hot keys from them.
const newTally = () => ({
  ...series('latencies', 'units', 'calls', 'terms', 'found', 'returned', 'answeredMs'),
  ...{ reads: [] as Record<string, number>[], keptReads: [] as Record<string, number>[] },
  answeredReads: [] as Record<string, number>[],
});
const tallies = new Map(
  SIZES.flatMap((size) => VARIANTS.map((v) => [`${size} ${v.name}`, newTally()] as const)),
);
const tallyOf = (size: number, variant: string) => tallies.get(`${size} ${variant}`) ?? newTally();

await prepareCollections(SIZES);
await withCollections(SIZES, async (retriever) => {
  const running = SIZES.map((size) => {
    const { retrieve, uncached, measure, dictionary } = retriever(size);
    const retrieverOf = (variant: (typeof VARIANTS)[number]) => (variant.cold ? uncached : retrieve);
    const kept = retriever(size, { firstReads: { cacheMs: 3_600_000 } });
    const answering = retriever(size, {
      firstReads: { cacheMs: 3_600_000 },
      answers: new AnswerCache({ ms: 3_600_000 }),
    });
    /** `request`'s RCU by key (and milliseconds) on `target`, made right after the same query there. */
    const again = async (target: typeof kept, request: RetrieveInput) => {
      await target.retrieve(request);
      target.meter.tally = newMeterTally();
      const begin = performance.now();
      await target.retrieve(request);
      return { reads: Object.fromEntries(target.meter.tally.reads), ms: performance.now() - begin };
    };
    const keptReads = async (request: RetrieveInput) => (await again(kept, request)).reads;
    const answered = (request: RetrieveInput) => again(answering, request);
    return { size, retrieverOf, measure, keptReads, answered, dictionary };
  });
  // Read units, calls, terms and agreement: once per query, variant and size.
  for (const { size, retrieverOf, measure, keptReads, answered, dictionary } of running)
    for (const query of benchQueries) {
      let plainIds: number[] = [];
      for (const variant of VARIANTS) {
        const request = variant.request(query);
        const { value, tally } = await measure(request, retrieverOf(variant));
        const t = tallyOf(size, variant.name);
        t.units.push(tally.units);
        t.reads.push(Object.fromEntries(tally.reads));
        if (!variant.cold) {
          t.keptReads.push(await keptReads(request));
          const { reads, ms } = await answered(request);
          t.answeredReads.push(reads);
          t.answeredMs.push(ms);
        }
        t.calls.push(tally.calls);
        t.terms.push((await expandQuery(request.query, request, dictionary)).weights.size);
        const ids = value.results.map((r) => r.item.id);
        t.returned.push(ids.length);
        if (variant.name === 'plain') plainIds = ids;
        // A query the plain search answers with nothing has no agreement to measure.
        else if (variant.compare && plainIds.length > 0)
          t.found.push(plainIds.filter((id) => ids.includes(id)).length / plainIds.length);
      }
    }
  // Latency: every size and variant interleaved in rotating order, after one unmeasured pass.
  const targets = running.flatMap((r) => VARIANTS.map((variant) => ({ ...r, variant })));
  await interleave(
    targets,
    benchQueries,
    REPEATS,
    (target, query) => target.retrieverOf(target.variant)(target.variant.request(query)),
    (target, ms) => tallyOf(target.size, target.variant.name).latencies.push(ms),
  );
});

const rows = SIZES.flatMap((size) =>
  VARIANTS.map((variant) => {
    const t = tallyOf(size, variant.name);
    return `| ${size.toLocaleString('en')} | ${variant.name} | ${ms(quantile(t.latencies, 0.5), 1)} | ${ms(quantile(t.latencies, 0.99), 1)} | ${mean(t.units).toFixed(1)} | ${max(t.units).toFixed(1)} | ${mean(t.calls).toFixed(1)} | ${mean(t.terms).toFixed(1)} | ${mean(t.returned).toFixed(1)} | ${variant.compare ? mean(t.found).toFixed(2) : '—'} |`;
  }),
);
const largest = SIZES.at(-1) ?? 0;
const latencies = (variant: string) => tallyOf(largest, variant).latencies;
/** Each variant's figure against plain at the largest size, `of` its latencies and plain's. */
const againstPlain = (of: (variant: number[], plain: number[]) => number) =>
  VARIANTS.slice(1)
    .map((v) => `${v.name.split(' (')[0]} **${of(latencies(v.name), latencies('plain')).toFixed(2)}**`)
    .join(', ');
const markdown = `${SIZES.map((s) => s.toLocaleString('en')).join(', ')} items, ${benchQueries.length} queries, top ${TOP_K}, ${REPEATS} passes.

| items | variant | p50 ms | p99 ms | RCU / query (mean) | RCU (max) | DynamoDB calls / query | terms | results | found |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

p50 ÷ plain p50 at ${largest.toLocaleString('en')} items (same run): ${againstPlain((v, plain) => quantile(v, 0.5) / quantile(plain, 0.5))}.

Query by query (each query's median ÷ its plain median, geometric mean over the queries: common.ts \`pairedRatio\`): ${againstPlain((v, plain) => pairedRatio(v, plain, benchQueries.length))}.
`;
writeResult('options', markdown, Object.fromEntries(tallies));
