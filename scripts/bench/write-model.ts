// `npm run bench:write-model`: the index's write units per new item as the collection grows, past what DynamoDB Local
// can ingest here (bench:ingest measures 1,000 and 10,000 items; this goes to 100,000 and more). It replays the
// posting writer's own pure steps in memory (lib/search/write/postings.ts: `planTail`, `tailItem`, `sealedItem`)
// on the synthetic collection, created in id order and indexed in stream batches, and costs each write by AWS's
// rules as capacity.ts costs a measured run: a Put ceil(max(old, new size) / 1 KB), an Update of a directory page
// by the larger of its sizes, each × 2 inside a transaction; the doc records' write-ahead Put and commit (× 2), the
// corpus counts once per 99 items, and the dictionary's index writes (terms-by-prefix-v2 when a term is born or its
// df class changes, terms-by-length when it is born; exact forms in neither). For each size it reports the batches
// that end there.
//
// Options (environment): BENCH_MODEL_SIZES (1000,10000,100000), BENCH_MODEL_BATCH (1000: a backlog drains in
// batches of the stream's batchSize), BENCH_MODEL_WINDOW (items measured before each size: 10% of it).
import { marshall } from '@aws-sdk/util-dynamodb';
import { BLOCK_CAPACITY, type BlockPosting } from '../../lib/search/format/blocks.ts';
import { dfClass, isDictionaryTerm, pageEntry, pageSk, termPk } from '../../lib/search/format/keys.ts';
import { analyze, stored } from '../../lib/search/write/indexer.ts';
import { planTail, postingsOf, sealedItem, tailItem } from '../../lib/search/write/postings.ts';
import { itemBytes } from './capacity.ts';
import { syntheticItem } from './synthetic.ts';

const SIZES = (process.env.BENCH_MODEL_SIZES ?? '1000,10000,100000').split(',').map(Number);
const BATCH = Number(process.env.BENCH_MODEL_BATCH ?? 1000);
const last = Math.max(...SIZES);
const wcu = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const size = (item: Record<string, unknown>) =>
  itemBytes(marshall(item, { removeUndefinedValues: true }) as never);

const tails = new Map<string, ReturnType<typeof planTail>['next']>();
const pages = new Map<string, Record<string, number>>();
const window = new Map<
  number,
  { items: number; index: number; postings: number; byTerm: Map<string, number> }
>();
const timestamp = '2026-01-01T00:00:00.000Z';
let batch: number[] = [];

function indexBatch(ids: number[]) {
  const measuring = SIZES.map((s) => ({ s, from: s - Math.max(BATCH, Math.floor(s / 10)) + 1 })).find(
    ({ s, from }) => (ids[0] ?? 0) >= from && (ids.at(-1) ?? 0) <= s,
  );
  const byTerm = new Map<string, BlockPosting[]>();
  let index = 0;
  let postingsCount = 0;
  for (const id of ids) {
    const indexed = analyze(syntheticItem(id, timestamp));
    const doc = { pk: `D#${id}`, sk: 'IDX', ...stored(indexed), rev: 2 };
    // Write-ahead (the doc record with its pending state), then the commit's Put inside a transaction.
    index += wcu(size({ ...doc, pending: [stored(indexed)], leaseOwner: 'x'.repeat(36), leaseUntil: 1e12 }));
    index += 2 * wcu(size(doc));
    for (const posting of postingsOf(id, indexed).values()) {
      const list = byTerm.get(posting.term) ?? [];
      list.push({ id, tf: posting.tf, dl: posting.dl });
      byTerm.set(posting.term, list);
      postingsCount++;
    }
  }
  index += 2 * Math.ceil(ids.length / 99); // STATS, once a commit transaction
  const termCost = new Map<string, number>();
  for (const [term, add] of byTerm) {
    const tail = tails.get(term);
    const { sealed, next } = planTail(tail, { add, remove: new Set() }, BLOCK_CAPACITY);
    const oldTail = tail ? size(tailItem(term, tail)) : 0;
    const newTail = size(tailItem(term, next));
    let cost: number;
    if (sealed.length === 0) cost = wcu(Math.max(oldTail, newTail));
    else {
      cost = 2 * wcu(Math.max(oldTail, newTail));
      for (const block of sealed) cost += 2 * wcu(size(sealedItem(term, block)));
      // One Update a page, with all of its new entries (postings.ts pageUpdates).
      for (const [sk, blocks] of Map.groupBy(sealed, (block) => pageSk(block.end))) {
        const key = `${term}\u0000${sk}`;
        const page = pages.get(key) ?? {};
        const before = Object.keys(page).length > 0 ? size({ pk: termPk(term), sk, ...page }) : 0;
        for (const block of blocks) page[pageEntry(block.end)] = block.m;
        pages.set(key, page);
        cost += 2 * wcu(Math.max(before, size({ pk: termPk(term), sk, ...page })));
      }
    }
    // The dictionary: terms-by-prefix-v2 projects the df class (a change of class), terms-by-length is written when a
    // term is born; an exact form is in neither (keys.ts).
    if (isDictionaryTerm(term)) cost += tail ? Number(dfClass(tail.df) !== dfClass(next.df)) : 2;
    tails.set(term, next);
    termCost.set(term, cost);
    index += cost;
  }
  if (measuring) {
    const tally = window.get(measuring.s) ?? { items: 0, index: 0, postings: 0, byTerm: new Map() };
    tally.items += ids.length;
    tally.index += index;
    tally.postings += postingsCount;
    for (const [term, cost] of termCost) tally.byTerm.set(term, (tally.byTerm.get(term) ?? 0) + cost);
    window.set(measuring.s, tally);
  }
}

const started = Date.now();
for (let id = 1; id <= last; id++) {
  batch.push(id);
  if (batch.length === BATCH || SIZES.includes(id) || id === last) {
    indexBatch(batch);
    batch = [];
  }
}
const rows = SIZES.map((s) => {
  const tally = window.get(s);
  if (!tally) return `| ${s.toLocaleString('en')} | — | — | — |`;
  const [term, hottest] = [...tally.byTerm].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  return `| ${s.toLocaleString('en')} | ${tally.items.toLocaleString('en')} | ${(tally.index / tally.items).toFixed(2)} | ${(hottest / tally.items).toFixed(3)} (\`T#${term}\`) |`;
});
const first = window.get(SIZES[0] ?? 0);
const lastTally = window.get(last);
console.log(`Write model, batches of ${BATCH} (${((Date.now() - started) / 1000).toFixed(0)} s):\n`);
console.log(
  '| items | new items measured (the last before the size) | index WCU per new item | hottest partition key, WCU per new item |',
);
console.log('|---|---|---|---|');
console.log(rows.join('\n'));
if (first && lastTally)
  console.log(
    `\nWCU per new item at ${last.toLocaleString('en')} ÷ at ${(SIZES[0] ?? 0).toLocaleString('en')}: ${(lastTally.index / lastTally.items / (first.index / first.items)).toFixed(2)}`,
  );
