import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import { decodeColumns, decodeDirectory, type PostingColumns } from '../format/blocks.ts';
import {
  type Counts,
  countParts,
  countsQuery,
  directoryEntries,
  directoryQuery,
  formInHome,
  homeOf,
  type ShrunkSet,
  shrunkQueries,
  shrunkReader,
  sumCounts,
  TAIL_SK,
  tailKey,
  termPk,
} from '../format/keys.ts';
import { isExactForm } from '../text/tokenizer.ts';
import { ReadCache } from './dictionary-cache.ts';

type Row = Record<string, unknown>;
/** A term's first read: its tail record, and its directory when read beside it. */
type TermRead = { tail: Row | undefined; entries?: [end: number, max: number][] };

/** What the query reads first: the corpus counts, and per term its tail and (unless listed there) directory. */
export interface FirstReads {
  /** The corpus counts, and the shrunk set (statsReader). */
  stats: Promise<Counts & { shrunk: ShrunkSet }>;
  terms: Map<string, Promise<TermRead>>;
}

/**
 * A query term as its first reads found it: its df, its tail's postings, its sealed blocks' ends and maxima, and the
 * version of the home its tail was read from.
 */
export interface FoundTerm {
  term: string;
  df: number;
  /** The home record's `v`: every change of the tail moves it (a kept answer is checked against it: answers.ts). */
  v: number;
  tail: { postings: PostingColumns; lo: number; m: number };
  entries: [end: number, max: number][];
}

/**
 * A read begun before its result is awaited: a rejection is the awaiting caller's to handle, and this only keeps one
 * left unawaited (the dictionary failed first) from being reported as unhandled.
 */
function observed<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** The table a query reads. */
interface Table {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** A term's directory: every page's entries. */
async function readDirectory({ client, tableName }: Table, term: string): Promise<[number, number][]> {
  return directoryEntries(await queryAll(client, directoryQuery(tableName, termPk(term))));
}

/**
 * A term's tail and directory pages in one Query (the tail's key, `K#~`, sorts right before the pages' `X#…`, and
 * nothing of the term's lies between): DynamoDB charges a Query by the bytes it returns, so the two cost one half
 * unit where a read of each cost one each.
 */
const tailAndDirectoryQuery = (tableName: string, term: string) => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND sk >= :tail',
  ExpressionAttributeValues: { ':pk': termPk(term), ':tail': TAIL_SK },
});
const tailAndDirectoryOf = (rows: readonly Row[]): TermRead => ({
  tail: rows.find((row) => row.sk === TAIL_SK),
  entries: directoryEntries(rows),
});

/**
 * How long a warm container reuses the counts and the shrunk set: 1 s, the dictionary's time (dictionary.ts
 * DICTIONARY_CACHE_MS). Every query reads them: kept, each is read by a container at most once a second whatever its
 * traffic (bench:capacity, the read path). They weigh a score, and never hide an item: kept, N is off by at most a
 * second's commits more (docs/search.md, counts and postings).
 */
export const FIRST_READS_CACHE_MS = 1_000;
/**
 * How long a warm container reuses a term's tail and directory: a new item's postings land in tails, so this is what
 * a kept read adds to the time until it is found (bench:capacity's freshness model: p99 findable within 1 s needs it
 * short); one term's tail is read by every query of that term, 4 times a second at most a container.
 */
export const TAIL_READS_CACHE_MS = 250;
/**
 * Records a container keeps at most, in each of its two caches (the counts and the set; the tails): ~10 MB each, 1 KB a
 * record or so.
 */
export const FIRST_READS_CACHE_RECORDS = 10_000;

export interface FirstReadsOptions {
  /** How long the counts and the shrunk set are reused (0: never). */
  cacheMs?: number;
  /** How long a term's tail and directory are reused (by default `cacheMs`). */
  tailCacheMs?: number;
  /** Records kept at most, by each of the two (a counts part, a shrunk-set entry; a tail, a directory page). */
  cacheRecords?: number;
  now?: () => number;
}

/** A Query of one partition, kept under its partition key. */
type KeptQuery = (
  input: QueryCommandInput & { ExpressionAttributeValues: { ':pk': string } },
) => Promise<Row[]>;

/**
 * The counts and the shrunk set as a query reads them: the counts by one Query, the set's partitions only while the
 * counts say it has entries, beside the counts once the last read found some: a set that stays empty costs no read,
 * one that has entries no second round trip.
 */
function statsReader(tableName: string, keptQuery: KeptQuery) {
  const readShrunk = shrunkReader();
  const last = { hadEntries: false };
  const readSet = () => observed(Promise.all(shrunkQueries(tableName).map(keptQuery)).then((p) => p.flat()));
  return async (): Promise<Counts & { shrunk: ShrunkSet }> => {
    const early = last.hadEntries ? readSet() : undefined;
    const counts = sumCounts(countParts(await keptQuery(countsQuery(tableName))));
    last.hadEntries = counts.shrunkEntries !== 0;
    const rows = last.hadEntries ? await (early ?? readSet()) : [];
    return { ...counts, shrunk: readShrunk(rows) };
  };
}

/**
 * A query's first reads over one table: the counts, the shrunk set (parsed once while it stays the same), tails; each
 * Query of the counts and the set kept `cacheMs` (FIRST_READS_CACHE_MS), of a tail `tailCacheMs`
 * (TAIL_READS_CACHE_MS).
 */
