import { mapLimit } from '../../concurrency.ts';
import type { PassState, WriterContext } from './context.ts';
import { writeAhead } from './doc-record.ts';
import { writeDoc } from './lease.ts';
import { applyHeld, postingList, without } from './posting-changes.ts';

/**
 * Step 2 of a pass: an unfinished rebuild (a writer that died after its write-ahead) is rolled back: its postings go
 * and the committed ones are put back; only then is the new target recorded, so `pending` never holds more than one
 * state. An item whose doc record moved meanwhile is let go, for later.
 */
export async function rollBack(ctx: WriterContext, pass: PassState): Promise<void> {
  const recovering = pass.leased.filter((plan) => plan.unfinished.length > 0);
  if (recovering.length === 0) return;
  await applyHeld(ctx, pass, {
    add: recovering.flatMap((p) => postingList(p.id, p.committed)),
    remove: recovering.flatMap((p) => p.unfinished.flatMap((state) => without(p.id, state, p.committed))),
  });
  const recorded = await mapLimit(recovering, ctx.concurrency, (plan) =>
    writeDoc(ctx, plan, writeAhead(plan.committed, [plan.target], pass.lease.fields)),
  );
  const lost = new Set(recovering.filter((_, i) => !recorded[i]).map((plan) => plan.id));
  pass.leased = pass.leased.filter((plan) => !lost.has(plan.id));
  pass.again.push(...lost);
}
