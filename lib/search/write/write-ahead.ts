import { mapLimit } from '../../concurrency.ts';
import type { PassState, Plan, WriterContext } from './context.ts';
import { writeAhead } from './doc-record.ts';
import { writeDoc } from './lease.ts';

/**
 * Step 1 of a pass, the write-ahead: takes each item's lease and records its target in its doc record as `pending`
 * (an unfinished rebuild's targets stay instead, until it is rolled back). An item whose doc record moved since it
 * was read (another writer took it) is left for later; the pass holds the others.
 */
export async function takeLeases(ctx: WriterContext, pass: PassState, plans: Plan[]): Promise<void> {
  const { fields } = pass.lease;
  const taken = await mapLimit(plans, ctx.concurrency, (plan) =>
    writeDoc(
      ctx,
      plan,
      writeAhead(plan.committed, plan.unfinished.length > 0 ? plan.unfinished : [plan.target], fields),
    ),
  );
  pass.leased = plans.filter((plan, i) => {
    if (!taken[i]) pass.again.push(plan.id);
    return taken[i];
  });
}