export function createFirstReads(
  client: DynamoDBDocumentClient,
  tableName: string,
  {
    cacheMs = 0,
    tailCacheMs = cacheMs,
    cacheRecords = FIRST_READS_CACHE_RECORDS,
    now = Date.now,
  }: FirstReadsOptions = {},
) {
  const table = { client, tableName };
  const keptIn =
    (kept: ReadCache): KeptQuery =>
    (input) =>
      kept.get(input.ExpressionAttributeValues[':pk'], () => queryAll(client, input));
  const readStats = statsReader(tableName, keptIn(new ReadCache({ ms: cacheMs, limit: cacheRecords, now })));
  const tailCache = new ReadCache({ ms: tailCacheMs, limit: cacheRecords, now });
  const tails = keptIn(tailCache);
  const termRead = (term: string) => tails(tailAndDirectoryQuery(tableName, term)).then(tailAndDirectoryOf);
  /**
   * Tails read by key, kept as the tails read by Query are (under their partition key, as the rows read): those not
   * kept are read together, by one BatchGetItem once every `get` has been asked.
   */
  const tailsByKey = (terms: readonly string[]): Map<string, Promise<Row | undefined>> => {
    const missing: string[] = [];
    const batch = Promise.resolve().then(() =>
      missing.length === 0 ? [] : batchGet(client, tableName, missing.map(tailKey)),
    );
    const read = (term: string) => async () => {
      missing.push(term);
      return (await batch).filter((row) => row.pk === termPk(term));
    };
    return new Map(
      terms.map((term) => [term, tailCache.get(termPk(term), read(term)).then((rows) => rows[0])]),
    );
  };
  /**
   * Starts the first reads: the counts, and the tail and directory of each of `terms` by one Query. The retriever
   * starts them for the words as written while the dictionary finds their alternatives (`SearchRequest.started`).
   */
  const start = (terms: Iterable<string>): FirstReads => ({
    stats: observed(readStats()),
    terms: new Map([...new Set(terms)].map((term) => [term, observed(termRead(term))])),
  });
  return {
    start,
    /** The first reads of `terms`, those `started` has not begun (by default none) begun now. */
    readTerms: (terms: readonly string[], small: ReadonlySet<string> = new Set(), started?: FirstReads) =>
      readTerms({ ...table, termRead, tailsByKey }, terms, small, started ?? start([])),
  };
}

/**
 * Corpus counts, tails and directories, read at once (what `started` has not begun): a term expected to have few
 * sealed blocks (`small`) its tail alone (with the others of its kind, by key), any other its tail and directory by
 * one Query. A tail that lists its directory is read with it (one record); a directory read before a seal the tail
 * shows, or not read beside a tail that does not list it, is read after it.
 */
async function readTerms(
  table: Table & {
    termRead: (term: string) => Promise<TermRead>;
    tailsByKey: (terms: readonly string[]) => Map<string, Promise<Row | undefined>>;
  },
  terms: readonly string[],
  small: ReadonlySet<string>,
  started: FirstReads,
) {
  const rest = terms.filter((term) => !started.terms.has(term));
  // An exact form's tail is in its home, its stem's tail record (keys.ts `homeOf`), which the search reads anyway
  // where it reads the stem; other homes are read by key with the small tails. The form's own key holds its
  // directory pages.
  const read = new Set([...started.terms.keys(), ...rest]);
  const homes = [...new Set(terms.filter(isExactForm).map(homeOf))].filter((home) => !read.has(home));
  const byKey = table.tailsByKey([...rest.filter((term) => small.has(term)), ...homes]);
  const tailByKey = (term: string) => observed(byKey.get(term) ?? Promise.resolve(undefined));
  const reads = new Map(started.terms);
  for (const term of rest)
    reads.set(term, small.has(term) ? tailByKey(term).then((tail) => ({ tail })) : table.termRead(term));
  /** A term's tail: a stem's own, a form's from its home. */
  const tailOf = async (term: string, own: Row | undefined) => {
    if (!isExactForm(term)) return own;
    const home = homeOf(term);
    const row = read.has(home) ? (await reads.get(home))?.tail : await tailByKey(home);
    return formInHome(row, term);
  };
  const [stats, found] = await Promise.all([
    started.stats,
    Promise.all(
      terms.map(async (term) => {
        const { tail: own, entries } = (await reads.get(term)) ?? { tail: undefined };
        return foundTerm(term, await tailOf(term, own), entries, () => readDirectory(table, term));
      }),
    ),
  ]);
  return { stats, found };
}

/**
 * A term as found, from its tail and the directory read beside it (undefined: no postings). The tail's copy of its
 * directory is used where it has one; a directory read before a seal the tail shows is read again.
 */
async function foundTerm(
  term: string,
  tail: Row | undefined,
  read: [number, number][] | undefined,
  readDirectory: () => Promise<[number, number][]>,
): Promise<FoundTerm | undefined> {
  if (!tail || typeof tail.df !== 'number' || tail.df <= 0) return undefined;
  const lo = Number(tail.lo ?? 0);
  const listed = lo > 0 && tail.d instanceof Uint8Array ? decodeDirectory(tail.d) : undefined;
  const known = listed ?? read ?? [];
  // The tail was read after a seal the directory missed (or alone): its blocks are below lo and unknown.
  const entries = !listed && lo > 0 && (known.at(-1)?.[0] ?? 0) < lo ? await readDirectory() : known;
  return {
    term,
    df: tail.df,
    v: Number(tail.v ?? 0),
    tail: { postings: decodeColumns(tail.p), lo, m: Number(tail.m ?? 1e6) },
    entries: entries.filter(([end]) => end <= lo),
  };
}
