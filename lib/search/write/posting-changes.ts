import type { PassState, WriterContext } from './context.ts';
import type { Indexed } from './doc-record.ts';
import { renewLease } from './lease.ts';
import { type Posting, postingsOf } from './norms.ts';

/** The postings of an indexed state. */
export const postingList = (id: number, state: Indexed): Posting[] => [...postingsOf(id, state).values()];

/** The postings of `state` that `other` does not have as they are (another tf or dl counts as another). */
export const without = (id: number, state: Indexed, other: Indexed): Posting[] => {
  const keep = postingsOf(id, other);
  return [...postingsOf(id, state)]
    .filter(([term, p]) => keep.get(term)?.tf !== p.tf || keep.get(term)?.dl !== p.dl)
    .map(([, p]) => p);
};

/**
 * The postings a rebuild from `committed` to `target` (its norm and tfs chosen by `postingTarget`) writes (`add`)
 * and takes out (`remove`). A target that keeps the committed norm keeps each posting whose tf is unchanged as it
 * is: every posting written carries its state's norm, so its length is that norm. An edit that keeps the norm so
 * writes only the terms whose tf rose; a compaction, or an edit past twice the norm, rewrites them all
 * (docs/index-format.md, "norm").
 */
export const changes = (id: number, committed: Indexed, target: Indexed) => {
  if (target.norm !== committed.norm)
    return { add: without(id, target, committed), remove: without(id, committed, target) };
  const changed = (state: Indexed, other: Indexed) => {
    const kept = postingsOf(id, other);
    return [...postingsOf(id, state).values()].filter((p) => kept.get(p.term)?.tf !== p.tf);
  };
  return { add: changed(target, committed), remove: changed(committed, target) };
};

/**
 * Step 3 of a pass: the postings of every item it holds, the whole batch grouped by term, so a term an item keeps
 * moves within one write of its term and the item stays findable by it throughout.
 */
export async function writePostings(ctx: WriterContext, pass: PassState): Promise<void> {
  const planned = pass.leased.map((p) => changes(p.id, p.committed, p.target));
  await applyHeld(ctx, pass, {
    add: planned.flatMap((p) => p.add),
    remove: planned.flatMap((p) => p.remove),
  });
}

/**
 * Writes postings under the pass's lease: before each write its fence, and its renewal once due (beside the writes);
 * resolves once the last renewal has landed or failed, so none is left in flight after the step.
 */
export async function applyHeld(
  ctx: WriterContext,
  pass: PassState,
  change: { add: Posting[]; remove: Posting[] },
): Promise<void> {
  const { lease } = pass;
  const guards = {
    fence: () => {
      lease.fence();
      lease.keepUp((until) => renewLease(ctx, { owner: lease.owner, until, fence: lease.fence }));
    },
    rewrites: () => {
      pass.rewrote = true;
    },
  };
  try {
    await ctx.postings.apply(change, guards);
  } finally {
    await lease.settled();
  }
}
