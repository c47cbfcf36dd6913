import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { actionsCancelledFor, cancelledFor, isCancelled } from '../../dynamodb/conditions.ts';
import { type RetryPolicy, retry } from '../../retry.ts';
import {
  docKey,
  SEALED,
  SHRUNK_ENTRIES,
  STATS_SHARDS,
  shrunkEntry,
  shrunkKey,
  statsKey,
} from '../format/keys.ts';
import type { Plan, WriterContext } from './context.ts';
import { revCondition, stored } from './doc-record.ts';
import { isShrunk } from './target.ts';

/**
 * Actions a commit transaction holds besides the corpus counts (DynamoDB allows 100): a doc record's, and its
 * shrunk-set entry's where it has one or had one.
 */
const ACTIONS_PER_COMMIT = 99;
/**
 * A commit cancelled because docs were taken over goes again at once without them; one cancelled by a conflict
 * (another batch's counts, or a reader) is retried as it was, after the back-off.
 */
const COMMIT_RETRIES: RetryPolicy<void> = {
  attempts: 30,
  backoff: { baseMs: 20, maxMs: 500 },
  retryable: (error) =>
    isCancelled(error) && (cancelledFor(error, 'ConditionalCheckFailed') ? 'at once' : true),
};

type Action = Record<string, unknown>;
/** A plan with its commit actions (built once: a doc record's term map is compressed). */
type Entry = { plan: Plan; actions: Action[] };

/**
 * A plan's commit actions: its doc record's (written, or deleted with its item, under the rev), then its entry in
 * the shrunk set, put when its target is shrunk and deleted when its committed state was: so an entry exists exactly
 * while its doc record's norm exceeds its length or it has a cut (docs/index-format.md, the shrunk set).
 */
function commitActions({ tableName }: WriterContext, { id, item, committed, target, rev }: Plan): Action[] {
  const doc = item
    ? {
        Put: {
          TableName: tableName,
          Item: { ...docKey(id), ...stored(target), rev: rev + 1 },
          ...revCondition(rev),
        },
      }
    : { Delete: { TableName: tableName, Key: docKey(id), ...revCondition(rev) } };
  if (item && isShrunk(target))
    return [doc, { Put: { TableName: tableName, Item: { ...shrunkKey(id), ...shrunkEntry(target) } } }];
  return isShrunk(committed) ? [doc, { Delete: { TableName: tableName, Key: shrunkKey(id) } }] : [doc];
}

/** The plans with their commit actions, in commits of at most ACTIONS_PER_COMMIT actions besides the counts. */
function commitsOf(ctx: WriterContext, plans: Plan[]): Entry[][] {
  const chunks: Entry[][] = [];
  let size = ACTIONS_PER_COMMIT;
  for (const plan of plans) {
    const actions = commitActions(ctx, plan);
    if (size + actions.length > ACTIONS_PER_COMMIT) {
      chunks.push([]);
      size = 0;
    }
    chunks.at(-1)?.push({ plan, actions });
    size += actions.length;
  }
  return chunks;
}

/** One of the counts' parts, at random: writers side by side seldom meet on it. */
const anyCountsPart = () => statsKey(Math.floor(Math.random() * STATS_SHARDS));

/**
 * The counts' change a commit of `entries` carries, to one part of the counts, a new one each attempt: writers side
 * by side seldom meet on it. `commits` counts every commit, `shrunk` the shrunk set's entries, `sealed` the commits
 * of passes that changed a sealed block already there (`rewrote`) (docs/index-format.md, the counts).
 */
function countsUpdate({ tableName }: WriterContext, entries: readonly Entry[], rewrote: boolean): Action {
  const docs = entries.reduce(
    (sum, { plan: p }) => sum + (p.item ? 1 : 0) - (p.committed.version > 0 ? 1 : 0),
    0,
  );
  const len = entries.reduce((sum, { plan: p }) => sum + p.target.dl - p.committed.dl, 0);
  // The entries it puts into the shrunk set, less those it deletes (commitActions).
  const shrunk = entries.reduce(
    (sum, { plan: p }) => sum + (p.item && isShrunk(p.target) ? 1 : 0) - (isShrunk(p.committed) ? 1 : 0),
    0,
  );
  return {
    Update: {
      TableName: tableName,
      Key: anyCountsPart(),
      UpdateExpression: `ADD docs :docs, len :len, commits :one, ${SHRUNK_ENTRIES} :shrunk, ${SEALED} :sealed`,
      ExpressionAttributeValues: {
        ':docs': docs,
        ':len': len,
        ':one': 1,
        ':shrunk': shrunk,
        ':sealed': rewrote ? 1 : 0,
      },
    },
  };
}

/**
 * One commit transaction of `chunk.entries`; a doc whose condition failed goes to `lost` and out of the chunk, and
 * the error is thrown for the retry to send the rest.
 */
async function commitChunk(ctx: WriterContext, chunk: Chunk, lost: Set<number>) {
  if (chunk.entries.length === 0) return;
  const actions = chunk.entries.flatMap((entry) => entry.actions);
  // The plan each action is of (a refused condition names an action: only a doc record's has one).
  const planOf = chunk.entries.flatMap((entry) => entry.actions.map(() => entry.plan.id));
  const counts = countsUpdate(ctx, chunk.entries, chunk.rewrote);
  try {
    await ctx.client.send(new TransactWriteCommand({ TransactItems: [...actions, counts] as never[] }));
  } catch (error) {
    if (!isCancelled(error)) throw error;
    for (const i of actionsCancelledFor(error, 'ConditionalCheckFailed')) {
      const id = planOf[i];
      if (id !== undefined) lost.add(id);
    }
    chunk.entries = chunk.entries.filter((entry) => !lost.has(entry.plan.id));
    throw error;
  }
}

/**
 * Step 4 of a pass: commits the plans' doc records (and shrunk-set entries) with their corpus counts, in
 * transactions of at most 100 actions. A doc whose rev moved (a writer that took over a lease this one let run out)
 * is left out and returned, the rest committed without it.
 */
export async function commit(ctx: WriterContext, plans: Plan[], rewrote = false): Promise<Set<number>> {
  const lost = new Set<number>();
  const landed = { any: false };
  for (const entries of commitsOf(ctx, plans)) {
    const chunk = { entries, rewrote };
    await retry(() => commitChunk(ctx, chunk, lost), COMMIT_RETRIES);
    landed.any ||= chunk.entries.length > 0;
  }
  // Blocks changed and nothing committed (every doc lost to another writer): `sealed` moves all the same.
  if (rewrote && !landed.any) await ctx.client.send(new UpdateCommand(sealedMoved(ctx)));
  return lost;
}

/** A commit's transaction: its entries, and whether its pass changed a sealed block already there. */
type Chunk = { entries: Entry[]; rewrote: boolean };

/** A move of the counts' `sealed` alone, in one part of the counts. */
const sealedMoved = ({ tableName }: WriterContext) => ({
  TableName: tableName,
  Key: anyCountsPart(),
  UpdateExpression: `ADD ${SEALED} :one`,
  ExpressionAttributeValues: { ':one': 1 },
});
