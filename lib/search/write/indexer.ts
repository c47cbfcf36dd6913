import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsFailure } from '../../aws/errors.ts';
import type { ItemLookup } from '../../items/reader.ts';
import { retry } from '../../retry.ts';
import { COMPACT_AT, COMPACT_BYTES, compact } from './compaction.ts';
import { type IndexOutcome, noCounts, type Run, type WriterContext, type WriterCounts } from './context.ts';
import { FENCE_MS, LEASE_MS, LeaseRanOut } from './lease.ts';
import { runPass, writableMs } from './pass.ts';
import { PassSize } from './pass-size.ts';
import { createPostingWriter } from './postings.ts';

export { COMPACT_AT, COMPACT_BYTES } from './compaction.ts';
export { type IndexOutcome, noCounts, STEPS, type WriterCounts } from './context.ts';
export { EMPTY, type Indexed, stored, writeAhead } from './doc-record.ts';
export { analyze, isShrunk, postingTarget } from './target.ts';

export interface Indexer {
  /**
   * Makes the index agree with the items' current state, as one batch (idempotent; safe to retry or run
   * concurrently); `deadline` (by the writer's clock): when it must have stopped writing, a Lambda invocation's end.
   * Items it had no time for have no outcome.
   */
  reindexItems(
    ids: readonly number[],
    options?: { deadline?: number | undefined },
  ): Promise<Map<number, IndexOutcome>>;
  /** One item as a batch of one. */
  reindexItem(id: number): Promise<IndexOutcome>;
  /**
   * Compacts the shrunk set if it holds at least `atLeast` entries (the writer's `compactAt` unless given) or its
   * `compactBytes`: its items' postings rewritten as they are, with their lengths' norms, in one batch; returns how
   * many it took out.
   */
  compact(atLeast?: number): Promise<number>;
  readonly counts: Readonly<WriterCounts>;
}

/**
 * A writer's requests in flight at once: the pace a batch's steps go at (DynamoDB Local answers ~330–400 puts/s at 32
 * in flight here; on AWS each wave of them takes about one request's latency: bench:capacity's freshness model).
 */
export const WRITE_CONCURRENCY = 32;

export interface IndexerOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  items: ItemLookup;
  /** Postings per index block (see blocks.ts); tests use tiny blocks. */
  blockCapacity?: number;
  /** How long a writer holds an item (tests of dead writers use short leases). */
  leaseMs?: number;
  fenceMs?: number;
  /** How long into its lease a writer renews it (half the lease unless given; tests renew often). */
  renewMs?: number;
  /** Requests in flight at once (doc records, terms). */
  concurrency?: number;
  /** Doc records and term homes written in one transaction at most (1, the default: a request each; write-groups.ts). */
  writesPerTransaction?: number;
  /** The clock leases are read and written by (tests move it on to let a dead writer's lease run out). */
  now?: () => number;
  /** Shrunk-set entries at which a writer that adds one compacts the set (tests compact small sets). */
  compactAt?: number;
  /** The shrunk set's stored bytes at which a writer that adds an entry compacts it, whatever its entries. */
  compactBytes?: number;
}

/** The indexer's context from its options, with their defaults. */
function contextOf({ blockCapacity, ...options }: IndexerOptions): WriterContext {
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const fenceMs = options.fenceMs ?? Math.min(FENCE_MS, leaseMs / 2);
  const concurrency = options.concurrency ?? WRITE_CONCURRENCY;
  const writesPerTransaction = options.writesPerTransaction ?? 1;
  const { client, tableName } = options;
  return {
    client,
    tableName,
    items: options.items,
    postings: createPostingWriter({
      client,
      tableName,
      blockCapacity,
      concurrency,
      writesPerTransaction,
    }),
    concurrency,
    writesPerTransaction,
    leaseMs,
    fenceMs,
    renewMs: options.renewMs ?? leaseMs / 2,
    now: options.now ?? Date.now,
    passSize: new PassSize(),
    counts: noCounts(),
    compactAt: options.compactAt ?? COMPACT_AT,
    compactBytes: options.compactBytes ?? COMPACT_BYTES,
  };
}

