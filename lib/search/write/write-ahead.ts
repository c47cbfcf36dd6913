import { mapLimit } from '../../concurrency.ts';
import { inGroups } from '../../dynamodb/write-groups.ts';
import type { PassState, Plan, WriterContext } from './context.ts';
import { writeAhead } from './doc-record.ts';
import { writeDoc, writeDocsTogether } from './lease.ts';

/** A doc record to write: its plan (`id`, `rev`) and the fields it gets. */
interface DocWrite {
  plan: Plan;
  fields: Record<string, unknown>;
}

/**
 * Each doc record written (lease.ts `writeDoc`), whether it landed, in order: in transactions of up to
 * `ctx.writesPerTransaction` (write-groups.ts says why), a write each when 1. A transaction that a moved doc record
 * cancelled lands nothing, and its records go again one by one, to learn which moved.
 */
async function writeDocs(ctx: WriterContext, docs: DocWrite[]): Promise<boolean[]> {
  const alone = ({ plan, fields }: DocWrite) => writeDoc(ctx, plan, fields);
  if (ctx.writesPerTransaction <= 1) return mapLimit(docs, ctx.concurrency, alone);
  const taken = await inGroups(
    docs,
    ctx.writesPerTransaction,
    (doc) => [doc.fields],
    async (group) =>
      (await writeDocsTogether(ctx, group)) ? group.map(() => true) : mapLimit(group, ctx.concurrency, alone),
  );
  return taken.flat();
}

/**
 * Step 1 of a pass, the write-ahead: takes each item's lease and records its target in its doc record as `pending`
 * (an unfinished rebuild's targets stay instead, until it is rolled back). An item whose doc record moved since it
 * was read (another writer took it) is left for later; the pass holds the others.
 */
export async function takeLeases(ctx: WriterContext, pass: PassState, plans: Plan[]): Promise<void> {
  const { fields } = pass.lease;
  const taken = await writeDocs(
    ctx,
    plans.map((plan) => ({
      plan,
      fields: writeAhead(
        plan.committed,
        plan.unfinished.length > 0 ? plan.unfinished : [plan.target],
        fields,
      ),
    })),
  );
  pass.leased = plans.filter((plan, i) => {
    if (!taken[i]) pass.again.push(plan.id);
    return taken[i];
  });
}
