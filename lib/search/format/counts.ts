import * as v from 'valibot';
import { packTerms, StoredChange } from './terms.ts';

/** An item id as a sort key's digits: 16, zero-padded, so keys sort in id order. */
export const padId = (id: number): string => String(id).padStart(16, '0');

/**
 * The corpus counts' parts. Each commit adds its docs' counts to one part, chosen at random, in its transaction:
 * DynamoDB applies transactions on one item one at a time, so a single counts record touched by every commit would cap
 * the whole index's ingest (about 1 / (commits per item × a transaction's time): ~5,000 items/s), however many writers
 * run; parts in one partition are read together by one Query (charged by its bytes: half a read unit).
 */
export const STATS_PK = 'STATS';
export const STATS_SHARDS = 16;
const STATS_SK = 'INDEX';
/** A part's key: part 0's sort key is `INDEX` itself, part k's `INDEX#k`; one Query reads them all. */
export const statsKey = (part: number) => ({
  pk: STATS_PK,
  sk: part === 0 ? STATS_SK : `${STATS_SK}#${part}`,
});
/** Every part of the counts, in one Query (`consistent` for the operations that repair them). */
export const countsQuery = (tableName: string, consistent = false) => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
  ExpressionAttributeValues: { ':pk': STATS_PK, ':sk': STATS_SK },
  ConsistentRead: consistent,
});
/** The counts; `shrunkEntries`: the shrunk set's entries (each commit adds those it puts, less those it deletes). */
export interface Counts {
  docs: number;
  len: number;
  commits: number;
  shrunkEntries: number;
  /** The sealed blocks' version: moved by each commit of a pass that changed a sealed block already there. */
  sealed: number;
}
/** The name of a part's count of shrunk-set entries. */
export const SHRUNK_ENTRIES = 'shrunk';
/** The name of a part's count of commits that changed a sealed block already there. */
export const SEALED = 'sealed';
/** The counts, summed over the parts read. */
export const sumCounts = (parts: readonly Record<string, unknown>[]): Counts => {
  const sum = (name: string) =>
    parts.reduce((total, part) => total + (typeof part[name] === 'number' ? (part[name] as number) : 0), 0);
  return {
    docs: sum('docs'),
    len: sum('len'),
    commits: sum('commits'),
    shrunkEntries: sum(SHRUNK_ENTRIES),
    sealed: sum(SEALED),
  };
};

/**
 * The *shrunk set* (docs/index-format.md): an entry for each item its postings overstate, in length (its *norm*) or in
 * some terms' tfs (its *cut*; tf 0: a *ghost*). An edit that shortens an item keeps the postings it would lower, so the
 * set is what lets a reader score them as the item is: at its length and cut tfs, ghosts left out of the postings and
 * off the dfs, block bounds raised where a shrunk item lies (blocks.ts `raisedImpact`).
 */
const SHRUNK_PREFIX = 'S#';
/**
 * The shrunk set's partitions `SHRUNK#0`…`SHRUNK#3`, an entry in its id's (id mod 4). A query reads them only while
 * the counts say the set has entries (a Query each, side by side, charged by its bytes; a warm container keeps them:
 * first-reads.ts): a full set (64 KB) costs each 2 read units a read rather than one partition 8, so kept 1 s, each
 * stays under half its 3,000 RCU/s up to 750 busy containers (bench:capacity, the read path).
 */
export const SHRUNK_PARTITIONS = 4;
const SHRUNK_PK_PREFIX = 'SHRUNK#';
const shrunkPk = (partition: number) => `${SHRUNK_PK_PREFIX}${partition}`;
/** Whether a partition key is one of the shrunk set's. */
export const isShrunkPk = (pk: unknown): boolean => typeof pk === 'string' && pk.startsWith(SHRUNK_PK_PREFIX);
/** The key of a shrunk item's entry: `SHRUNK#<id mod 4> / S#<16-digit id>`. */
export const shrunkKey = (id: number) => ({
  pk: shrunkPk(id % SHRUNK_PARTITIONS),
  sk: `${SHRUNK_PREFIX}${padId(id)}`,
});
/** An entry's stored fields: its length, its norm and, when not empty, its cut (packed as a term map: terms.ts). */
export const shrunkEntry = (entry: Omit<Shrunk, 'id'>) => ({
  dl: entry.dl,
  norm: entry.norm,
  ...(Object.keys(entry.cut).length > 0 ? { c: packTerms(entry.cut) } : {}),
});
/** The shrunk set: a Query of each of its partitions (`consistent` for a writer that compacts it). */
export const shrunkQueries = (tableName: string, consistent = false) =>
  Array.from({ length: SHRUNK_PARTITIONS }, (_, partition) => ({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': shrunkPk(partition) },
    ConsistentRead: consistent,
  }));
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
/** The shrunk set among rows of its partitions, in id order (an entry whose cut does not parse is left out). */
export const shrunkOf = (rows: readonly Record<string, unknown>[]): Shrunk[] =>
  rows
    .flatMap((row) => {
      const sk = String(row.sk);
      if (!isShrunkPk(row.pk) || !sk.startsWith(SHRUNK_PREFIX)) return [];
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
      if (!isShrunkPk(row.pk) || !sk.startsWith(SHRUNK_PREFIX)) continue;
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

/** A reader of the shrunk set among its partitions' rows (ShrunkSetReader), as a function. */
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
/** The counts' parts among rows of the index. */
export const countParts = (rows: readonly Record<string, unknown>[]) =>
  rows.filter((row) => row.pk === STATS_PK && String(row.sk).startsWith(STATS_SK));
