// `npm run bench:write-model`: the index's write units per new item as the collection grows, the writer's pure steps
// replayed in memory and costed by AWS's rules (method: BENCHMARKS.md); each size's last 10 % of items. With
// BENCH_MODEL_COLLECTION=cranfield: Cranfield's 1,400 items, all of them, in stream batches of each size of
// BENCH_MODEL_BATCHES, and where their write units go.
import { randomUUID } from 'node:crypto';
import type { Item } from '../../lib/items/schema.ts';
import { BLOCK_CAPACITY, type BlockPosting } from '../../lib/search/format/blocks.ts';
import { docKey, pageEntry, pageSk, tailKey, termPk } from '../../lib/search/format/keys.ts';
import { isExactForm, tokenize } from '../../lib/search/text/tokenizer.ts';
import { analyze, EMPTY, stored, writeAhead } from '../../lib/search/write/indexer.ts';
import { planTail, postingsOf, sealedItem, tailItem } from '../../lib/search/write/postings.ts';
import { entryOfRecord, indexWrites, recordBytes as size } from './capacity.ts';
import { envNumber, envSizes } from './common.ts';
import { cranfieldItems, loadCranfield } from './cranfield.ts';
import { syntheticItem } from './synthetic.ts';

/**
 * Where a new item's write units go: its doc record (the write-ahead Put and its share of the commit transaction),
 * the counts (a part once a commit), the tails of its stems and of its exact forms written alone, the sealing
 * transactions (tail, blocks and directory page), and the dictionary's index writes for a term's birth and for its df
 * class's changes.
 */
const KINDS = ['docs', 'counts', 'tails', 'exactTails', 'seals', 'births', 'classes'] as const;
type Kind = (typeof KINDS)[number];

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
  byKind: Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>,
  /** A what-if, not a layout: the WCU had each exact form's tail been carried in its stem's tail record. */
  formsAtHome: 0,
});
type IngestTally = ReturnType<typeof newTally>;
const add = (map: Map<string, number>, key: string, units: number) =>
  map.set(key, (map.get(key) ?? 0) + units);
const hottestOf = (map: Map<string, number>): [string, number] =>
  [...map].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
export const hottestTerm = (tally: IngestTally) => hottestOf(tally.byTerm);
export const hottestIndex = (tally: IngestTally) => hottestOf(tally.byIndex);

interface Replay {
  /** The item created with each id (ids from 1, in order). */
  itemOf?: (id: number) => Item;
  /** Measure every item up to each size, not its last 10 %. */
  whole?: boolean;
}

/**
 * Replays a collection's creates (the synthetic one unless told) in batches of `batch` (a list: the batches' sizes in
 * turn, its last repeated); each size's tally.
 */
