import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { onlyConditionFailures } from '../../dynamodb/conditions.ts';
import { COUNTER_KEY } from '../../items/keys.ts';
import { createItemRepository } from '../../items/repository.ts';
import { logger } from '../../observability.ts';
import { reindexBatch } from '../write/batch.ts';
import type { Indexer } from '../write/indexer.ts';
import { estimateTotal, type Progress, Watermark } from './progress.ts';
import { repairCounts } from './repair-counts.ts';
import { scanIndex } from './scan.ts';
import { removeStrays } from './strays.ts';

export interface RebuildReport {
  items: number;
  removed: number;
  strayPostings: number;
  /** Items of the shrunk set (keys.ts) whose postings were rewritten as they are, with their lengths' norms. */
  compacted: number;
  /** 1 when N and the total length disagreed with the doc records (a manual edit) and were set again. */
  repairedCounts: number;
  /** 1 when a commit landed while they were checked (run again to check them). */
  countsSkipped: number;
  /** Items whose stored record is invalid (logged, not indexed). */
  invalid: number;
  /** The checkpoint this run resumed after (every id up to it was done by an earlier run), if any. */
  resumedAfter: number | undefined;
}

/**
 * The reindex checkpoint: every item id up to `throughId` is done (`items` of them); a later run resumes after it.
 * Written only forward, deleted when a run completes.
 */
export const CHECKPOINT_KEY = { pk: 'REINDEX', sk: 'PROGRESS' } as const;
const Checkpoint = v.object({ throughId: v.number(), items: v.number() });
export type Checkpoint = v.InferOutput<typeof Checkpoint>;

export async function readCheckpoint(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<Checkpoint | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: CHECKPOINT_KEY, ConsistentRead: true }),
  );
  return Item ? v.parse(Checkpoint, Item) : undefined;
}

/**
 * `npm run reindex`: rebuilds the index from the items. Re-derives every item's postings, removes the index
 * records of deleted items and postings no doc record accounts for, and repairs the corpus counts if a manual edit
 * made them disagree. Safe beside the stream consumer: every posting change goes through the indexer (under each
 * item's lease), a term's df changes in the same write as its postings (postings.ts), and the corpus counts are
 * repaired only from a snapshot no writer changed (repair-counts.ts), never from the scan.
 *
 * The first phase lists item ids in pages and indexes up to `concurrency` pages at once (`reindexItems`). It is
 * resumable: the checkpoint (CHECKPOINT_KEY) moves past a page only once it and every page before it are done, so a
 * run that crashes is resumed after it by the next (unless `restart`); the checkpoint is deleted at the end.
 */
