import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import {
  DF_CLASS_ATTRIBUTE,
  isDictionaryEntry,
  LENGTH_INDEX,
  lengthPartition,
  PREFIX_INDEX,
  PREFIX_PARTITION_LENGTH,
  prefixPartition,
  reversed,
  tailKey,
  termOfPk,
} from '../format/keys.ts';

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
 * How long a warm container keeps what it read of the dictionary: 1 s. Contract §5: a write shows in results within
 * 2 s; a new term reaches prefix and typo expansion once the index has it (issue #19's target: 1 s after the write)
 * and the cached read it would be in is at most this old, so within those 2 s. What a container reads of the
 * dictionary is then bounded by the partitions it serves a second, whatever its request rate.
 */
export const DICTIONARY_CACHE_MS = 1_000;
/** Terms (and dfs) a container keeps at most: a few MB. The least recently used reads go first. */
export const DICTIONARY_CACHE_TERMS = 100_000;

export interface DictionaryOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** How long a read is reused (0: never). */
  cacheMs?: number;
  /** Terms kept at most. */
  cacheTerms?: number;
  now?: () => number;
}

/**
 * The dictionary on the table's two term indexes, its reads kept per container for `cacheMs` (a bounded LRU). Index
 * reads are eventually consistent (a term indexed a moment ago may be missing for that moment); the query reads each
 * chosen term's postings and df from the table itself. A term whose postings were all removed may keep its entry
 * (postings.ts), and is skipped by the reader of dfs; so are the head records of an index of layout 1 that a
 * migration has not removed yet (keys.ts).
 */
export function createDictionary({
  client,
  tableName,
  cacheMs = DICTIONARY_CACHE_MS,
  cacheTerms = DICTIONARY_CACHE_TERMS,
  now = Date.now,
}: DictionaryOptions): Dictionary {
  const cache = createCache(cacheMs, cacheTerms, now);

  /** A prefix partition's terms that begin with `prefix`. */
  async function withPrefixRows(partition: string, prefix: string) {
    const found = await queryAll(client, {
      TableName: tableName,
      IndexName: PREFIX_INDEX,
      KeyConditionExpression: 'wp = :k AND begins_with(wt, :w)',
      ExpressionAttributeValues: { ':k': partition, ':w': prefix },
      ProjectionExpression: `sk, wt, ${DF_CLASS_ATTRIBUTE}`,
    });
    const terms: ClassedTerm[] = [];
    for (const { sk, wt, [DF_CLASS_ATTRIBUTE]: dfClass } of found)
      if (typeof wt === 'string' && isDictionaryEntry({ sk }))
        terms.push({ term: wt, dfClass: typeof dfClass === 'number' ? dfClass : undefined });
    return terms;
  }

  /** A length partition's terms, or those of them that end with `ending`, in term order. */
  async function ofLengthRows(length: number, ending?: string) {
    const found = await queryAll(client, {
      TableName: tableName,
      IndexName: LENGTH_INDEX,
      KeyConditionExpression: ending === undefined ? 'wl = :k' : 'wl = :k AND begins_with(wr, :w)',
      ExpressionAttributeValues: {
        ':k': lengthPartition(length),
        ...(ending === undefined ? {} : { ':w': reversed(ending) }),
      },
      ProjectionExpression: 'sk, wr',
    });
    const terms: string[] = [];
    for (const { sk, wr } of found)
      if (typeof wr === 'string' && isDictionaryEntry({ sk })) terms.push(reversed(wr));
    return terms.sort(inTermOrder);
  }

  // Each term's tail holds its df (postings.ts).
  async function readDfs(terms: readonly string[]): Promise<Map<string, number>> {
    const records = await batchGet(client, tableName, terms.map(tailKey));
    const found = new Map(records.map(({ pk, df }) => [termOfPk(pk) ?? '', typeof df === 'number' ? df : 0]));
    return new Map(terms.map((term) => [term, found.get(term) ?? 0]));
  }

  return {
    withPrefix: async (word) => {
      if ([...word].length < PREFIX_PARTITION_LENGTH)
        throw new RangeError(`A prefix needs ${PREFIX_PARTITION_LENGTH} code points at least`);
      return cache.get(`P\u0000${word}`, () => withPrefixRows(prefixPartition(word), word));
    },
    ofLength: (length) => cache.get(`L\u0000${length}`, () => ofLengthRows(length)),
    endingWith: (length, ending) =>
      cache.get(`E\u0000${length}\u0000${ending}`, () => ofLengthRows(length, ending)),
    dfOf: async (terms) => {
      const known = new Map<string, number>();
      const missing: string[] = [];
      for (const term of new Set(terms)) {
        const df = cache.peek(`D\u0000${term}`);
        if (df === undefined) missing.push(term);
        else known.set(term, df);
      }
      if (missing.length > 0)
        for (const [term, df] of await readDfs(missing)) {
          known.set(term, df);
          cache.put(`D\u0000${term}`, df);
        }
      return new Map(terms.map((term) => [term, known.get(term) ?? 0]));
    },
  };
}

/**
 * A least-recently-used cache of reads, each kept `ms` at most; `limit` bounds the terms it holds (a list counts its
 * length, a df one). Concurrent requests for one key share its read; a failed read is not kept.
 */
function createCache(ms: number, limit: number, now: () => number) {
  const entries = new Map<string, { at: number; size: number; value: unknown }>();
  let size = 0;
  const fresh = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    entries.delete(key);
    size -= entry.size;
    if (now() - entry.at >= ms) return undefined;
    // Moved to the end: the most recently used.
    entries.set(key, entry);
    size += entry.size;
    return entry;
  };
  const put = (key: string, value: unknown, weight: number) => {
    if (ms <= 0) return;
    const old = entries.get(key);
    if (old) {
      entries.delete(key);
      size -= old.size;
    }
    entries.set(key, { at: now(), size: weight, value });
    size += weight;
    for (const [oldest, entry] of entries) {
      if (size <= limit) break;
      entries.delete(oldest);
      size -= entry.size;
    }
  };
  return {
    /** The read of `key`, from the cache while fresh, else from `read` (and kept). */
    get<T extends readonly unknown[]>(key: string, read: () => Promise<T>): Promise<T> {
      const entry = fresh(key);
      if (entry) return entry.value as Promise<T>;
      const pending = read();
      put(key, pending, 1);
      pending.then(
        (value) => {
          if (entries.get(key)?.value === pending) put(key, pending, Math.max(1, value.length));
        },
        () => {
          if (entries.get(key)?.value === pending) {
            size -= entries.get(key)?.size ?? 0;
            entries.delete(key);
          }
        },
      );
      return pending;
    },
    peek: (key: string) => fresh(key)?.value as number | undefined,
    put: (key: string, value: number) => put(key, value, 1),
  };
}
