/** What a ReadCache keeps reads for. */
interface CacheOptions {
  /** How long an entry is used whatever the version. */
  ms: number;
  /** Entries' sizes kept at most (a list counts its length, a df one). */
  limit: number;
  now: () => number;
  /** Reads kept past `ms` under the index's version (the dictionary's); without it, none is. */
  versioned?: {
    /** How long an entry read under a version is used (by a session) while that version is the current one. */
    ms: number;
    /** The version a read begun at `at` may be kept under, if any. */
    versionAt: (at: number) => number | undefined;
    /** The version last observed. */
    current: () => number | undefined;
  };
}

type Entry = { at: number; size: number; value: unknown; version: number | undefined };

/**
 * A least-recently-used cache of reads (the dictionary's, a query's first reads: first-reads.ts), each used `ms` at
 * most, or, with `versioned`, `versioned.ms` by a caller that collects the versions it relied on (`relied`) while the
 * entry's version is the current one; `limit` bounds what it holds. Concurrent requests for one key share its read; a failed read is not kept.
 */
export class ReadCache {
  readonly #options: CacheOptions;
  /** In order of use, the least recently used first. */
  readonly #entries = new Map<string, Entry>();
  /** The terms the entries hold. */
  #size = 0;

  constructor(options: CacheOptions) {
    this.#options = options;
  }

  /** The version a read begun now is kept under. */
  versionNow(): number | undefined {
    return this.#options.versioned?.versionAt(this.#options.now());
  }

  /** The read of `key`, from the cache while usable, else from `read` (and kept). */
  get<T extends readonly unknown[]>(key: string, read: () => Promise<T>, relied?: Set<number>): Promise<T> {
    const entry = this.#usable(key, relied);
    if (entry) return entry.value as Promise<T>;
    const at = this.#options.now();
    const pending = read();
    const kept = { at, size: 1, value: pending, version: this.#options.versioned?.versionAt(at) };
    this.#put(key, kept);
    pending.then(
      (value) => {
        if (this.#entries.get(key) === kept) this.#put(key, { ...kept, size: Math.max(1, value.length) });
      },
      () => {
        if (this.#entries.get(key) === kept) this.#drop(key);
      },
    );
    return pending;
  }

  /** A df kept under `key`, while usable. */
  peek(key: string, relied?: Set<number>): number | undefined {
    return this.#usable(key, relied)?.value as number | undefined;
  }

  /** Keeps a df read under `version`. */
  keep(key: string, value: number, version: number | undefined): void {
    this.#put(key, { at: this.#options.now(), size: 1, value, version });
  }

  #usable(key: string, relied: Set<number> | undefined): Entry | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#drop(key);
    const { ms, now, versioned } = this.#options;
    const age = now() - entry.at;
    if (age >= ms) {
      // Past `ms`, only a session may use it, and only under the current version (which it must then check).
      const current = versioned?.current();
      if (!relied || entry.version === undefined || entry.version !== current || age >= (versioned?.ms ?? 0))
        return;
      relied.add(entry.version);
    }
    // Moved to the end: the most recently used.
    return this.#put(key, entry);
  }

  #put(key: string, entry: Entry): Entry {
    if (this.#options.ms <= 0) return entry;
    if (this.#entries.has(key)) this.#drop(key);
    this.#entries.set(key, entry);
    this.#size += entry.size;
    for (const [oldest, kept] of this.#entries) {
      if (this.#size <= this.#options.limit) break;
      this.#entries.delete(oldest);
      this.#size -= kept.size;
    }
    return entry;
  }

  #drop(key: string): void {
    this.#size -= this.#entries.get(key)?.size ?? 0;
    this.#entries.delete(key);
  }
}

/** The index's version as queries observe it, and since when it has been seen. */
export class SeenVersion {
  #seen: { version: number; since: number } | undefined;
  readonly #now: () => number;
  readonly #settleMs: number;

  constructor(now: () => number, settleMs: number) {
    this.#now = now;
    this.#settleMs = settleMs;
  }

  observe(version: number): void {
    if (this.#seen?.version !== version) this.#seen = { version, since: this.#now() };
  }

  /** The version a read begun at `at` holds every committed term of: the one seen, once seen for settleMs. */
  at(at: number): number | undefined {
    return this.#seen && this.#seen.since <= at - this.#settleMs ? this.#seen.version : undefined;
  }

  current(): number | undefined {
    return this.#seen?.version;
  }
}
