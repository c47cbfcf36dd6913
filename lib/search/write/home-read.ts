import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import { decodeBlock, decodeDirectory } from '../format/blocks.ts';
import {
  endOfSealedSk,
  FORMS_ATTRIBUTE,
  formInHome,
  pageOf,
  sealedPagePk,
  sealedSk,
  tailKey,
  termOfPk,
} from '../format/keys.ts';
import type { Sealed, Tail } from './term-records.ts';
import { LostRace, type TermStore } from './term-store.ts';

/**
 * A home record as a writer read it (keys.ts `homeOf`): its version (undefined while it does not exist), its stem's
 * own attributes (undefined while the stem has no tail) and its forms' entries as stored, and the tails of the terms
 * a batch changes that it holds. The writer keeps it up to date as its own writes move the record on.
 */
export interface Home {
  v: number | undefined;
  own: Record<string, unknown> | undefined;
  forms: Record<string, unknown>;
  tails: Map<string, Tail>;
}

const number = (value: unknown, what: string): number => {
  if (typeof value !== 'number') throw new Error(`Malformed index record: ${what}`);
  return value;
};
const parseTail = (item: Record<string, unknown>): Tail => {
  const lo = number(item.lo, 'tail lo');
  return {
    postings: decodeBlock(item.p),
    df: number(item.df, 'tail df'),
    lo,
    m: number(item.m, 'tail m'),
    v: number(item.v, 'tail v'),
    directory: lo === 0 ? [] : item.d instanceof Uint8Array ? decodeDirectory(item.d) : undefined,
  };
};
const parseSealed = (item: Record<string, unknown>): Sealed => ({
  after: number(item.a, 'block a'),
  end: endOfSealedSk(item.sk) ?? 0,
  postings: decodeBlock(item.p),
  m: number(item.m, 'block m'),
  v: number(item.v, 'block v'),
});

/** A home as its record `row` (undefined: none) holds it, with the tails of `terms`. */
function homeOfRow(home: string, row: Record<string, unknown> | undefined, terms: readonly string[]): Home {
  const { pk: _pk, sk: _sk, v: _v, [FORMS_ATTRIBUTE]: forms, ...own } = row ?? {};
  const state: Home = {
    v: row ? number(row.v, 'tail v') : undefined,
    own: row && own.df !== undefined ? own : undefined,
    forms: forms && typeof forms === 'object' ? { ...(forms as Record<string, unknown>) } : {},
    tails: new Map(),
  };
  if (row && state.own) state.tails.set(home, parseTail(row));
  for (const term of terms) {
    if (term === home) continue;
    const entry = formInHome(row, term);
    if (entry) state.tails.set(term, parseTail(entry));
  }
  return state;
}

/** The home records of `homes` (each with the terms of it a batch changes), read consistently (100 keys a call). */
export async function readHomes(
  { client, tableName }: TermStore,
  homes: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, Home>> {
  const rows = await batchGet(client, tableName, [...homes.keys()].map(tailKey), {
    consistent: true,
    concurrency: 4,
  });
  const found = new Map(rows.map((row) => [termOfPk(row.pk) ?? '', row]));
  return new Map([...homes].map(([home, terms]) => [home, homeOfRow(home, found.get(home), terms)]));
}

/**
 * The sealed blocks covering `ids` (sorted, all at or below the tail's `lo`), read consistently. Ids close together
 * are read as a range: the blocks ending from the first id to the last (every page's key at once) and the first block
 * from the last id up, which covers it. Else, and for one id, the first block from each id up. So an edit of one item
 * reads its block, not every block above it. The reads are of several keys at several moments: the caller checks that
 * each block found covers its ids (its `after`, sealed-part.ts), and a block that changed since fails its
 * compare-and-swap.
 */
export async function covering(
  store: TermStore,
  term: string,
  ids: readonly number[],
  { lo, directory }: Pick<Tail, 'lo' | 'directory'>,
): Promise<Sealed[]> {
  const first = ids[0];
  const last = ids.at(-1);
  if (first === undefined || last === undefined) return [];
  const dense = ids.length > 1 && ids.length * store.blockCapacity >= (last - first) / 2;
  // A directory the tail lists says which page each id's block ends in: the read starts there, not at the id's own
  // page (a sparse term's block can end pages later). A listing that moved on since is caught as any race is.
  const pageFrom = (id: number) => pageOf(directory?.find(([end]) => end >= id)?.[0] ?? id);
  const from = (id: number) =>
    blockFrom(store, term, id, lo, pageFrom(id)).then((block) => (block ? [block] : []));
  const reads = dense ? [readRange(store, term, first, last), from(last)] : ids.map(from);
  const found = (await Promise.all(reads)).flat();
  const byEnd = new Map<number, Sealed>();
  for (const block of found) {
    if ((byEnd.get(block.end)?.v ?? block.v) !== block.v) throw new LostRace();
    byEnd.set(block.end, block);
  }
  return [...byEnd.values()].sort((a, b) => a.end - b.end);
}

/** The sealed block of `term` that ends first above `end` (up to `lo`), read consistently; undefined: none. */
export const blockAbove = (store: TermStore, term: string, end: number, lo: number) =>
  blockFrom(store, term, end + 1, lo);

/** A consistent Query of `term`'s sealed blocks in directory page `page` that end from `from` to `to`. */
const pageQuery = (tableName: string, term: string, page: number, from: number, to: number) => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
  ExpressionAttributeValues: {
    ':pk': sealedPagePk(term, page),
    ':from': sealedSk(from),
    ':to': sealedSk(to),
  },
  ConsistentRead: true,
});

/** The sealed blocks of `term` ending from `from` to `to`: each page's key, all at once. */
async function readRange({ client, tableName }: TermStore, term: string, from: number, to: number) {
  const pages = Array.from({ length: pageOf(to) - pageOf(from) + 1 }, (_, i) => pageOf(from) + i);
  const rows = await Promise.all(
    pages.map((page) => queryAll(client, pageQuery(tableName, term, page, from, to))),
  );
  return rows.flat().map(parseSealed);
}

/**
 * The first sealed block of `term` ending from `from` to `lo` (undefined: none): page by page, from `firstPage` (the
 * page of `from` unless a directory says a later one), until one has it.
 */
async function blockFrom(
  { client, tableName }: TermStore,
  term: string,
  from: number,
  lo: number,
  firstPage = pageOf(from),
) {
  for (let page = firstPage; page <= pageOf(lo); page++) {
    const input = { ...pageQuery(tableName, term, page, from, lo), Limit: 1 };
    const [row] = (await client.send(new QueryCommand(input))).Items ?? [];
    if (row) return parseSealed(row);
  }
  return undefined;
}
