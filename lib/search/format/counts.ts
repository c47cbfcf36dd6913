import * as v from 'valibot';
import { packTerms, StoredChange } from './terms.ts';

/** An item id as a sort key's digits: 16, zero-padded, so keys sort in id order. */
export const padId = (id: number): string => String(id).padStart(16, '0');

/**
 * The corpus counts' parts. Each commit adds its docs' counts to one part, chosen at random, in its transaction:
 * DynamoDB applies transactions on one item one at a time, so a single counts record touched by every commit would cap
 * the whole index's ingest (about 1 / (commits per item × a transaction's time): ~5,000 items/s), however many writers
 * run.
 */
export const STATS_SHARDS = 16;
/**
 * The *counts partitions* `STATS#0`…`STATS#3`: part k of the counts lives in partition k mod 4, a shrunk item's entry
 * in its id's. Every query reads them all (one Query each, charged by its bytes; a warm container keeps them:
 * first-reads.ts), so a full shrunk set (64 KB) costs each partition 2.5 read units a read rather than one partition
 * 8.5: kept 1 s, a partition stays under half its 3,000 RCU/s up to 600 busy containers (bench:capacity, the read
 * path), where one partition would reach it at 176. An empty set costs 2 read units a read rather than 0.5.
 */
export const STATS_PARTITIONS = 4;
const STATS_PREFIX = 'STATS#';
const STATS_SK = 'INDEX';
const statsPk = (partition: number) => `${STATS_PREFIX}${partition}`;
const PARTITIONS = Array.from({ length: STATS_PARTITIONS }, (_, partition) => statsPk(partition));
/** Whether a partition key is one of the counts partitions'. */
export const isStatsPk = (pk: unknown): boolean => typeof pk === 'string' && pk.startsWith(STATS_PREFIX);
/** A part's key: part 0's sort key is `INDEX` itself, part k's `INDEX#k`, in partition k mod STATS_PARTITIONS. */
export const statsKey = (part: number) => ({
  pk: statsPk(part % STATS_PARTITIONS),
  sk: part === 0 ? STATS_SK : `${STATS_SK}#${part}`,
});
/** A Query of each counts partition, its rows beginning with `sk` (all of them without). */
const partitionQueries = (tableName: string, consistent: boolean, sk?: string) =>
  PARTITIONS.map((pk) => ({
    TableName: tableName,
    KeyConditionExpression: sk ? 'pk = :pk AND begins_with(sk, :sk)' : 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk, ...(sk ? { ':sk': sk } : {}) },
    ConsistentRead: consistent,
  }));
/** Every part of the counts, a Query a partition (`consistent` for the operations that repair them). */
export const countsQueries = (tableName: string, consistent = false) =>
  partitionQueries(tableName, consistent, STATS_SK);
export interface Counts {
  docs: number;
  len: number;
  commits: number;
}
/** The counts, summed over the parts read. */
export const sumCounts = (parts: readonly Record<string, unknown>[]): Counts => {
  const sum = (name: string) =>
    parts.reduce((total, part) => total + (typeof part[name] === 'number' ? (part[name] as number) : 0), 0);
  return { docs: sum('docs'), len: sum('len'), commits: sum('commits') };
};

/**
 * The *shrunk set* (docs/index-format.md): an entry for each item its postings overstate, in length (its *norm*) or in
 * some terms' tfs (its *cut*; tf 0: a *ghost*). An edit that shortens an item keeps the postings it would lower, so the
 * set is what lets a reader score them as the item is: at its length and cut tfs, ghosts left out of the postings and
 * off the dfs, block bounds raised where a shrunk item lies (blocks.ts `raisedImpact`).
 */
const SHRUNK_PREFIX = 'S#';
/** The key of a shrunk item's entry: `STATS#<id mod 4> / S#<16-digit id>`. */
export const shrunkKey = (id: number) => ({
  pk: statsPk(id % STATS_PARTITIONS),
  sk: `${SHRUNK_PREFIX}${padId(id)}`,
});
/** An entry's stored fields: its length, its norm and, when not empty, its cut (packed as a term map: terms.ts). */
export const shrunkEntry = (entry: Omit<Shrunk, 'id'>) => ({
  dl: entry.dl,
  norm: entry.norm,
  ...(Object.keys(entry.cut).length > 0 ? { c: packTerms(entry.cut) } : {}),
});
/** The counts partitions whole (the counts' parts and the shrunk set), as the reader reads them: a Query each. */
export const statsQueries = (tableName: string, consistent = false) =>
  partitionQueries(tableName, consistent);