export async function rebuildIndex({
  client,
  tableName,
  indexer,
  concurrency = 4,
  pageSize = 100,
  restart = false,
  onProgress,
  now = Date.now,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  indexer: Indexer;
  /** Pages of ids being indexed at once. */
  concurrency?: number;
  /** Item ids per page (one `reindexItems` call). */
  pageSize?: number;
  /** Ignore (and replace) the checkpoint of an earlier run. */
  restart?: boolean;
  /** Called after each page and at the end of the first phase. */
  onProgress?: (progress: Progress) => void;
  now?: () => number;
}): Promise<RebuildReport> {
  const checkpoint = restart ? undefined : await readCheckpoint(client, tableName);
  const report: RebuildReport = {
    items: 0,
    removed: 0,
    strayPostings: 0,
    compacted: 0,
    repairedCounts: 0,
    countsSkipped: 0,
    invalid: 0,
    resumedAfter: checkpoint?.throughId,
  };
  // 1. Every item, in pages of ids (keys only: an item that does not parse is still listed), a few pages at a time.
  const items = createItemRepository({ client, tableName });
  const started = now();
  const { Item: counter } = await client.send(
    new GetCommand({ TableName: tableName, Key: COUNTER_KEY, ConsistentRead: true }),
  );
  const startId = checkpoint?.throughId ?? 0;
  const watermark = new Watermark(startId, checkpoint?.items ?? 0);
  const listing = { listed: 0, lastListedId: startId };
  const progress = (final: boolean): Progress => {
    const total = estimateTotal({
      counter: typeof counter?.value === 'number' ? counter.value : 0,
      startId,
      doneBefore: checkpoint?.items ?? 0,
      ...listing,
    });
    const rate = report.items / Math.max(0.001, (now() - started) / 1000);
    const done = (checkpoint?.items ?? 0) + report.items;
    return { done, total, rate, leftMs: rate > 0 ? ((total - done) / rate) * 1000 : undefined, final };
  };
  // Checkpoint writes go one after another, and only forward (a condition), so a late write never moves it back.
  let saving = Promise.resolve();
  const save = (state: Checkpoint) => {
    saving = saving.then(() =>
      client
        .send(
          new PutCommand({
            TableName: tableName,
            Item: { ...CHECKPOINT_KEY, ...state, updatedAt: new Date().toISOString() },
            ConditionExpression: 'attribute_not_exists(pk) OR throughId < :id',
            ExpressionAttributeValues: { ':id': state.throughId },
          }),
        )
        .then(
          () => {},
          (error) => {
            if (!onlyConditionFailures(error)) throw error;
          },
        ),
    );
    return saving;
  };
  if (restart) await client.send(new DeleteCommand({ TableName: tableName, Key: CHECKPOINT_KEY }));

  let failure: { error: unknown } | undefined;
  const running = new Set<Promise<void>>();
  for (let afterId = startId, more = true; more && !failure; ) {
    const page = await items.listIds({ afterId, limit: pageSize });
    const lastId = page.ids.at(-1);
    more = page.more;
    if (lastId === undefined) break;
    afterId = lastId;
    listing.listed += page.ids.length;
    listing.lastListedId = lastId;
    const handle = watermark.start(lastId, page.ids.length);
    const task = reindexBatch(indexer, page.ids)
      .then(async ({ invalid, failed }) => {
        for (const { id, error } of invalid)
          logger.error('item cannot be indexed: its stored record is invalid', { itemId: id, error });
        if (failed[0]) throw failed[0].error;
        report.items += page.ids.length;
        report.invalid += invalid.length;
        if (watermark.finish(handle)) await save({ throughId: watermark.throughId, items: watermark.items });
        onProgress?.(progress(false));
      })
      .catch((error) => {
        failure ??= { error };
      })
      .finally(() => running.delete(task));
    running.add(task);
    while (running.size >= concurrency) await Promise.race(running);
  }
  await Promise.all(running);
  await saving;
  if (failure) throw failure.error;
  onProgress?.(progress(true));

  // 2. Every doc record without an item leaves the index (through the indexer, so under its lease).
  const scanned = await scanIndex(client, tableName);
  const docIds = [...scanned.docs];
  for (let i = 0; i < docIds.length; i += pageSize) {
    const { outcomes, failed } = await reindexBatch(indexer, docIds.slice(i, i + pageSize));
    if (failed[0]) throw failed[0].error;
    for (const outcome of outcomes.values()) if (outcome === 'removed') report.removed++;
  }
  // 3. Postings of items that had no doc record when scanned: removed through the indexer (strays.ts).
  report.strayPostings = await removeStrays({ client, tableName, indexer, scanned });
  // 4. The shrunk set compacted, whatever its size: the index left with every posting at most its item's length, and
  // its tf the item's (no cut, no ghost).
  report.compacted = await indexer.compact(1);
  // 5. Corpus counts that a manual edit made disagree, repaired only from a snapshot (repair-counts.ts).
  const counts = await repairCounts(client, tableName);
  report.repairedCounts = counts === 'repaired' ? 1 : 0;
  report.countsSkipped = counts === 'skipped' ? 1 : 0;
  await client.send(new DeleteCommand({ TableName: tableName, Key: CHECKPOINT_KEY }));
  return report;
}
