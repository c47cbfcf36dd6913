import * as v from 'valibot';
import type { Indexer } from './indexer.ts';

export type Outcome = 'unchanged' | 'indexed' | 'removed';

/** A stored record that does not parse: retrying cannot fix it. */
export const isDataError = (error: unknown) => error instanceof v.ValiError || error instanceof SyntaxError;

/** Runs `task` on each of `ids` (duplicates once), at most `concurrency` at a time; all settle before it rejects. */
export async function eachBounded<T>(
  ids: readonly number[],
  concurrency: number,
  task: (id: number) => Promise<T>,
): Promise<{ done: Map<number, T>; failed: { id: number; error: unknown }[] }> {
  const queue = [...new Set(ids)];
  const done = new Map<number, T>();
  const failed: { id: number; error: unknown }[] = [];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        done.set(id, await task(id));
      } catch (error) {
        failed.push({ id, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return { done, failed };
}

/**
 * `reindexItems` for an indexer that only rebuilds one item at a time: each item with `reindexItem`, a few at a time.
 * Throws the first failure once every item has settled (the others are then indexed; a retry finds them unchanged).
 */
export async function reindexEach(
  indexer: Pick<Indexer, 'reindexItem'>,
  ids: readonly number[],
  concurrency = 4,
): Promise<Map<number, Outcome>> {
  const { done, failed } = await eachBounded(ids, concurrency, (id) => indexer.reindexItem(id));
  if (failed[0]) throw failed[0].error;
  return done;
}

export interface BatchResult {
  outcomes: Map<number, Outcome>;
  /** Items whose stored record is invalid: not indexed, and no retry can change that. */
  invalid: { id: number; error: unknown }[];
  /** Items that failed for another reason (a retry may succeed). */
  failed: { id: number; error: unknown }[];
}

/**
 * Brings the index up to date for `ids` as one batch (`reindexItems`). If the batch fails, its items are taken one
 * by one (`reindexItem`), so one item that cannot be indexed neither holds up the others nor hides which one it is.
 */
export async function reindexBatch(
  indexer: Indexer,
  ids: readonly number[],
  concurrency = 4,
): Promise<BatchResult> {
  if (ids.length === 0) return { outcomes: new Map(), invalid: [], failed: [] };
  try {
    return { outcomes: await indexer.reindexItems(ids), invalid: [], failed: [] };
  } catch {
    const { done, failed } = await eachBounded(ids, concurrency, (id) => indexer.reindexItem(id));
    return {
      outcomes: done,
      invalid: failed.filter(({ error }) => isDataError(error)),
      failed: failed.filter(({ error }) => !isDataError(error)),
    };
  }
}
