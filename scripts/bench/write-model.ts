// `npm run bench:write-model`: the index's write units per new item as the collection grows, the writer's pure steps
// replayed in memory and costed by AWS's rules (method: BENCHMARKS.md); each size's last 10 % of items.
import { BLOCK_CAPACITY, type BlockPosting } from '../../lib/search/format/blocks.ts';
import { pageEntry, pageSk, termPk } from '../../lib/search/format/keys.ts';
import { analyze, stored } from '../../lib/search/write/indexer.ts';
import { planTail, postingsOf, sealedItem, tailItem } from '../../lib/search/write/postings.ts';
import { entryOfRecord, indexWrites, recordBytes as size } from './capacity.ts';
import { envNumber, envSizes } from './common.ts';
import { syntheticItem } from './synthetic.ts';

const newTally = () => ({
  items: 0,
  batches: 0,
  wcu: 0,
  statsTransactions: 0,
  /** Requests sent (a BatchGetItem of 100 keys, a Put, a transaction: one each). */
  requests: 0,
  /** Distinct terms, summed over the batches. */
  terms: 0,
  /** WCU by term partition key, and by dictionary index partition (`<index> <partition>`). */
  byTerm: new Map<string, number>(),
  byIndex: new Map<string, number>(),
});
type IngestTally = ReturnType<typeof newTally>;
const add = (map: Map<string, number>, key: string, units: number) =>
  map.set(key, (map.get(key) ?? 0) + units);
const hottestOf = (map: Map<string, number>): [string, number] =>
  [...map].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
export const hottestTerm = (tally: IngestTally) => hottestOf(tally.byTerm);
export const hottestIndex = (tally: IngestTally) => hottestOf(tally.byIndex);

/** Replays the synthetic collection's creates in batches of `batch`; each size's tally. */
export function replayIngest(sizes: readonly number[], batch: number): Map<number, IngestTally> {
  const wcu = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
  const tails = new Map<string, ReturnType<typeof planTail>['next']>();
  const pages = new Map<string, Record<string, number>>();
  const window = new Map<number, IngestTally>();

  function indexBatch(ids: number[]) {
    const measuring = sizes.find(
      (s) => (ids[0] ?? 0) >= s - Math.max(batch, Math.floor(s / 10)) + 1 && (ids.at(-1) ?? 0) <= s,
    );
    const byTerm = new Map<string, BlockPosting[]>();
    const tally = newTally();
    for (const id of ids) {
      const indexed = analyze(syntheticItem(id, '2026-01-01T00:00:00.000Z'));
      const doc = { pk: `D#${id}`, sk: 'IDX', ...stored(indexed), rev: 2 };
      // The write-ahead Put (the doc record with its pending state), then the commit's Put in a transaction.
      const pending = { ...doc, pending: [stored(indexed)], leaseOwner: 'x'.repeat(36), leaseUntil: 1e12 };
      tally.wcu += wcu(size(pending)) + 2 * wcu(size(doc));
      for (const { term, tf, dl } of postingsOf(id, indexed).values()) {
        const list = byTerm.get(term) ?? [];
        byTerm.set(term, list);
        list.push({ id, tf, dl });
      }
    }
    const commits = Math.ceil(ids.length / 99);
    tally.wcu += 2 * commits; // the counts, once a commit transaction
    // The items and doc records read (100 keys a call), each doc's write-ahead Put, the tails read, a write a
    // term, the commits.
    tally.requests =
      2 * Math.ceil(ids.length / 100) + ids.length + Math.ceil(byTerm.size / 100) + byTerm.size + commits;
    for (const [term, postings] of byTerm) {
      const tail = tails.get(term);
      const { sealed, next } = planTail(tail, { add: postings, remove: new Set() }, BLOCK_CAPACITY);
      const [oldItem, newItem] = [tail && tailItem(term, tail), tailItem(term, next)];
      const tailUnits = wcu(Math.max(oldItem ? size(oldItem) : 0, size(newItem)));
      // A sealing write is a transaction: the tail, the sealed blocks and one Update a directory page.
      let cost = sealed.length === 0 ? tailUnits : 2 * tailUnits;
      for (const block of sealed) cost += 2 * wcu(size(sealedItem(term, block)));
      for (const [sk, blocks] of Map.groupBy(sealed, (block) => pageSk(block.end))) {
        const key = `${term}\u0000${sk}`;
        const page = pages.get(key) ?? {};
        const before = Object.keys(page).length > 0 ? size({ pk: termPk(term), sk, ...page }) : 0;
        for (const block of blocks) page[pageEntry(block.end)] = block.m;
        pages.set(key, page);
        cost += 2 * wcu(Math.max(before, size({ pk: termPk(term), sk, ...page })));
      }
      for (const write of indexWrites(oldItem && entryOfRecord(oldItem), entryOfRecord(newItem))) {
        add(tally.byIndex, write.key, write.units);
        tally.wcu += write.units;
      }
      tails.set(term, next);
      add(tally.byTerm, term, cost);
      tally.wcu += cost;
    }
    if (measuring === undefined) return;
    const total = window.get(measuring) ?? newTally();
    total.items += ids.length;
    total.batches++;
    total.wcu += tally.wcu;
    total.requests += tally.requests;
    total.statsTransactions += commits;
    total.terms += byTerm.size;
    for (const [term, cost] of tally.byTerm) add(total.byTerm, term, cost);
    for (const [key, cost] of tally.byIndex) add(total.byIndex, key, cost);
    window.set(measuring, total);
  }

  let pending: number[] = [];
  const last = Math.max(...sizes);
  for (let id = 1; id <= last; id++) {
    pending.push(id);
    if (pending.length === batch || sizes.includes(id) || id === last) {
      indexBatch(pending);
      pending = [];
    }
  }
  return window;
}

if (import.meta.main) {
  const SIZES = envSizes('BENCH_MODEL_SIZES', '1000,10000,100000');
  const BATCH = envNumber('BENCH_MODEL_BATCH', 1000);
  const started = Date.now();
  const window = replayIngest(SIZES, BATCH);
  const en = (n: number) => n.toLocaleString('en');
  const perItem = (tally: IngestTally, units: number, digits: number) =>
    (units / tally.items).toFixed(digits);
  console.log(`Write model, batches of ${BATCH} (${((Date.now() - started) / 1000).toFixed(0)} s):\n`);
  console.log(
    '| items | new items measured (the last before the size) | index WCU per new item | hottest partition key, WCU per new item | hottest dictionary index partition, WCU per new item |',
  );
  console.log('|---|---|---|---|---|');
  for (const s of SIZES) {
    const tally = window.get(s);
    if (!tally) {
      console.log(`| ${en(s)} | — | — | — | — |`);
      continue;
    }
    const [[term, hottest], [key, index]] = [hottestTerm(tally), hottestIndex(tally)];
    console.log(
      `| ${en(s)} | ${en(tally.items)} | ${perItem(tally, tally.wcu, 2)} | ${perItem(tally, hottest, 3)} (\`T#${term}\`) | ${perItem(tally, index, 3)} (\`${key}\`) |`,
    );
  }
  const [first, last] = [window.get(SIZES[0] ?? 0), window.get(Math.max(...SIZES))];
  if (first && last)
    console.log(
      `\nWCU per new item at ${en(Math.max(...SIZES))} ÷ at ${en(SIZES[0] ?? 0)}: ${(last.wcu / last.items / (first.wcu / first.items)).toFixed(2)}`,
    );
}