/**
 * Passes over `ids` until every one is done: items held by another writer, or lost in a race, go again after a
 * back-off, until the run's time is up (those have no outcome, for the stream to deliver again). Each pass is timed
 * for the next one's size (PassSize).
 */
async function passesOver(ctx: WriterContext, ids: number[], run: Run): Promise<void> {
  const left = { ids };
  await retry(
    async () => {
      if (left.ids.length === 0) return left.ids;
      const started = ctx.now();
      const tried = left.ids.length;
      left.ids = await runPass(ctx, left.ids, run).catch((error: unknown) => {
        ctx.passSize.failed(tried);
        throw error;
      });
      ctx.passSize.finished(tried - left.ids.length, ctx.now() - started);
      return left.ids;
    },
    {
      // A writer that died holds its items until its lease ends: wait that long (and a little) before giving up.
      attempts: Infinity,
      budgetMs: ctx.leaseMs * 2 + 5_000,
      backoff: { baseMs: 40, maxMs: 1_000 },
      until: (left) => left.length === 0 || writableMs(ctx, run, ctx.now()) <= 0,
      exhausted: () => new Error(`Items ${left.ids.join(', ')} kept changing while they were being indexed`),
    },
  );
}

/**
 * A pass that failed because the table is slow: its fence stopped it, or a request timed out or was throttled past
 * the SDK's retries. Its items go again in a smaller pass (every write is conditional on what the pass read, so a
 * write that landed unseen is found by the next): a split of the stream batch would index them one by one instead.
 */
const isSlow = (error: unknown) =>
  error instanceof LeaseRanOut || awsFailure(error) === 'timeout' || awsFailure(error) === 'throttled';

/**
 * Indexes `requested` in passes of the size the writer's pace and time allow (a pass the table was too slow for goes
 * again, halved), then compacts the shrunk set if a shrunk target committed and the set is full. Within its fence of
 * the deadline a writer starts no pass: the items left have no outcome, for the stream to deliver again.
 */
async function reindexItems(ctx: WriterContext, requested: readonly number[], deadline?: number) {
  const run: Run = { outcomes: new Map(), deadline, renorm: new Set(), shrank: false };
  const queue = [...new Set(requested)];
  while (queue.length > 0) {
    const writable = writableMs(ctx, run, ctx.now());
    if (writable <= 0) break;
    const ids = queue.splice(0, ctx.passSize.take(queue.length, writable));
    await passesOver(ctx, ids, run).catch((error: unknown) => {
      if (!isSlow(error) || ids.length === 1) throw error;
      ctx.counts.slowPasses++;
      queue.unshift(...ids);
    });
  }
  if (run.shrank) await compactInTime(ctx, run);
  return run.outcomes;
}

/**
 * Compacts the shrunk set, full, if the run's time allows a pass. The run's items are committed: a compaction the
 * table was too slow for leaves the set as it is, for the next writer that shrinks an item (or `npm run reindex`).
 */
async function compactInTime(ctx: WriterContext, run: Run) {
  if (writableMs(ctx, run, ctx.now()) <= 0) return;
  await compact(ctx, ctx.compactAt, run.deadline).catch((error: unknown) => {
    if (!isSlow(error)) throw error;
    ctx.counts.slowPasses++;
  });
}

/**
 * Maintains the BM25 index a batch at a time, a pass at a time (pass.ts): a term's df equals its number of postings,
 * and the counts, summed over their parts, equal the sum over committed doc records. A writer takes a lease on each
 * item and records its target first (write-ahead), so a rebuild that dies half-way is rolled back and redone by the
 * next one; only the lease holder writes an item's postings, and it commits under the doc record's `rev`
 * (docs/index-format.md, the writer's protocol).
 */
export function createIndexer(options: IndexerOptions): Indexer {
  const ctx = contextOf(options);
  return {
    reindexItems: (ids, { deadline } = {}) => reindexItems(ctx, ids, deadline),
    async reindexItem(id) {
      return (await reindexItems(ctx, [id])).get(id) ?? 'unchanged';
    },
    compact: (atLeast = ctx.compactAt) => compact(ctx, atLeast),
    counts: ctx.counts,
  };
}
