// `npm run bench:grown`: what a query pays where items grew after they were indexed. An edit that makes an item longer
// leaves the postings whose tf did not change with the length they were written with (indexer.ts `changes`), and the
// search scores its answers from the items themselves (query.ts `itemOf`), asking for more where a score falls. The
// Cranfield collection twice, side by side: every document created with a revision appended and indexed once
// ("fresh"), and created, indexed, then edited to append the same revision and indexed again ("grown": every item
// keeps most of its postings with its shorter length). The 225 queries run on both, interleaved; the answers must be
// the same (ids and scores to the last bit), and the run reports what each costs.
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
const VARIANTS = ['fresh', 'grown'] as const;
type Variant = (typeof VARIANTS)[number];

const result = await withDynamoDb(VARIANTS, async ({ endpoint }) => {
  const { client, meter } = meteredClient(endpoint);
  const setups = await Promise.all(
    VARIANTS.map(async (name) => {
      const tableOf = { client, tableName: name };
      const items = createItemRepository(tableOf);
      const indexer = createIndexer({ ...tableOf, items });
      const docOf = new Map<number, number>();
      await mapLimit(collection.docs, 4, async (doc) => {
        const write = cranfieldWrite(doc);
        const created = await items.create(
          name === 'fresh' ? { ...write, description: `${write.description}${REVISION}` } : write,
        );
        docOf.set(created.id, doc.id);
      });
      const ids = [...docOf.keys()].sort((a, b) => a - b);
      const index = async () => {
        for (let start = 0; start < ids.length; start += BATCH)
          await indexer.reindexItems(ids.slice(start, start + BATCH));
      };
      await index();
      if (name === 'grown') {
        await mapLimit(ids, 4, (id) =>
          items.update(id, (current) => ({
            ...writableFields(current),
            description: `${current.description}${REVISION}`,
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
const [fresh, grown] = [of('fresh'), of('grown')];
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
const markdown = `Cranfield's 225 queries (top ${TOP_K}, ${REPEATS} runs each, interleaved) on the 1,400 documents with a revision appended, indexed fresh or grown (indexed, then edited to append it):

${table(['index', 'p50 (ms)', 'p95 (ms)', 'RCU per query', 'DynamoDB calls per query'], rows)}

grown ÷ fresh: p50 ${pairedRatio(grown.latencies, fresh.latencies, collection.queries.length).toFixed(2)} (query by query), RCU ${(mean(grown.units) / mean(fresh.units)).toFixed(2)}, calls ${(mean(grown.calls) / mean(fresh.calls)).toFixed(2)}. Answers that differ between the two (ids or scores): ${result.differ} of ${collection.queries.length * (2 * REPEATS - 1)} compared.`;
writeResult(
  'grown',
  markdown,
  {
    differ: result.differ,
    fresh: { p50: quantile(fresh.latencies, 0.5), rcu: mean(fresh.units), calls: mean(fresh.calls) },
    grown: { p50: quantile(grown.latencies, 0.5), rcu: mean(grown.units), calls: mean(grown.calls) },
  },
  started,
);
if (result.differ > 0) process.exitCode = 1;
