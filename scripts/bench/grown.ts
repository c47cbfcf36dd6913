// `npm run bench:grown`: what the lengths postings carry cost a query. A new item's postings carry its length; an edit
// keeps them while the item stays at least that long and at most twice it, and one that leaves that window rewrites
// them with the item's norm, its length less an eighth (indexer.ts `withNorm`, postings.ts `LENGTH_SLACK`). Where a
// posting carries less than its item's length its score is a bound, and the search scores its answers from the items
// themselves (query.ts `itemOf`), asking for more where a score falls. The Cranfield collection three times, side by
// side, every document ending as the same text (with a revision appended): "fresh", created so and indexed once
// (every posting carries its item's length); "grown", created without the revision, indexed, edited to append it
// and indexed again (most postings keep the shorter length); "shrunk", created with the revision twice, indexed,
// edited to take one back and indexed again (every posting rewritten with the item's norm: the worst case). The 225
// "set", whose 255 items of every fifth (the most the shrunk set holds before a writer compacts it: indexer.ts
// COMPACT_AT) are created with the revision twice and edited like "shrunk", by a writer that never compacts: those
// items in the shrunk set (keys.ts), their postings at their old length, read with the set's bounds and lengths. The
// queries run on all four, interleaved; the answers must be the same (ids and scores to the last bit), and the run
// reports what each costs against "fresh".
import { mapLimit } from '../../lib/concurrency.ts';
import { writableFields } from '../../lib/items/merge-patch.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createServiceRetriever } from '../../lib/search/read/retrieve.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { meteredClient } from './capacity.ts';
import {
  alternating,
  envNumber,
  mean,
  ms,
  pairedRatio,
  quantile,
  series,
  table,
  writeResult,
} from './common.ts';
import { cranfieldWrite, loadCranfield, REVISION } from './cranfield.ts';
import { withDynamoDb } from './service.ts';

const REPEATS = envNumber('BENCH_GROWN_REPEATS', 3);
const TOP_K = 10;
const BATCH = 1000;
const started = Date.now();
const collection = await loadCranfield();
const VARIANTS = ['fresh', 'grown', 'shrunk', 'set'] as const;
/** The items the "set" variant shrinks: the shrunk set's size when a writer compacts it, less one. */
const SET_SIZE = 255;
type Variant = (typeof VARIANTS)[number];

const result = await withDynamoDb(VARIANTS, async ({ endpoint }) => {
  const { client, meter } = meteredClient(endpoint);
  const setups = await Promise.all(
    VARIANTS.map(async (name) => {
      const tableOf = { client, tableName: name };
      const items = createItemRepository(tableOf);
      const indexer = createIndexer({
        ...tableOf,
        items,
        ...(name === 'set' ? { compactAt: Number.POSITIVE_INFINITY } : {}),
      });
      const docOf = new Map<number, number>();
      /** How many revisions each document is created with: the last text has one. */
      const revisionsOf = (i: number) =>
        name === 'set' ? (i % 5 === 0 && i / 5 < SET_SIZE ? 2 : 1) : { fresh: 1, grown: 0, shrunk: 2 }[name];
      /** The items created with other than one revision, and with how many. */
      const revised = new Map<number, number>();
      await mapLimit([...collection.docs.entries()], 4, async ([i, doc]) => {
        const write = cranfieldWrite(doc);
        const created = await items.create({
          ...write,
          description: `${write.description}${REVISION.repeat(revisionsOf(i))}`,
        });
        docOf.set(created.id, doc.id);
        if (revisionsOf(i) !== 1) revised.set(created.id, revisionsOf(i));
      });
      const ids = [...docOf.keys()].sort((a, b) => a - b);
      const index = async () => {
        for (let start = 0; start < ids.length; start += BATCH)
          await indexer.reindexItems(ids.slice(start, start + BATCH));
      };
      await index();
      if (revised.size > 0) {
        await mapLimit([...revised], 4, ([id, revisions]) =>
          items.update(id, (current) => ({
            ...writableFields(current),
            description: `${current.description.replace(REVISION.repeat(revisions), '')}${REVISION}`,
          })),
        );
        await index();
      }
      return { name, docOf, retrieve: createServiceRetriever({ ...tableOf, items }) };
    }),
  );
  const tallies = new Map(VARIANTS.map((name) => [name, series('latencies', 'units', 'calls')]));
  const answers = new Map<string, string>();
  let differ = 0;
  await alternating(REPEATS, setups, async ({ name, docOf, retrieve }, round) => {
    const tally = tallies.get(name);
    for (const [i, query] of collection.queries.entries()) {
      const t = meter.tally;
      const [units, calls] = [t.rcu, t.calls];
      const begin = performance.now();
      const { results } = await retrieve({ query: query.text, topK: TOP_K, minScore: 0 });
      const latency = performance.now() - begin;
      tally?.latencies.push(latency);
      // Read units and calls: at each query's first run (later runs find the dictionary kept).
      if (round === 0) {
        tally?.units.push(meter.tally.rcu - units);
        tally?.calls.push(meter.tally.calls - calls);
      }
      const answer = JSON.stringify(results.map((r) => [docOf.get(r.item.id), r.score]));
      const other = answers.get(`${i}`);
      if (other === undefined) answers.set(`${i}`, answer);
      else if (other !== answer) differ++;
    }
  });
  return { tallies, differ };
});

const of = (name: Variant) => result.tallies.get(name) ?? series('latencies', 'units', 'calls');
const fresh = of('fresh');
const against = (name: Variant) => {
  const t = of(name);
  return {
    p50: pairedRatio(t.latencies, fresh.latencies, collection.queries.length),
    rcu: mean(t.units) / mean(fresh.units),
    calls: mean(t.calls) / mean(fresh.calls),
  };
};
const rows = VARIANTS.map((name) => {
  const t = of(name);
  return [
    name,
    ms(quantile(t.latencies, 0.5)),
    ms(quantile(t.latencies, 0.95)),
    mean(t.units).toFixed(2),
    mean(t.calls).toFixed(2),
  ];
});
const ratios = VARIANTS.filter((name) => name !== 'fresh').map((name) => {
  const r = against(name);
  return `${name} ${r.p50.toFixed(2)} / ${r.rcu.toFixed(2)} / ${r.calls.toFixed(2)}`;
});
const markdown = `Cranfield's 225 queries (top ${TOP_K}, ${REPEATS} runs each, interleaved) on the 1,400 documents with a revision appended, indexed fresh (every posting carries its item's length), grown (indexed without the revision, then edited to append it: most postings keep the shorter length) shrunk (indexed with it twice, then edited to take one back: the writer compacts the shrunk set, so every posting carries the item's norm, an eighth short) or set (255 items, every fifth, shrunk so by a writer that never compacts: they stay in the shrunk set, their postings at their old length):

${table(['index', 'p50 (ms)', 'p95 (ms)', 'RCU per query', 'DynamoDB calls per query'], rows)}

÷ fresh, p50 (query by query) / RCU / calls: ${ratios.join('; ')}. Answers that differ from the first one given (ids or scores): ${result.differ} of ${collection.queries.length * (VARIANTS.length * REPEATS - 1)} compared.`;
writeResult(
  'grown',
  markdown,
  {
    differ: result.differ,
    ...Object.fromEntries(
      VARIANTS.map((name) => {
        const t = of(name);
        return [name, { p50: quantile(t.latencies, 0.5), rcu: mean(t.units), calls: mean(t.calls) }];
      }),
    ),
  },
  started,
);
if (result.differ > 0) process.exitCode = 1;
