import type { RetrieveResponse } from './schema.ts';

/**
 * How long a warm container serves a query's answer again (the same request, the same terms, the same `stamp`:
 * query.ts `stampOf`). A new posting moves its tail's home version, and a query reads tails afresh every
 * TAIL_READS_CACHE_MS, so a new item is found as soon as without this; what the stamp does not see (an item's fields,
 * a delete before its commit, a sealed block's change before its pass commits) waits at most this long: the time
 * the counts and the dictionary are kept (FIRST_READS_CACHE_MS), within the contract's 2 s with the stream's own
 * delay (bench:capacity's freshness model). Kept, a popular query costs its terms' keys a ranking a container this
 * often in a quiet index, and at each read of its tails that finds one changed (bench:capacity, the read path).
 */
export const ANSWER_CACHE_MS = 1_000;
/**
 * Results kept at most, over all the kept answers: an item is at most ~17,500 characters (contract §2), so ~40 MB of
 * the function's 1,024 at worst, a few MB for typical items.
 */
export const ANSWER_CACHE_RESULTS = 1_000;

type Entry = { at: number; stamp: string; response: RetrieveResponse };

/**
 * A container's answers, least recently used first: an answer is served again only under the stamp it was ranked
 * under, and for `ms` at most; `limit` bounds the results held.
 */
export class AnswerCache {
  readonly #entries = new Map<string, Entry>();
  readonly #options: { ms: number; limit: number; now: () => number };
  /** The results the entries hold. */
  #size = 0;

  constructor({ ms = ANSWER_CACHE_MS, limit = ANSWER_CACHE_RESULTS, now = Date.now } = {}) {
    this.#options = { ms, limit, now };
  }

  /** The answer kept under `key` and `stamp`, if it is younger than `ms`. */
  get(key: string, stamp: string): RetrieveResponse | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#drop(key);
    if (entry.stamp !== stamp || this.#options.now() - entry.at >= this.#options.ms) return undefined;
    this.#put(key, entry);
    return entry.response;
  }

  /** Keeps `response`, ranked under `stamp`, as the answer to `key`. */
  keep(key: string, stamp: string, response: RetrieveResponse): void {
    this.#drop(key);
    this.#put(key, { at: this.#options.now(), stamp, response });
    for (const [oldest] of this.#entries) {
      if (this.#size <= this.#options.limit) break;
      this.#drop(oldest);
    }
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
