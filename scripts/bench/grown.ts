// `npm run bench:grown`: what the lengths postings carry cost a query. A new item's postings carry its length; an edit
// keeps them while the item stays at least that long and at most twice it, and one that leaves that window rewrites
// them with the item's norm, its length less an eighth (indexer.ts `postingTarget`, postings.ts `LENGTH_SLACK`). Where a
// posting carries less than its item's length its score is a bound, and the search scores its answers from the items
// themselves (query.ts `itemOf`), asking for more where a score falls. The Cranfield collection three times, side by
// side, every document ending as the same text (with a revision appended): "fresh", created so and indexed once
// (every posting carries its item's length); "grown", created without the revision, indexed, edited to append it
// and indexed again (most postings keep the shorter length); "shrunk", created with the revision twice, indexed,
// edited to take one back and indexed again (every posting rewritten with the item's norm: the worst case). The 225
// "set", whose 255 items of every fifth (the most the shrunk set holds before a writer compacts it: indexer.ts
// COMPACT_AT) are created with the revision twice and edited like "shrunk", by a writer that never compacts: those
// items in the shrunk set (keys.ts), their postings at their old length, read with the set's bounds and lengths. The
// fifth, "halved", holds the shrunk set at its largest with cuts: items of every fifth, created with another
// document's text after their own (as long again) and edited to take it out, by a writer that never compacts, as many
// as the set holds before a writer compacts it (COMPACT_AT entries, COMPACT_BYTES): their postings keep the taken
// words (ghosts) and the old length. The queries run on all five, interleaved; the answers must be the same (ids and
// scores to the last bit), and the run reports what each costs against "fresh".
import { mapLimit } from '../../lib/concurrency.ts';
import { queryAll } from '../../lib/dynamodb/query-all.ts';
import { writableFields } from '../../lib/items/merge-patch.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { shrunkBytes, shrunkEntry, shrunkOf, shrunkQuery } from '../../lib/search/format/keys.ts';
import { createServiceRetriever } from '../../lib/search/read/retrieve.ts';
import {
  analyze,
  COMPACT_AT,
  COMPACT_BYTES,
  createIndexer,
  isShrunk,
  postingTarget,
} from '../../lib/search/write/indexer.ts';
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
const VARIANTS = ['fresh', 'grown', 'shrunk', 'set', 'halved'] as const;
/** The items the "set" variant shrinks: the shrunk set's size when a writer compacts it, less one. */
const SET_SIZE = 255;
type Variant = (typeof VARIANTS)[number];
/** The bytes of the set "halved" holds at most: the writer's default COMPACT_BYTES (other sizes, to weigh it). */
const SET_BYTES = envNumber('BENCH_GROWN_SET_BYTES', COMPACT_BYTES);
/** The text a document's item is created with in "halved": its own, then the next document's. */
const doubled = (i: number) => {
  const write = cranfieldWrite(collection.docs[i] as (typeof collection.docs)[number]);
  const next = cranfieldWrite(
    collection.docs[(i + 1) % collection.docs.length] as (typeof collection.docs)[number],
  );
  return { write, before: `${write.description}${REVISION} ${next.description}` };
};
/**
 * The documents "halved" creates doubled: every fifth, in order, while the set their edits make stays within what a
 * writer holds before it compacts (each entry as the writer stores it: indexer.ts `postingTarget`).
 */
const HALVED = (() => {
  const chosen = new Set<number>();
  let bytes = 0;
  for (let i = 0; i < collection.docs.length && chosen.size < COMPACT_AT - 1; i += 5) {
    const { write, before } = doubled(i);
    const at = '2026-01-01T00:00:00.000Z';
    const item = (description: string) => ({
      id: 1,
      ...write,
      description,
      createdAt: at,
      updatedAt: at,
      version: 1,
    });
    const target = postingTarget(
      analyze(item(before)),
      analyze(item(`${write.description}${REVISION}`)),
      false,
    );
    const size = isShrunk(target) ? shrunkBytes([shrunkEntry(target)]) : 0;
    if (bytes + size >= SET_BYTES) break;
    bytes += size;
    chosen.add(i);
  }
  return { chosen, bytes };
})();

const result = await withDynamoDb(VARIANTS, async ({ endpoint }) => {
  const { client, meter } = meteredClient(endpoint);
  const setups = await Promise.all(
    VARIANTS.map(async (name) => {
      const tableOf = { client, tableName: name };
      const items = createItemRepository(tableOf);
      const indexer = createIndexer({
        ...tableOf,
        items,
        ...(name === 'set' || name === 'halved'
          ? { compactAt: Number.POSITIVE_INFINITY, compactBytes: Number.POSITIVE_INFINITY }
          : {}),
      });
      const docOf = new Map<number, number>();
      /** The text each document's item is created with; every one ends as its own with one revision. */
      const createdWith = (i: number, description: string) => {
        if (name === 'halved') return HALVED.chosen.has(i) ? doubled(i).before : `${description}${REVISION}`;
        const revisions =
          name === 'set'
            ? i % 5 === 0 && i / 5 < SET_SIZE
              ? 2
              : 1
            : { fresh: 1, grown: 0, shrunk: 2 }[name];
        return `${description}${REVISION.repeat(revisions)}`;
      };
      /** The items created with another text, with the one they end as. */
      const revised = new Map<number, string>();
      await mapLimit([...collection.docs.entries()], 4, async ([i, doc]) => {
        const write = cranfieldWrite(doc);
        const last = `${write.description}${REVISION}`;
        const created = await items.create({ ...write, description: createdWith(i, write.description) });
        docOf.set(created.id, doc.id);
        if (created.description !== last) revised.set(created.id, last);
      });
      const ids = [...docOf.keys()].sort((a, b) => a - b);
      const index = async () => {
        for (let start = 0; start < ids.length; start += BATCH)
          await indexer.reindexItems(ids.slice(start, start + BATCH));
      };
      await index();
      if (revised.size > 0) {
        await mapLimit([...revised], 4, ([id, description]) =>
          items.update(id, (current) => ({ ...writableFields(current), description })),
        );
        await index();
      }
      if (name === 'set' || name === 'halved') {
        const rows = await queryAll(client, shrunkQuery(name));
        console.log(
          `  ${name}: ${shrunkOf(rows).length} items in the shrunk set, ${shrunkBytes(rows)} bytes`,
        );
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
const markdown = `Cranfield's 225 queries (top ${TOP_K}, ${REPEATS} runs each, interleaved) on the 1,400 documents with a revision appended, indexed fresh (every posting carries its item's length), grown (indexed without the revision, then edited to append it: most postings keep the shorter length) shrunk (indexed with it twice, then edited to take one back: the writer compacts the shrunk set, so every posting carries the item's norm, an eighth short) set (255 items, every fifth, shrunk so by a writer that never compacts: they stay in the shrunk set, their postings at their old length) or halved (${HALVED.chosen.size} items, every fifth, created with the next document's text after their own and edited to take it out, by a writer that never compacts: the shrunk set as full as a writer lets it grow, ${HALVED.bytes.toLocaleString('en')} bytes, their postings keeping the words taken out):

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
