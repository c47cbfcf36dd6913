// `npm run bench:write-model`: the index's write units per new item as the collection grows, the writer's pure steps
// replayed in memory and costed by AWS's rules (method: BENCHMARKS.md); each size's last 10 % of items. With
// BENCH_MODEL_COLLECTION=cranfield: Cranfield's 1,400 items, all of them, in stream batches of each size of
// BENCH_MODEL_BATCHES, and where their write units go.
import { randomUUID } from 'node:crypto';
import type { Item } from '../../lib/items/schema.ts';
import { BLOCK_CAPACITY, type BlockPosting } from '../../lib/search/format/blocks.ts';
import { docKey, homeOf, pageEntry, pageSk, termPk } from '../../lib/search/format/keys.ts';
import { isExactForm } from '../../lib/search/text/tokenizer.ts';
import { analyze, EMPTY, stored, writeAhead } from '../../lib/search/write/indexer.ts';
import {
  homeItem,
  planTail,
  postingsOf,
  sealedItem,
  type Tail,
  tailItem,
} from '../../lib/search/write/postings.ts';
import { entryOfRecord, indexWrites, recordBytes as size } from './capacity.ts';
import { envNumber, envSizes } from './common.ts';
import { cranfieldItems, loadCranfield } from './cranfield.ts';
import { syntheticItem } from './synthetic.ts';

/**
 * Where a new item's write units go: its doc record (the write-ahead Put and its share of the commit transaction),
 * the counts (a part once a commit), the home records (a stem's tail with its exact forms') written alone, the
 * sealing transactions (home record, blocks and directory pages), and the dictionary's index writes for a term's
 * birth and for its df class's changes.
 */
const KINDS = ['docs', 'counts', 'homes', 'seals', 'births', 'classes'] as const;
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
  const tails = new Map<string, Tail>();
  const pages = new Map<string, Record<string, number>>();
  const window = new Map<number, IngestTally>();
  /** The terms of each home (keys.ts homeOf: its stem and its exact forms) seen so far. */
  const termsOf = new Map<string, Set<string>>();
  /** A home record's bytes as the writer puts it, its tails as they are now (0 while it has none). */
  const homeBytes = (home: string) => {
    const held = new Map<string, Tail>();
    for (const term of termsOf.get(home) ?? []) {
      const tail = tails.get(term);
      if (tail) held.set(term, tail);
    }
    return held.size > 0 ? size(homeItem(home, held, 1)) : 0;
  };

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
    const commits = Math.ceil(ids.length / 99);
    tally.byKind.counts += 2 * commits; // once a commit transaction
    // Each home record the batch touches (keys.ts homeOf: a stem's tail with its forms'), as it was before.
    const touched = new Map(
      [...new Set([...byTerm.keys()].map(homeOf))].map((home) => [
        home,
        { before: homeBytes(home), sealing: false },
      ]),
    );
    // The items and doc records read (100 keys a call), each doc's write-ahead Put, the homes read, a write a home,
    // the commits.
    tally.requests =
      2 * Math.ceil(ids.length / 100) + ids.length + Math.ceil(touched.size / 100) + touched.size + commits;
    for (const [term, postings] of byTerm) {
      const tail = tails.get(term);
      const { sealed, next } = planTail(tail, { add: postings, remove: new Set() }, BLOCK_CAPACITY);
      const home = touched.get(homeOf(term));
      if (home) home.sealing ||= sealed.length > 0;
      // A sealing write is a transaction: the home record, the sealed blocks and one Update a directory page.
      let cost = 0;
      for (const block of sealed) cost += 2 * wcu(size(sealedItem(term, block)));
      for (const [sk, blocks] of Map.groupBy(sealed, (block) => pageSk(block.end))) {
        const key = `${term}\u0000${sk}`;
        const page = pages.get(key) ?? {};
        const before = Object.keys(page).length > 0 ? size({ pk: termPk(term), sk, ...page }) : 0;
        for (const block of blocks) page[pageEntry(block.end)] = block.m;
        pages.set(key, page);
        cost += 2 * wcu(Math.max(before, size({ pk: termPk(term), sk, ...page })));
      }
      if (!isExactForm(term))
        for (const write of indexWrites(
          tail && entryOfRecord(tailItem(term, tail)),
          entryOfRecord(tailItem(term, next)),
        )) {
          add(tally.byIndex, write.key, write.units);
          tally.byKind[tail ? 'classes' : 'births'] += write.units;
        }
      tails.set(term, next);
      termsOf.set(homeOf(term), (termsOf.get(homeOf(term)) ?? new Set()).add(term));
      add(tally.byTerm, term, cost);
      tally.byKind.seals += cost;
    }
    // One write a home record, a transaction when any of its tails seals.
    for (const [home, { before, sealing }] of touched) {
      const cost = (sealing ? 2 : 1) * wcu(Math.max(before, homeBytes(home)));
      add(tally.byTerm, home, cost);
      tally.byKind[sealing ? 'seals' : 'homes'] += cost;
    }
    tally.wcu = KINDS.reduce((units, kind) => units + tally.byKind[kind], 0);
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
  console.log(`| stream batch size | batches | index WCU per new item | ${KINDS.join(' | ')} |`);
  console.log(`|---|---|---|${KINDS.map(() => '---|').join('')}`);
  for (const batch of batches) {
    const tally = replayIngest([docs.length], batch, { itemOf, whole: true }).get(docs.length);
    if (!tally) throw new Error('the write model measured nothing');
    const kinds = KINDS.map((kind) => perItem(tally, tally.byKind[kind], 2)).join(' | ');
    console.log(
      `| ${batch.map(en).join(' + ')} | ${tally.batches} | ${perItem(tally, tally.wcu, 2)} | ${kinds} |`,
    );
  }
}

