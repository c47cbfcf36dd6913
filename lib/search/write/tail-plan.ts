import {
  BLOCK_CAPACITY,
  type BlockPosting,
  blockMax,
  type DirectoryEntry,
  edit,
  sealTail,
  tailDirectoryLimit,
} from '../format/blocks.ts';
import { pageEntry, pageSk } from '../format/keys.ts';
import type { Sealed, Tail } from './term-records.ts';

/** A tail's directory after `entries` set (a bound) or removed (undefined); undefined once it lists too many. */
export function relisted(
  listed: readonly DirectoryEntry[] | undefined,
  entries: ReadonlyMap<number, number | undefined> | readonly DirectoryEntry[],
  capacity: number,
): DirectoryEntry[] | undefined {
  if (listed === undefined) return undefined;
  const byEnd = new Map(listed);
  for (const [end, max] of entries)
    if (max === undefined) byEnd.delete(end);
    else byEnd.set(end, max);
  return byEnd.size <= tailDirectoryLimit(capacity) ? [...byEnd].sort((a, b) => a[0] - b[0]) : undefined;
}

/**
 * The pure step of a tail write (the writer sends it): what `tail` (undefined: none yet)
 * becomes with `change`, and the full blocks it seals from its oldest postings (sealTail), with exact maxima.
 */
export function planTail(
  tail: Tail | undefined,
  change: { add: readonly BlockPosting[]; remove: ReadonlySet<number> },
  capacity = BLOCK_CAPACITY,
) {
  const result = edit(tail?.postings ?? [], change.add, change.remove);
  const chunks = sealTail(result.postings, capacity);
  const kept = chunks.pop() ?? [];
  const sealed: Sealed[] = chunks.map((chunk, i) => ({
    // The first sealed block follows the last one there (the tail's lo), each next one the block before it.
    after: i === 0 ? (tail?.lo ?? 0) : (chunks[i - 1]?.at(-1)?.id ?? 0),
    end: chunk.at(-1)?.id ?? 0,
    postings: chunk,
    m: blockMax(chunk),
    v: 1,
  }));
  const next: Tail = {
    postings: kept,
    df: (tail?.df ?? 0) + result.added - result.removed,
    lo: sealed.at(-1)?.end ?? tail?.lo ?? 0,
    // A bound that only rises while the tail keeps its postings; exact again when it seals.
    m: sealed.length > 0 ? blockMax(kept) : Math.max(tail?.m ?? 0, blockMax(kept)),
    v: (tail?.v ?? 0) + 1,
    directory: relisted(
      tail === undefined || tail.lo === 0 ? [] : tail.directory,
      sealed.map((block): DirectoryEntry => [block.end, block.m]),
      capacity,
    ),
  };
  return { result, sealed, next };
}

/** A tail write as `planTail` plans it. */
export type PlannedTail = ReturnType<typeof planTail>;

/**
 * The records of a term whose postings are appended in id order from an empty index, whatever the batches: full
 * blocks sealed from the oldest (sealTail), the rest in the tail, each sealed block's maximum in its directory page.
 * What the writer produces for appends, computed at once (write/bulk.ts loads a collection with it).
 */
export function appendedTerm(
  postings: readonly BlockPosting[],
  capacity = BLOCK_CAPACITY,
): { tail: Tail; sealed: Sealed[]; pages: Map<string, Record<string, number>> } {
  const { sealed, next } = planTail(undefined, { add: postings, remove: new Set() }, capacity);
  const pages = new Map<string, Record<string, number>>();
  for (const block of sealed) {
    const page = pages.get(pageSk(block.end)) ?? {};
    page[pageEntry(block.end)] = block.m;
    pages.set(pageSk(block.end), page);
  }
  // Its version as after one write per posting (items indexed one at a time).
  return { tail: { ...next, v: postings.length }, sealed, pages };
}
