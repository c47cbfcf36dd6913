import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import { decodeBlock, decodeDirectory } from '../format/blocks.ts';
import {
  endOfSealedSk,
  FORMS_ATTRIBUTE,
  formInHome,
  PAGE_IDS,
  pageOf,
  sealedPk,
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

/** The sealed blocks covering `ids` (sorted, all at or below the tail's `lo`), read consistently. */
export async function covering(
  store: TermStore,
  term: string,
  ids: readonly number[],
  lo: number,
): Promise<Sealed[]> {
  const first = ids[0];
  if (first === undefined) return [];
  // Many ids for the range: one read of the range; else one block per id. Any block that changed between these
  // reads fails its compare-and-swap, and the term is read again.
  const found =
    ids.length * store.blockCapacity >= ((ids.at(-1) ?? first) - first) / 2
      ? await readSealed(store, term, first, lo, undefined)
      : (await Promise.all(ids.map((id) => readSealed(store, term, id, lo, 1)))).flat();
  const byEnd = new Map<number, Sealed>();
  for (const block of found) {
    if ((byEnd.get(block.end)?.v ?? block.v) !== block.v) throw new LostRace();
    byEnd.set(block.end, block);
  }
  return [...byEnd.values()].sort((a, b) => a.end - b.end);
}

/** The sealed block of `term` that ends first above `end` (up to `lo`), read consistently; undefined: none. */
export async function blockAbove(store: TermStore, term: string, end: number, lo: number) {
  return (await readSealed(store, term, end + 1, lo, 1))[0];
}

/**
 * The sealed blocks of `term` ending from `from` to `lo`, the first `limit` of them (all when undefined): each
 * directory page's key in turn (keys.ts `sealedPk`), until `limit` are found.
 */
async function readSealed(
  { client, tableName }: TermStore,
  term: string,
  from: number,
  lo: number,
  limit: number | undefined,
): Promise<Sealed[]> {
  const found: Sealed[] = [];
  for (let page = pageOf(from); page <= pageOf(lo) && (limit === undefined || found.length < limit); page++) {
    const input = {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': sealedPk(term, page * PAGE_IDS),
        ':from': sealedSk(from),
        ':to': sealedSk(lo),
      },
      ConsistentRead: true,
    };
    const left = limit === undefined ? undefined : limit - found.length;
    const items = left
      ? ((await client.send(new QueryCommand({ ...input, Limit: left }))).Items ?? [])
      : await queryAll(client, input);
    found.push(...items.map(parseSealed));
  }
  return found;
}