/**
 * BENCH_MODEL_COMPACTION: the records a compaction of the shrunk set rewrites (indexer.ts `compact`: every posting of
 * its items, grouped by record), an item, for sets of each size drawn at random from a collection of each size (the
 * synthetic one, or Cranfield's): an item's postings are in its stem's home record while in a term's tail (its
 * last df mod 192 postings), else in one sealed block of 192. A record is about one write unit; the doc records' 3
 * come on top. Seeded: the same figures every run.
 */
async function printCompaction() {
  const sets = envSizes('BENCH_MODEL_COMPACTION', '1,256,1024');
  const cranfield = process.env.BENCH_MODEL_COLLECTION === 'cranfield';
  const docs = cranfield ? (await loadCranfield()).docs : [];
  const itemOf = cranfield
    ? cranfieldItems(docs)
    : (id: number) => syntheticItem(id, '2026-01-01T00:00:00.000Z');
  const sizes = cranfield ? [docs.length] : envSizes('BENCH_MODEL_SIZES', '1000,10000,100000');
  console.log('| items | shrunk set | records rewritten an item (each about 1 WCU) |\n|---|---|---|');
  for (const size of sizes) {
    const termsOf: string[][] = [];
    const lists = new Map<string, number[]>();
    for (let id = 1; id <= size; id++) {
      termsOf[id] = [...postingsOf(id, analyze(itemOf(id))).keys()];
      for (const term of termsOf[id] ?? []) lists.get(term)?.push(id) ?? lists.set(term, [id]);
    }
    const recordOf = (term: string, id: number) => {
      const list = lists.get(term) ?? [];
      // The lists are in id order: the item's place by bisection.
      let [at, high] = [0, list.length];
      while (at < high) {
        const middle = (at + high) >>> 1;
        if ((list[middle] ?? 0) < id) at = middle + 1;
        else high = middle;
      }
      return at < list.length - (list.length % BLOCK_CAPACITY)
        ? `${term} ${Math.floor(at / BLOCK_CAPACITY)}`
        : homeOf(term);
    };
    let seed = 7;
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return (seed - 1) / 2_147_483_646;
    };
    for (const set of sets.filter((n) => n <= size)) {
      const [rounds, records] = [5, new Set<string>()];
      let total = 0;
      for (let round = 0; round < rounds; round++, records.clear()) {
        const ids = new Set<number>();
        while (ids.size < set) ids.add(1 + Math.floor(random() * size));
        for (const id of ids) for (const term of termsOf[id] ?? []) records.add(recordOf(term, id));
        total += records.size;
      }
      console.log(`| ${en(size)} | ${en(set)} | ${(total / rounds / set).toFixed(1)} |`);
    }
  }
}

if (import.meta.main) {
  if (process.env.BENCH_MODEL_COMPACTION) await printCompaction();
  else if (process.env.BENCH_MODEL_COLLECTION === 'cranfield') await printCranfield();
  else printGrowth();
}
