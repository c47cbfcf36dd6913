import type { PostingColumns } from '../format/blocks.ts';

/** Sealed blocks a container keeps at most: a decoded block is ~4.6 KB (192 postings, three columns of doubles). */
export const BLOCK_CACHE_BLOCKS = 5_000;
/**
 * How long after a container first sees a sealed version a block it reads is kept only until then: an eventually
 * consistent read made right after a commit may return the block as it was before it, and kept for good it would
 * hide the commit's change until the next one; read later, it is the committed one (DynamoDB's replicas agree
 * within about a second). The same as the counts are kept (FIRST_READS_CACHE_MS).
 */
export const BLOCK_SETTLE_MS = 1_000;

/** A sealed block as the directory lists it: its term, key, the end of the block before it, its end and bound. */
export interface ListedBlock {
  term: string;
  sk: string;
  after: number;
  to: number;
  max: number;
}

type Entry = { columns: PostingColumns; max: number; keptUntil: number };

/**
 * The sealed blocks a container has read, kept while the sealed version it reads holds: the counts' `sealed`, which
 * the commit of every pass that changed a sealed block already there moves (term-store.ts `Guards`; a new block, sealed
 * from a tail, has a key no block had). A kept block is used only while the directory still lists it as it was read:
 * the same bound, and every posting within its range (a block that overflows is split, its upper half keeping its
 * end: a copy kept from before would hold the lower half's postings too; a piece scores a block's postings only
 * within the block's range, and the check keeps the cache from relying on that).
 */
export class BlockCache {
  /** In order of use, the least recently used first. */
  readonly #entries = new Map<string, Entry>();
  readonly #options: { limit: number; settleMs: number; now: () => number };
  /** The sealed version the entries were read under, and when this container first saw it. */
  readonly #version = { sealed: Number.NaN, since: 0 };

  constructor({ limit = BLOCK_CACHE_BLOCKS, settleMs = BLOCK_SETTLE_MS, now = Date.now } = {}) {
    this.#options = { limit, settleMs, now };
  }

  /** The cache's clock: a read is timed by it (`keep`'s `readAt`). */
  now(): number {
    return this.#options.now();
  }

  /** The sealed version a query read: a new one empties the cache. */
  observe(sealed: number): void {
    if (sealed === this.#version.sealed) return;
    this.#entries.clear();
    this.#version.sealed = sealed;
    this.#version.since = this.#options.now();
  }

  /** The postings of `block` as kept, while usable. */
  get(block: ListedBlock): PostingColumns | undefined {
    const key = keyOf(block);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    const { ids, length } = entry.columns;
    const within = length === 0 || ((ids[0] ?? 0) > block.after && (ids[length - 1] ?? 0) <= block.to);
    if (entry.max !== block.max || !within || this.#options.now() >= entry.keptUntil) return undefined;
    this.#entries.set(key, entry);
    return entry.columns;
  }

  /** Keeps `columns`, read from `block` by a read begun at `readAt`. */
  keep(block: ListedBlock, columns: PostingColumns, readAt: number): void {
    const settled = this.#version.since + this.#options.settleMs;
    const keptUntil = readAt < settled ? settled : Number.POSITIVE_INFINITY;
    const key = keyOf(block);
    this.#entries.delete(key);
    this.#entries.set(key, { columns, max: block.max, keptUntil });
    for (const [oldest] of this.#entries) {
      if (this.#entries.size <= this.#options.limit) break;
      this.#entries.delete(oldest);
    }
  }
}

const keyOf = (block: ListedBlock) => `${block.term}\u0000${block.sk}`;
