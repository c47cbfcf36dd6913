import type { RetrieveResponse } from './schema.ts';

/**
 * How long a warm container serves a query's kept answer before it reads the answer's items again: an item's fields,
 * and a delete, show within this (the time the counts and the dictionary are kept: FIRST_READS_CACHE_MS). The items
 * unchanged (each at the version the answer holds), the answer stands; any other, the query is ranked again.
 */
export const ANSWER_CACHE_MS = 1_000;
/**
 * How long a ranking is kept at most, however long its stamp holds. Every change to what a query reads moves its
 * stamp (query.ts `stampOf`), so this only bounds what an unforeseen change could hide.
 */
export const ANSWER_RANKING_MS = 60_000;
/**
 * Results kept at most, over all the kept answers: an item is at most ~17,500 characters (contract §2), so ~40 MB of
 * the function's 1,024 at worst, a few MB for typical items.
 */
export const ANSWER_CACHE_RESULTS = 1_000;

type Entry = { rankedAt: number; checkedAt: number; stamp: string; response: RetrieveResponse };

/** A kept answer: `checked` unless its items are ANSWER_CACHE_MS old, when they must be read again first. */
export type KeptAnswer = { response: RetrieveResponse; checked: boolean };

/**
 * A container's answers, least recently used first. An answer is served again only under the stamp it was ranked
 * under (the same index version, the same home version of each term), for `rankingMs` at most, and its items are read
 * again each `ms` (`checked`); `limit` bounds the results held.
 */
export class AnswerCache {
  readonly #entries = new Map<string, Entry>();
  readonly #options: { ms: number; rankingMs: number; limit: number; now: () => number };
  /** The results the entries hold. */
  #size = 0;

  constructor({
    ms = ANSWER_CACHE_MS,
    rankingMs = ANSWER_RANKING_MS,
    limit = ANSWER_CACHE_RESULTS,
    now = Date.now,
  } = {}) {
    this.#options = { ms, rankingMs, limit, now };
  }

  /** The answer kept under `key` and `stamp`, if its ranking is younger than `rankingMs`. */
  get(key: string, stamp: string): KeptAnswer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#drop(key);
    const now = this.#options.now();
    if (entry.stamp !== stamp || now - entry.rankedAt >= this.#options.rankingMs) return undefined;
    this.#put(key, entry);
    return { response: entry.response, checked: now - entry.checkedAt < this.#options.ms };
  }

  /** Keeps `response`, ranked under `stamp`, as the answer to `key`. */
  keep(key: string, stamp: string, response: RetrieveResponse): void {
    const now = this.#options.now();
    this.#drop(key);
    this.#put(key, { rankedAt: now, checkedAt: now, stamp, response });
    for (const [oldest] of this.#entries) {
      if (this.#size <= this.#options.limit) break;
      this.#drop(oldest);
    }
  }

  /** Notes that the items of the answer to `key` were read again and found unchanged. */
  checked(key: string): void {
    const entry = this.#entries.get(key);
    if (entry) entry.checkedAt = this.#options.now();
  }

  #put(key: string, entry: Entry) {
    this.#entries.set(key, entry);
    this.#size += sizeOf(entry);
  }

  #drop(key: string) {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#size -= sizeOf(entry);
  }
}

const sizeOf = (entry: Entry) => Math.max(1, entry.response.results.length);
