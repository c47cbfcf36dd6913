// Id allocation without one counter write per create: each container leases a block of ids from the counter with one
// atomic ADD and hands them out from memory. Ids stay unique (two leases never overlap: each ADD returns its own
// range) and are never reused (the counter only grows); ids a container leased but did not use are gaps, as an id
// taken by a create that then failed always was.

/** Leases `size` ids: adds `size` to the counter and returns its new value, so the ids are value − size + 1 … value. */
export type LeaseIds = (size: number) => Promise<number>;

export interface IdAllocatorOptions {
  /** The largest lease (ids); the first is 1, so a container that creates one item burns no ids. */
  maxLease?: number;
  /** A lease used up within this many milliseconds doubles the next one; one that lasted longer halves it. */
  fastMs?: number;
  now?: () => number;
}

/** The size of the next lease, from the last one's size and how long its ids lasted (a pure step). */
export function nextLeaseSize(
  last: number,
  lastedMs: number,
  { maxLease = 100, fastMs = 1000 } = {},
): number {
  return lastedMs <= fastMs ? Math.min(maxLease, last * 2) : Math.max(1, Math.floor(last / 2));
}

/** The ids a container holds: the lease in use (`next` … `last`), its size and when it was taken. */
class IdLease {
  #next = 1;
  #last = 0;
  #size = 0;
  #leasedAt = 0;
  /** The lease being taken, shared by every caller that ran out meanwhile (one lease at a time). */
  #pending: Promise<void> | undefined;
  readonly #lease: LeaseIds;
  readonly #options: IdAllocatorOptions;
  readonly #now: () => number;

  constructor(lease: LeaseIds, options: IdAllocatorOptions) {
    this.#lease = lease;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The next id, leasing a new block first when this one is used up. */
  async take(): Promise<number> {
    while (this.#next > this.#last) {
      this.#pending ??= this.#refill().finally(() => {
        this.#pending = undefined;
      });
      await this.#pending;
    }
    const id = this.#next;
    this.#next += 1;
    return id;
  }

  async #refill(): Promise<void> {
    this.#size =
      this.#size === 0 ? 1 : nextLeaseSize(this.#size, this.#now() - this.#leasedAt, this.#options);
    const size = this.#size;
    const top = await this.#lease(size);
    if (!Number.isSafeInteger(top) || top < size) throw new RangeError(`id counter out of range: ${top}`);
    this.#next = top - size + 1;
    this.#last = top;
    this.#leasedAt = this.#now();
  }
}

/** Hands out ids from leased blocks; safe for concurrent callers within the process (one lease at a time). */
export function createIdAllocator(lease: LeaseIds, options: IdAllocatorOptions = {}): () => Promise<number> {
  const ids = new IdLease(lease, options);
  return () => ids.take();
}
