import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import {
  DF_CLASS_ATTRIBUTE,
  dfClass,
  LENGTH_INDEX,
  lengthPartition,
  PREFIX_INDEX,
  PREFIX_PARTITION_LENGTH,
  prefixPartition,
  reversed,
  tailKey,
  termOfPk,
} from '../format/keys.ts';
import { ReadCache, SeenVersion } from './dictionary-cache.ts';

/** Term order: by UTF-16 code units, as the search ranks ties (DynamoDB orders by UTF-8 bytes). */
export const inTermOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A term of the dictionary with its df class (keys.ts `dfClass`); undefined when the index does not know it. */
export interface ClassedTerm {
  term: string;
  dfClass: number | undefined;
}

/** Reads the term dictionary (keys.ts: two indexes over each term's tail). */
export interface Dictionary {
  /**
   * Every indexed term that begins with `word` (at least PREFIX_PARTITION_LENGTH code points), in term order, with
   * its df class; a term whose class is not known (a df changed by a removal from a sealed block: postings.ts) may
   * have no postings left, and `dfOf` tells.
   */
  withPrefix(word: string): Promise<ClassedTerm[]>;
  /**
   * The terms of `length` code points, in term order: every indexed one, and perhaps terms whose postings are all
   * gone (a tail emptied by a removal from a sealed block keeps its entry at df 0); `dfOf` tells them apart.
   */
  ofLength(length: number): Promise<string[]>;
  /** The terms of `length` code points that end with `ending`, in term order (as `ofLength`). */
  endingWith(length: number, ending: string): Promise<string[]>;
  /** The df of each term (0 for a term with no postings). */
  dfOf(terms: readonly string[]): Promise<Map<string, number>>;
}

/**
 * How long a warm container keeps what it read of the dictionary whatever the index does: 1 s. Contract §5: a write
 * shows in results within 2 s; a new term reaches prefix and typo expansion once the index has it (about 1 s
 * after the write) and the cached read it would be in is at most this old, so within those 2 s.
 */
export const DICTIONARY_CACHE_MS = 1_000;
/**
 * How long a read is kept past DICTIONARY_CACHE_MS while the index's version (the counts' `commits`: keys.ts) stays
 * what it was when the read began (`session`): 10 minutes. Every change of the dictionary that the indexer makes is
 * written before a commit that changes the version; the bound covers those made outside a commit (the `--dictionary`
 * backfill, a batch's term births while it waits for its retry).
 */
export const DICTIONARY_VERSIONED_MS = 600_000;
/**
 * How long a version must have been seen before a read is kept under it: the dictionary's indexes follow the table
 * by a fraction of a second (a global secondary index's lag), and the counts are read eventually consistent, so a
 * read begun this long after a version was first seen holds every term committed up to it.
 */
export const DICTIONARY_SETTLE_MS = 2_000;
/** Terms (and dfs) a container keeps at most: a few MB. The least recently used reads go first. */
export const DICTIONARY_CACHE_TERMS = 100_000;

export interface DictionaryOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** How long a read is reused (0: never, nor under a version). */
  cacheMs?: number;
  /** How long a read is reused while the version it was read under holds. */
  versionedMs?: number;
  /** How long a version must have been seen before reads are kept under it. */
  settleMs?: number;
  /** Terms kept at most. */
  cacheTerms?: number;
  now?: () => number;
}

/**
 * A dictionary that a warm container keeps past `cacheMs` while the index does not change (DICTIONARY_VERSIONED_MS).
 * A query reads it through a `session`, which may answer from such a read and lists the versions it relied on; the
 * query reads the index's version anyway (the counts) and passes it to `observe`: a session that relied on another
 * version answered from a dictionary the index has left, and the query is made again.
 */
export interface VersionedDictionary extends Dictionary {
  session(): { dictionary: Dictionary; reliedOn: ReadonlySet<number> };
  /** The index's version (the sum of the counts' `commits`) as a query has just read it. */
  observe(version: number): void;
}

