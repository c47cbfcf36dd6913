import { homeOf } from '../format/keys.ts';
import { commit } from './commit.ts';
import { type PassState, type Plan, type Run, timed, type WriterContext } from './context.ts';
import { Lease, LeaseRanOut, release } from './lease.ts';
import { planPass } from './plan.ts';
import { writePostings } from './posting-changes.ts';
import { rollBack } from './rollback.ts';
import { isShrunk } from './target.ts';
import { takeLeases } from './write-ahead.ts';

/** Each committed plan's outcome into the run, and the lost ones into the ids to try again. */
function settle(run: Run, pass: PassState, lost: ReadonlySet<number>) {
  for (const plan of pass.leased) {
    if (lost.has(plan.id)) pass.again.push(plan.id);
    else run.outcomes.set(plan.id, plan.item ? 'indexed' : 'removed');
    if (!lost.has(plan.id) && plan.item && isShrunk(plan.target)) run.shrank = true;
  }
}

/** How long a writer that starts at `from` may write for: to the run's deadline, less the fence; or unbounded. */
export const writableMs = (ctx: WriterContext, run: Run, from: number): number =>
  run.deadline === undefined ? Number.POSITIVE_INFINITY : run.deadline - ctx.fenceMs - from;

/** Whether the pass can land before the run's deadline at the pace of its write-ahead (PassSize.fits). */
function fits(
  ctx: WriterContext,
  run: Run,
  plans: Plan[],
  times: { started: number; planned: number },
): boolean {
  const homes = new Set(
    plans.flatMap((p) => [...Object.keys(p.committed.terms), ...Object.keys(p.target.terms)].map(homeOf)),
  );
  const now = ctx.now();
  const pass = { items: plans.length, homes: homes.size, concurrency: ctx.concurrency };
  return ctx.passSize.fits(pass, {
    elapsedMs: now - times.started,
    writeAheadMs: now - times.planned,
    writableMs: writableMs(ctx, run, times.started),
  });
}

/**
 * One pass over `ids`, in its steps: plan, write-ahead (the lease), roll back any unfinished rebuild, write the
 * postings, commit (docs/index-format.md, the writer's protocol). Returns the ids to try again (held by another
 * writer, or lost a race). `run.renorm`: ids whose postings are rewritten with their length's norm if they are shrunk
 * (a compaction); `run.shrank` is set when a shrunk target commits. A pass that fails lets go of its leases.
 */
export async function runPass(ctx: WriterContext, ids: number[], run: Run): Promise<number[]> {
  const { counts } = ctx;
  counts.passes++;
  const lease = new Lease(ctx);
  const started = ctx.now();
  const { plans, again } = await timed(counts, 'plan', () => planPass(ctx, ids, run));
  const pass: PassState = { lease, leased: [], again, rewrote: false };
  const planned = ctx.now();
  await timed(counts, 'writeAhead', () => takeLeases(ctx, pass, plans));
  try {
    if (!fits(ctx, run, pass.leased, { started, planned })) throw new LeaseRanOut();
    await timed(counts, 'rollback', () => rollBack(ctx, pass));
    await timed(counts, 'postings', () => writePostings(ctx, pass));
    lease.fence();
    const lost = await timed(counts, 'commit', () => commit(ctx, pass.leased, pass.rewrote));
    settle(run, pass, lost);
    return pass.again;
  } catch (error) {
    await release(ctx, pass.leased, lease.owner);
    throw error;
  }
}