/** The shrunk set alone (a writer that compacts it), consistent, a Query a partition. */
export const shrunkQueries = (tableName: string) => partitionQueries(tableName, true, SHRUNK_PREFIX);
/**
 * A shrunk item: its committed length, the length its postings carry (at least as great), and its cut: the terms
 * whose postings carry a tf above the item's, each with the item's (0: none).
 */
export interface Shrunk {
  id: number;
  dl: number;
  norm: number;
  cut: Record<string, number>;
}
/** The shrunk set among rows of the counts partitions, in id order (an entry whose cut does not parse is left out). */
export const shrunkOf = (rows: readonly Record<string, unknown>[]): Shrunk[] =>
  rows
    .flatMap((row) => {
      const sk = String(row.sk);
      if (!isStatsPk(row.pk) || !sk.startsWith(SHRUNK_PREFIX)) return [];
      const [id, dl, norm] = [Number(sk.slice(SHRUNK_PREFIX.length)), Number(row.dl), Number(row.norm)];
      const cut =
        row.c === undefined ? { success: true as const, output: {} } : v.safeParse(StoredChange, row.c);
      return Number.isSafeInteger(id) && dl > 0 && norm > 0 && cut.success
        ? [{ id, dl, norm, cut: cut.output }]
        : [];
    })
    .sort((a, b) => a.id - b.id);
/** The shrunk set as a reader uses it: its entries in id order, and each term's ghosts (`ghostCounts`). */
export interface ShrunkSet {
  entries: Shrunk[];
  ghosts: ReadonlyMap<string, number>;
}
/** Whether a shrunk set's row is as it was: the same length, norm and packed cut. */
const sameEntry = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  a.dl === b.dl &&
  a.norm === b.norm &&
  (a.c instanceof Uint8Array && b.c instanceof Uint8Array
    ? Buffer.compare(a.c, b.c) === 0
    : a.c === undefined && b.c === undefined);

type Kept = { row: Record<string, unknown>; entry: Shrunk | undefined };

/**
 * The shrunk set for a reader that reads it again and again (a warm container's queries): an entry read as it was the
 * last time is not parsed again (a cut's brotli and validation: ~13 µs an entry, 3.3 ms a query for a set of 255),
 * and a set read as it was is the same set, its ghosts counted once. It keeps the entries of its last read only.
 */
class ShrunkSetReader {
  #last = new Map<string, Kept>();
  #set: ShrunkSet = { entries: [], ghosts: new Map() };

  read(rows: readonly Record<string, unknown>[]): ShrunkSet {
    const next = new Map<string, Kept>();
    let changed = false;
    for (const row of rows) {
      const sk = String(row.sk);
      if (!isStatsPk(row.pk) || !sk.startsWith(SHRUNK_PREFIX)) continue;
      const kept = this.#last.get(sk);
      const keep = kept !== undefined && sameEntry(kept.row, row);
      if (!keep) changed = true;
      next.set(sk, keep ? kept : { row, entry: shrunkOf([row])[0] });
    }
    if (changed || next.size !== this.#last.size) {
      const entries = [...next.values()]
        .flatMap(({ entry }) => (entry ? [entry] : []))
        .sort((a, b) => a.id - b.id);
      this.#set = { entries, ghosts: ghostCounts(entries) };
    }
    this.#last = next;
    return this.#set;
  }
}

/** A reader of the shrunk set among the counts partitions' rows (ShrunkSetReader), as a function. */
export function shrunkReader(): (rows: readonly Record<string, unknown>[]) => ShrunkSet {
  const reader = new ShrunkSetReader();
  return (rows) => reader.read(rows);
}

/**
 * About the bytes the shrunk set's rows take as DynamoDB sizes them (names and values: ~40 bytes an entry, and its
 * packed cut), what a Query of the set is charged by.
 */
export const shrunkBytes = (rows: readonly Record<string, unknown>[]): number =>
  rows.reduce((sum, row) => sum + 40 + (row.c instanceof Uint8Array ? row.c.byteLength : 0), 0);
/** Per term, the shrunk set's ghosts of it (postings of items that no longer hold it): what its df overstates. */
export function ghostCounts(shrunk: readonly Shrunk[]): Map<string, number> {
  const ghosts = new Map<string, number>();
  for (const { cut } of shrunk)
    for (const [term, tf] of Object.entries(cut)) if (tf === 0) ghosts.set(term, (ghosts.get(term) ?? 0) + 1);
  return ghosts;
}
/** The counts' parts among rows of the counts partitions. */
export const countParts = (rows: readonly Record<string, unknown>[]) =>
  rows.filter((row) => isStatsPk(row.pk) && String(row.sk).startsWith(STATS_SK));
