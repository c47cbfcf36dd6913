// `npm run bench:options`: what the search options of contract §8 cost. The bench:scale collections (synthetic items
// loaded in bulk with the records the indexer writes, dictionary included; collections.ts) at 1k, 10k and 100k
// items, served at once; each fixed query runs plain and with each option, interleaved across sizes and variants,
// through the retriever POST /retrieve runs. Every command asks for ReturnConsumedCapacity (DynamoDB Local reports
// index queries too). The last two variants are served by a retriever whose dictionary keeps its reads for good (the
// service keeps them 1 s: lib/search/read/dictionary.ts): what prefix and typos cost past the dictionary.
import { expandQuery } from '../../lib/search/read/expand.ts';
import type { RetrieveInput } from '../../lib/search/read/retrieve.ts';
import type { WhereExpression } from '../../lib/search/read/where-schema.ts';
import { metered } from './capacity.ts';
import { collectionRetriever, interleave, prepareCollections, withCollections } from './collections.ts';
import { envNumber, envSizes, mean, ms, quantile, writeResult } from './common.ts';
import { benchQueries } from './synthetic.ts';

const SIZES = envSizes('BENCH_OPTIONS_SIZES', '1000,10000,100000');
const REPEATS = envNumber('BENCH_OPTIONS_REPEATS', 5);
const TOP_K = 10;
const started = Date.now();

/** One edit in the middle of every word of five letters or more: two adjacent letters swapped. */
const misspell = (query: string) =>
  query
    .split(' ')
    .map((word) => {
      if (word.length < 5) return word;
      const at = Math.floor(word.length / 2) - 1;
      return `${word.slice(0, at)}${word[at + 1]}${word[at]}${word.slice(at + 2)}`;
    })
    .join(' ');
/** The query as typed so far: its last word cut to its first three letters. */
const typing = (query: string) => {
  const words = query.split(' ');
  return [...words.slice(0, -1), (words.at(-1) ?? '').slice(0, 3)].join(' ');
};

/** Items tagged audio (≈ 19 %: 1–3 of 10 tags) of size under 5 (10 %). */
const SELECTIVE = {
  andAll: [
    { listContains: { key: 'tags', value: 'audio' } },
    { lessThan: { key: 'attributes.size', value: 5 } },
  ],
} satisfies WhereExpression;

interface Variant {
  name: string;
  request: (query: string) => RetrieveInput;
  /** How the variant's answer compares with the plain query's: the share of the plain top k it found. */
  compare: boolean;
  /**
   * Served by a retriever whose dictionary keeps every read for good (warmed by the unmeasured pass): what the option
   * costs past its dictionary reads, the floor a cache can reach.
   */
  warm: boolean;
}
const variant = (name: string, request: Variant['request'], compare = true, warm = false): Variant => ({
  name,
  request,
  compare,
  warm,
});
const plain = (query: string) => ({ query, topK: TOP_K, minScore: 0 });
const prefix = (query: string) => ({ ...plain(typing(query)), prefix: true });
const typos = (typos: 1 | 2) => (query: string) => ({ ...plain(misspell(query)), typos });
const VARIANTS = [
  variant('plain', plain, false),
  variant('prefix (last word cut to 3 letters)', prefix),
  variant('typos: 1 (two letters swapped in each word)', typos(1)),
  variant('where (≈ 2 % of items pass)', (query) => ({ ...plain(query), where: SELECTIVE }), false),
  variant('highlight', (query) => ({ ...plain(query), highlight: true })),
  variant('typos: 2 (same misspelling)', typos(2)),
  variant('prefix, dictionary in memory', prefix, true, true),
  variant('typos: 1, dictionary in memory', typos(1), true, true),
];

interface Tally {
  latencies: number[];
  units: number[];
  calls: number[];
  terms: number[];
  found: number[];
  /** Results returned (a selective where must still fill the top k). */
  returned: number[];
}
const tallies = new Map<string, Tally>();
const tallyOf = (size: number, variant: string) => {
  const key = `${size} ${variant}`;
  const tally = tallies.get(key) ?? {
    latencies: [],
    units: [],
    calls: [],
    terms: [],
    found: [],
    returned: [],
  };
  tallies.set(key, tally);
  return tally;
};

await prepareCollections(SIZES);
await withCollections(SIZES, async (endpoints) => {
  const running = SIZES.map((size) => {
    const { retrieve: served, withDictionary, ...rest } = collectionRetriever(endpoints.get(size) ?? '');
    const warm = withDictionary({ cacheMs: Number.POSITIVE_INFINITY });
    const retrieve = (request: RetrieveInput, variant: Variant) => (variant.warm ? warm : served)(request);
    return { size, retrieve, ...rest };
  });
  // Read units, calls, terms and agreement: once per query, variant and size.
  for (const { size, meter, retrieve, dictionary } of running) {
    for (const query of benchQueries) {
      let plainIds: number[] = [];
      for (const variant of VARIANTS) {
        const request = variant.request(query);
        // A warm dictionary has read what this query needs before it is measured.
        if (variant.warm) await retrieve(request, variant);
        const { value, tally } = await metered(meter, () => retrieve(request, variant));
        const t = tallyOf(size, variant.name);
        t.units.push(tally.units);
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
  }
  // Latency: every size and variant interleaved in rotating order, after one unmeasured pass.
  const targets = running.flatMap((r) => VARIANTS.map((variant) => ({ ...r, variant })));
  await interleave(
    targets,
    benchQueries,
    REPEATS,
    (target, query) => target.retrieve(target.variant.request(query), target.variant),
    (target, ms) => tallyOf(target.size, target.variant.name).latencies.push(ms),
  );
  for (const { raw } of running) raw.destroy();
});

const rows = SIZES.flatMap((size) =>
  VARIANTS.map((variant) => {
    const t = tallyOf(size, variant.name);
    return `| ${size.toLocaleString('en')} | ${variant.name} | ${ms(quantile(t.latencies, 0.5), 1)} | ${ms(quantile(t.latencies, 0.99), 1)} | ${mean(t.units).toFixed(1)} | ${Math.max(...t.units).toFixed(1)} | ${mean(t.calls).toFixed(1)} | ${mean(t.terms).toFixed(1)} | ${mean(t.returned).toFixed(1)} | ${variant.compare ? mean(t.found).toFixed(2) : '—'} |`;
  }),
);
const ratio = (size: number, variant: string) =>
  quantile(tallyOf(size, variant).latencies, 0.5) / quantile(tallyOf(size, 'plain').latencies, 0.5);
const largest = SIZES.at(-1) ?? 0;
const markdown = `${SIZES.map((s) => s.toLocaleString('en')).join(', ')} items, ${benchQueries.length} queries, top ${TOP_K}, ${REPEATS} passes.

| items | variant | p50 ms | p99 ms | RCU / query (mean) | RCU (max) | DynamoDB calls / query | terms | results | found |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

p50 ÷ plain p50 at ${largest.toLocaleString('en')} items (same run): ${VARIANTS.slice(1)
  .map((v) => `${v.name.split(' (')[0]} **${ratio(largest, v.name).toFixed(2)}**`)
  .join(', ')}.
`;
writeResult('options', markdown, Object.fromEntries(tallies), started);
