// `npm run bench:write-model`: the index's write units per new item as the collection grows, past what DynamoDB Local
// can ingest here (bench:ingest measures 1,000 and 10,000 items; this goes to 100,000 and more). It replays the
// posting writer's own pure steps in memory (lib/search/write/postings.ts: `planTail`, `tailItem`, `sealedItem`)
// on the synthetic collection, created in id order and indexed in stream batches, and costs each write by AWS's
// rules as capacity.ts costs a measured run: a Put ceil(max(old, new size) / 1 KB), an Update of a directory page
// by the larger of its sizes, each × 2 inside a transaction; the doc records' write-ahead Put and commit (× 2), the
// corpus counts once per 99 items, and the dictionary's index writes (capacity.ts `indexWrites`: terms-by-prefix-v2
// when a term is born or its df class changes, terms-by-length-v2 when it is born), each on its partition. It also
// counts the requests a batch makes, by the writer's phases (lib/search/write/indexer.ts), for bench:capacity's
// ingest ceiling. For each size it reports the batches that end there.
//
// Options (environment): BENCH_MODEL_SIZES (1000,10000,100000), BENCH_MODEL_BATCH (1000: a backlog drains in
// batches of the stream's batchSize). Measured before each size: the batches of its last 10 % of items.
import { BLOCK_CAPACITY, type BlockPosting } from '../../lib/search/format/blocks.ts';
import { pageEntry, pageSk, termPk } from '../../lib/search/format/keys.ts';
import { analyze, stored } from '../../lib/search/write/indexer.ts';
import { planTail, postingsOf, sealedItem, tailItem } from '../../lib/search/write/postings.ts';
import { entryOfRecord, indexWrites, recordBytes as size } from './capacity.ts';
import { envNumber, envSizes } from './common.ts';
import { syntheticItem } from './synthetic.ts';

/** What the batches ending at one size wrote, per new item once divided by `items`. */
export interface IngestTally {
  items: number;
  batches: number;
  /** Index WCU (AWS's rules), the dictionary's index writes included. */
  wcu: number;
  /** Requests sent (a BatchGetItem of 100 keys, a Put, a transaction: one each). */
  requests: number;
  /** WCU by base-table partition key (T#<term>), and by dictionary index partition (`<index> <partition>`). */
  byTerm: Map<string, number>;
  byIndex: Map<string, number>;
  /** Transactions on STATS (one per commit of up to 99 docs). */
  statsTransactions: number;
  /** Distinct terms, summed over the batches. */
  terms: number;
}

const hottestOf = (map: Map<string, number>): [string, number] =>
  [...map].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
export const hottestTerm = (tally: IngestTally) => hottestOf(tally.byTerm);
export const hottestIndex = (tally: IngestTally) => hottestOf(tally.byIndex);

