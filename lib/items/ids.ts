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

/** Hands out ids from leased blocks; safe for concurrent callers within the process (one lease at a time). */
export function createIdAllocator(lease: LeaseIds, options: IdAllocatorOptions = {}) {
  const now = options.now ?? Date.now;
  let next = 1;
  let last = 0;
  let size = 0;
  let leasedAt = 0;
  let pending: Promise<void> | undefined;

  async function refill(): Promise<void> {
    size = size === 0 ? 1 : nextLeaseSize(size, now() - leasedAt, options);
    const top = await lease(size);
    if (!Number.isSafeInteger(top) || top < size) throw new RangeError(`id counter out of range: ${top}`);
    next = top - size + 1;
    last = top;
    leasedAt = now();
  }

  return async function nextId(): Promise<number> {
    while (next > last) {
      pending ??= refill().finally(() => {
        pending = undefined;
      });
      await pending;
    }
    const id = next;
    next += 1;
    return id;
  };
}