/** The table whose term indexes a dictionary reads. */
interface Table {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** A prefix partition's terms that begin with `prefix`. */
async function withPrefixRows({ client, tableName }: Table, partition: string, prefix: string) {
  const found = await queryAll(client, {
    TableName: tableName,
    IndexName: PREFIX_INDEX,
    KeyConditionExpression: 'wp = :k AND begins_with(wt, :w)',
    ExpressionAttributeValues: { ':k': partition, ':w': prefix },
    ProjectionExpression: `wt, ${DF_CLASS_ATTRIBUTE}`,
  });
  const terms: ClassedTerm[] = [];
  for (const { wt, [DF_CLASS_ATTRIBUTE]: dfClass } of found)
    if (typeof wt === 'string')
      terms.push({ term: wt, dfClass: typeof dfClass === 'number' ? dfClass : undefined });
  return terms;
}

/** A length partition's terms, or those of them that end with `ending`, in term order. */
async function ofLengthRows({ client, tableName }: Table, length: number, ending?: string) {
  const found = await queryAll(client, {
    TableName: tableName,
    IndexName: LENGTH_INDEX,
    KeyConditionExpression: ending === undefined ? 'wl = :k' : 'wl = :k AND begins_with(wr, :w)',
    ExpressionAttributeValues: {
      ':k': lengthPartition(length),
      ...(ending === undefined ? {} : { ':w': reversed(ending) }),
    },
    ProjectionExpression: 'wr',
  });
  const terms: string[] = [];
  for (const { wr } of found) if (typeof wr === 'string') terms.push(reversed(wr));
  return terms.sort(inTermOrder);
}

/** Each term's df, from its tail (postings.ts): 0 for a term with none. */
async function readDfs({ client, tableName }: Table, terms: readonly string[]): Promise<Map<string, number>> {
  const records = await batchGet(client, tableName, terms.map(tailKey));
  const found = new Map(records.map(({ pk, df }) => [termOfPk(pk) ?? '', typeof df === 'number' ? df : 0]));
  return new Map(terms.map((term) => [term, found.get(term) ?? 0]));
}

/** The dictionary's reads through `cache`; `relied` (a session's) collects the versions of reads older than its ms. */
function readerOf(table: Table, cache: ReadCache, relied?: Set<number>): Dictionary {
  return {
    withPrefix: async (word) => {
      if ([...word].length < PREFIX_PARTITION_LENGTH)
        throw new RangeError(`A prefix needs ${PREFIX_PARTITION_LENGTH} code points at least`);
      return cache.get(`P\u0000${word}`, () => withPrefixRows(table, prefixPartition(word), word), relied);
    },
    ofLength: (length) => cache.get(`L\u0000${length}`, () => ofLengthRows(table, length), relied),
    endingWith: (length, ending) =>
      cache.get(`E\u0000${length}\u0000${ending}`, () => ofLengthRows(table, length, ending), relied),
    dfOf: async (terms) => {
      const known = new Map<string, number>();
      const missing: string[] = [];
      for (const term of new Set(terms)) {
        const df = cache.peek(`D\u0000${term}`, relied);
        if (df === undefined) missing.push(term);
        else known.set(term, df);
      }
      if (missing.length > 0) {
        const version = cache.versionNow();
        for (const [term, df] of await readDfs(table, missing)) {
          known.set(term, df);
          cache.keep(`D\u0000${term}`, df, version);
        }
      }
      return new Map(terms.map((term) => [term, known.get(term) ?? 0]));
    },
  };
}

/**
 * The dictionary on the table's two term indexes, its reads kept per container (a bounded LRU) for `cacheMs`, and
 * in a `session` for as long as the index's version holds (VersionedDictionary). Index reads are eventually
 * consistent (a term indexed a moment ago may be missing for that moment); the query reads each chosen term's
 * postings and df from the table itself. A term whose postings were all removed may keep its entry (postings.ts), and
 * is skipped by the reader of dfs.
 */
export function createDictionary({
  client,
  tableName,
  cacheMs = DICTIONARY_CACHE_MS,
  versionedMs = DICTIONARY_VERSIONED_MS,
  settleMs = DICTIONARY_SETTLE_MS,
  cacheTerms = DICTIONARY_CACHE_TERMS,
  now = Date.now,
}: DictionaryOptions): VersionedDictionary {
  const table = { client, tableName };
  const seen = new SeenVersion(now, settleMs);
  const cache = new ReadCache({
    ms: cacheMs,
    limit: cacheTerms,
    now,
    versioned: { ms: versionedMs, versionAt: (at) => seen.at(at), current: () => seen.current() },
  });
  return {
    ...readerOf(table, cache),
    session: () => {
      const reliedOn = new Set<number>();
      return { dictionary: readerOf(table, cache, reliedOn), reliedOn };
    },
    observe: (version) => seen.observe(version),
  };
}

/**
 * `dictionary` as the shrunk set (keys.ts) leaves it: a term's df less its `ghosts` (postings of items that no longer
 * hold it), so that expansion ranks the terms by the postings that count, as the search weighs them. A completion
 * that has ghosts is read by `dfOf` (one read by key a term; ghosts are few): left out when none of its postings
 * counts, given its class otherwise.
 */
export function lessGhosts(dictionary: Dictionary, ghosts: Promise<ReadonlyMap<string, number>>): Dictionary {
  async function dfOf(terms: readonly string[]) {
    const [dfs, counted] = await Promise.all([dictionary.dfOf(terms), ghosts]);
    if (counted.size === 0) return dfs;
    return new Map([...dfs].map(([term, df]) => [term, Math.max(0, df - (counted.get(term) ?? 0))]));
  }
  return {
    async withPrefix(word) {
      const [terms, counted] = await Promise.all([dictionary.withPrefix(word), ghosts]);
      const ghosted = terms.filter(({ term }) => counted.has(term)).map(({ term }) => term);
      if (ghosted.length === 0) return terms;
      const dfs = await dfOf(ghosted);
      return terms.flatMap((entry) => {
        if (!counted.has(entry.term)) return [entry];
        const df = dfs.get(entry.term) ?? 0;
        return df > 0 ? [{ term: entry.term, dfClass: dfClass(df) }] : [];
      });
    },
    ofLength: (length) => dictionary.ofLength(length),
    endingWith: (length, ending) => dictionary.endingWith(length, ending),
    dfOf,
  };
}