/** Replays the synthetic collection's creates in batches of `batch`; returns each size's tally. */
export function replayIngest(sizes: readonly number[], batch: number): Map<number, IngestTally> {
  const last = Math.max(...sizes);
  const wcu = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
  const tails = new Map<string, ReturnType<typeof planTail>['next']>();
  const pages = new Map<string, Record<string, number>>();
  const window = new Map<number, IngestTally>();
  const timestamp = '2026-01-01T00:00:00.000Z';

  function indexBatch(ids: number[]) {
    const measuring = sizes
      .map((s) => ({ s, from: s - Math.max(batch, Math.floor(s / 10)) + 1 }))
      .find(({ s, from }) => (ids[0] ?? 0) >= from && (ids.at(-1) ?? 0) <= s);
    const byTerm = new Map<string, BlockPosting[]>();
    let index = 0;
    for (const id of ids) {
      const indexed = analyze(syntheticItem(id, timestamp));
      const doc = { pk: `D#${id}`, sk: 'IDX', ...stored(indexed), rev: 2 };
      // Write-ahead (the doc record with its pending state), then the commit's Put inside a transaction.
      index += wcu(
        size({ ...doc, pending: [stored(indexed)], leaseOwner: 'x'.repeat(36), leaseUntil: 1e12 }),
      );
      index += 2 * wcu(size(doc));
      for (const posting of postingsOf(id, indexed).values()) {
        const list = byTerm.get(posting.term) ?? [];
        list.push({ id, tf: posting.tf, dl: posting.dl });
        byTerm.set(posting.term, list);
      }
    }
    const commits = Math.ceil(ids.length / 99);
    index += 2 * commits; // STATS, once a commit transaction
    // Requests: the items and doc records read (100 keys a call), the write-ahead Put of each doc, the tails read,
    // one write per term, the commits.
    const requests =
      2 * Math.ceil(ids.length / 100) + ids.length + Math.ceil(byTerm.size / 100) + byTerm.size + commits;
    const termCost = new Map<string, number>();
    const indexCost = new Map<string, number>();
    for (const [term, add] of byTerm) {
      const tail = tails.get(term);
      const { sealed, next } = planTail(tail, { add, remove: new Set() }, BLOCK_CAPACITY);
      const [oldItem, newItem] = [tail && tailItem(term, tail), tailItem(term, next)];
      const oldTail = oldItem ? size(oldItem) : 0;
      const newTail = size(newItem);
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
      // The dictionary's index writes, by the meter's rules over infra/table.json's indexes.
      for (const { key, units } of indexWrites(oldItem && entryOfRecord(oldItem), entryOfRecord(newItem))) {
        indexCost.set(key, (indexCost.get(key) ?? 0) + units);
        index += units;
      }
      tails.set(term, next);
      termCost.set(term, cost);
      index += cost;
    }
    if (!measuring) return;
    const tally = window.get(measuring.s) ?? {
      items: 0,
      batches: 0,
      wcu: 0,
      requests: 0,
      byTerm: new Map(),
      byIndex: new Map(),
      statsTransactions: 0,
      terms: 0,
    };
    tally.items += ids.length;
    tally.batches++;
    tally.wcu += index;
    tally.requests += requests;
    tally.statsTransactions += commits;
    tally.terms += byTerm.size;
    for (const [term, cost] of termCost) tally.byTerm.set(term, (tally.byTerm.get(term) ?? 0) + cost);
    for (const [key, cost] of indexCost) tally.byIndex.set(key, (tally.byIndex.get(key) ?? 0) + cost);
    window.set(measuring.s, tally);
  }

  let pending: number[] = [];
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
  const rows = SIZES.map((s) => {
    const tally = window.get(s);
    if (!tally) return `| ${s.toLocaleString('en')} | — | — | — | — |`;
    const [term, hottest] = hottestTerm(tally);
    const [key, index] = hottestIndex(tally);
    return `| ${s.toLocaleString('en')} | ${tally.items.toLocaleString('en')} | ${(tally.wcu / tally.items).toFixed(2)} | ${(hottest / tally.items).toFixed(3)} (\`T#${term}\`) | ${(index / tally.items).toFixed(3)} (\`${key}\`) |`;
  });
  const first = window.get(SIZES[0] ?? 0);
  const last = window.get(Math.max(...SIZES));
  console.log(`Write model, batches of ${BATCH} (${((Date.now() - started) / 1000).toFixed(0)} s):\n`);
  console.log(
    '| items | new items measured (the last before the size) | index WCU per new item | hottest partition key, WCU per new item | hottest dictionary index partition, WCU per new item |',
  );
  console.log('|---|---|---|---|---|');
  console.log(rows.join('\n'));
  if (first && last)
    console.log(
      `\nWCU per new item at ${Math.max(...SIZES).toLocaleString('en')} ÷ at ${(SIZES[0] ?? 0).toLocaleString('en')}: ${(last.wcu / last.items / (first.wcu / first.items)).toFixed(2)}`,
    );
}
