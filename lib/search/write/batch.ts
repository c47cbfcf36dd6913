import { mapLimit } from '../../concurrency.ts';
import type { Indexer, IndexOutcome } from './indexer.ts';

export type Outcome = Exclude<IndexOutcome, 'invalid'>;

/** Runs `task` on each of `ids` (duplicates once), at most `concurrency` at a time, collecting failures apart. */
export async function eachBounded<T>(
  ids: readonly number[],
  concurrency: number,
  task: (id: number) => Promise<T>,
): Promise<{ done: Map<number, T>; failed: { id: number; error: unknown }[] }> {
  const done = new Map<number, T>();
  const failed: { id: number; error: unknown }[] = [];
  await mapLimit([...new Set(ids)], concurrency, async (id) => {
    try {
      done.set(id, await task(id));
    } catch (error) {
      failed.push({ id, error });
    }
  });
  return { done, failed };
}

export interface BatchResult {
  outcomes: Map<number, Outcome>;
  /** Items whose stored record is invalid: not indexed, and no retry can change that. */
  invalid: { id: number; error: unknown }[];
  /** Items that failed for another reason (a retry may succeed). */
  failed: { id: number; error: unknown }[];
  /** The batch failed as one and its items were indexed one by one. */
  split: boolean;
}

/**
 * Brings the index up to date for `ids` as one batch (`reindexItems`, by `deadline` if given: the items it had no
 * time for are failed, for a retry). If the batch fails, its items are taken one by one (`reindexItem`,
 * `concurrency` at once), so one item that cannot be indexed neither holds up the others nor hides which one it is.
 */
export async function reindexBatch(
  indexer: Indexer,
  ids: readonly number[],
  { concurrency = 4, deadline }: { concurrency?: number; deadline?: number | undefined } = {},
): Promise<BatchResult> {
  if (ids.length === 0) return { outcomes: new Map(), invalid: [], failed: [], split: false };
  const { all, failed, split } = await indexer.reindexItems(ids, { deadline }).then(
    (done) => ({ all: done, failed: [], split: false }),
    async () => {
      const each = await eachBounded(ids, concurrency, (id) => indexer.reindexItem(id));
      return { all: each.done, failed: each.failed, split: true };
    },
  );
  const outcomes = new Map<number, Outcome>();
  const invalid: { id: number; error: unknown }[] = [];
  for (const [id, outcome] of all) {
    if (outcome === 'invalid')
      invalid.push({ id, error: new Error(`the stored record of item ${id} is invalid`) });
    else outcomes.set(id, outcome);
  }
  const late = split ? [] : [...new Set(ids)].filter((id) => !all.has(id));
  const noTime = late.map((id) => ({ id, error: new Error(`no time was left to index item ${id}`) }));
  return { outcomes, invalid, failed: [...failed, ...noTime], split };
}