export function replayIngest(
  sizes: readonly number[],
  batch: number | readonly number[],
  { itemOf = (id) => syntheticItem(id, '2026-01-01T00:00:00.000Z'), whole = false }: Replay = {},
): Map<number, IngestTally> {
  const wcu = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
  const cuts = typeof batch === 'number' ? [batch] : batch;
  const tails = new Map<string, ReturnType<typeof planTail>['next']>();
  const pages = new Map<string, Record<string, number>>();
  const window = new Map<number, IngestTally>();
  const formsOf = new Map<string, Set<string>>();

  function indexBatch(ids: number[]) {
    const measuring = sizes.find(
      (s) =>
        (whole || (ids[0] ?? 0) >= s - Math.max(...cuts, Math.floor(s / 10)) + 1) && (ids.at(-1) ?? 0) <= s,
    );
    const byTerm = new Map<string, BlockPosting[]>();
    const tally = newTally();
    for (const id of ids) {
      const indexed = analyze(itemOf(id));
      const doc = { ...docKey(id), ...stored(indexed), rev: 2 };
      // The write-ahead Put (the doc record as the writer writes it: nothing committed, its target pending, a
      // lease), then the commit's Put in a transaction.
      const lease = { leaseOwner: randomUUID(), leaseUntil: Date.now() + 90_000 };
      const pending = { ...docKey(id), ...writeAhead(EMPTY, [indexed], lease), rev: 1 };
      tally.byKind.docs += wcu(size(pending)) + 2 * wcu(size(doc));
      for (const { term, tf, dl } of postingsOf(id, indexed).values()) {
        const list = byTerm.get(term) ?? [];
        byTerm.set(term, list);
        list.push({ id, tf, dl });
      }
    }
    // The what-if: one record a stem, every exact form's tail inside (formsOf: the forms seen so far, by stem);
    // written as a transaction when any list seals.
    const homes = new Map<string, { before: number; after: number; sealing: boolean }>();
    const touched = new Set<string>();
    let ownTails = 0;
    const commits = Math.ceil(ids.length / 99);
    tally.byKind.counts += 2 * commits; // once a commit transaction
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
      ownTails += cost;
      const home = isExactForm(term) ? (tokenize(term.slice(1))[0] ?? term) : term;
      touched.add(term);
      if (isExactForm(term)) formsOf.set(home, (formsOf.get(home) ?? new Set()).add(term));
      const keyBytes = isExactForm(term) ? size(tailKey(term)) : 0;
      const merged = homes.get(home) ?? { before: 0, after: 0, sealing: false };
      merged.before += oldItem ? size(oldItem) - keyBytes : 0;
      merged.after += size(newItem) - keyBytes;
      merged.sealing ||= sealed.length > 0;
      homes.set(home, merged);
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
        tally.byKind[oldItem ? 'classes' : 'births'] += write.units;
      }
      tails.set(term, next);
      add(tally.byTerm, term, cost);
      tally.byKind[sealed.length > 0 ? 'seals' : isExactForm(term) ? 'exactTails' : 'tails'] += cost;
    }
    tally.wcu = KINDS.reduce((units, kind) => units + tally.byKind[kind], 0);
    tally.formsAtHome = tally.wcu - ownTails;
    for (const [home, { before, after, sealing }] of homes) {
      // The home record carries every form of its stem, those this batch does not touch as they are.
      let untouched = 0;
      for (const form of formsOf.get(home) ?? []) {
        const tail = touched.has(form) ? undefined : tails.get(form);
        if (tail) untouched += size(tailItem(form, tail)) - size(tailKey(form));
      }
      tally.formsAtHome += (sealing ? 2 : 1) * wcu(Math.max(before, after) + untouched);
    }
    if (measuring === undefined) return;
    const total = window.get(measuring) ?? newTally();
    total.items += ids.length;
    total.batches++;
    total.wcu += tally.wcu;
    total.formsAtHome += tally.formsAtHome;
    total.requests += tally.requests;
    total.statsTransactions += commits;
    total.terms += byTerm.size;
    for (const [term, cost] of tally.byTerm) add(total.byTerm, term, cost);
    for (const [key, cost] of tally.byIndex) add(total.byIndex, key, cost);
    for (const kind of KINDS) total.byKind[kind] += tally.byKind[kind];
    window.set(measuring, total);
  }

  let [pending, sent]: [number[], number] = [[], 0];
  const last = Math.max(...sizes);
  for (let id = 1; id <= last; id++) {
    pending.push(id);
    if (
      pending.length === (cuts[Math.min(sent, cuts.length - 1)] ?? 1) ||
      sizes.includes(id) ||
      id === last
    ) {
      indexBatch(pending);
      [pending, sent] = [[], sent + 1];
    }
  }
  return window;
}

const en = (n: number) => n.toLocaleString('en');
const perItem = (tally: IngestTally, units: number, digits: number) => (units / tally.items).toFixed(digits);

function printGrowth() {
  const SIZES = envSizes('BENCH_MODEL_SIZES', '1000,10000,100000');
  const BATCH = envNumber('BENCH_MODEL_BATCH', 1000);
  const started = Date.now();
  const window = replayIngest(SIZES, BATCH);
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

/** Cranfield's items created in id order, in stream batches of each size: a new item's write units, by kind. */
async function printCranfield() {
  const { docs } = await loadCranfield();
  const itemOf = cranfieldItems(docs);
  // A size, or the sizes of the batches in turn (`1000+300+100`: as bench:ingest prints the stream's cut).
  const batches = (process.env.BENCH_MODEL_BATCHES ?? '1,10,25,100,350,500,700,1000,1400')
    .split(',')
    .map((entry) => entry.split('+').map(Number));
  console.log(`Write model, Cranfield's ${en(docs.length)} items, WCU per new item:\n`);
  console.log(
    `| stream batch size | batches | index WCU per new item | ${KINDS.join(' | ')} | what-if: exact forms' tails in their stems' records |`,
  );
  console.log(`|---|---|---|${KINDS.map(() => '---|').join('')}---|`);
  for (const batch of batches) {
    const tally = replayIngest([docs.length], batch, { itemOf, whole: true }).get(docs.length);
    if (!tally) throw new Error('the write model measured nothing');
    const kinds = KINDS.map((kind) => perItem(tally, tally.byKind[kind], 2)).join(' | ');
    console.log(
      `| ${batch.map(en).join(' + ')} | ${tally.batches} | ${perItem(tally, tally.wcu, 2)} | ${kinds} | ${perItem(tally, tally.formsAtHome, 2)} |`,
    );
  }
}

if (import.meta.main) {
  if (process.env.BENCH_MODEL_COLLECTION === 'cranfield') await printCranfield();
  else printGrowth();
}
