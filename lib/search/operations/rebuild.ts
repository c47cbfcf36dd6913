import { DeleteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { COUNTER_KEY } from '../../items/keys.ts';
import { createItemRepository } from '../../items/repository.ts';
import { reindexBatch } from '../write/batch.ts';
import type { Indexer } from '../write/indexer.ts';
import { CHECKPOINT_KEY, type Checkpoint, CheckpointWriter, readCheckpoint } from './checkpoint.ts';
import { ItemPages } from './item-pages.ts';
import type { Progress } from './progress.ts';
import { repairCounts } from './repair-counts.ts';
import { type IndexScan, scanIndex } from './scan.ts';
import { removeStrays } from './strays.ts';

export { CHECKPOINT_KEY, type Checkpoint, readCheckpoint } from './checkpoint.ts';

export interface RebuildReport {
  items: number;
  removed: number;
  strayPostings: number;
  /** Items of the shrunk set whose postings were rewritten as they are, with their lengths' norms. */
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

export interface RebuildOptions {
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
}

/** Phase 1: every item indexed, after the checkpoint (ItemPages); returns how many, and how many are invalid. */
async function indexEveryItem(options: RebuildOptions, checkpoint: Checkpoint | undefined) {
  const { client, tableName, now = Date.now } = options;
  const items = createItemRepository({ client, tableName });
  const started = now();
  const { Item: counter } = await client.send(
    new GetCommand({ TableName: tableName, Key: COUNTER_KEY, ConsistentRead: true }),
  );
  const pages = new ItemPages({
    indexer: options.indexer,
    checkpoints: new CheckpointWriter(client, tableName),
    checkpoint,
    counter: typeof counter?.value === 'number' ? counter.value : 0,
    concurrency: options.concurrency ?? 4,
    onProgress: options.onProgress,
    now,
    started,
  });
  if (options.restart) await client.send(new DeleteCommand({ TableName: tableName, Key: CHECKPOINT_KEY }));
  await pages.run(items, options.pageSize ?? 100);
  return pages.done;
}

/** Phase 2: every doc record without an item leaves the index (through the indexer, so under its lease). */
async function removeDeleted(indexer: Indexer, scanned: IndexScan, pageSize: number): Promise<number> {
  let removed = 0;
  const docIds = [...scanned.docs];
  for (let i = 0; i < docIds.length; i += pageSize) {
    const { outcomes, failed } = await reindexBatch(indexer, docIds.slice(i, i + pageSize));
    if (failed[0]) throw failed[0].error;
    for (const outcome of outcomes.values()) if (outcome === 'removed') removed++;
  }
  return removed;
}

/**
 * `npm run reindex`: rebuilds the index from the items. Re-derives every item's postings, removes the index
 * records of deleted items and postings no doc record accounts for, and repairs the corpus counts if a manual edit
 * made them disagree. Safe beside the stream consumer: every posting change goes through the indexer (under each
 * item's lease), a term's df changes in the same write as its postings, and the corpus counts are repaired only from
 * a snapshot no writer changed (repair-counts.ts), never from the scan.
 *
 * The first phase is resumable: the checkpoint (CHECKPOINT_KEY) moves past a page only once it and every page
 * before it are done, so a run that crashes is resumed after it by the next (unless `restart`); the checkpoint is
 * deleted at the end.
 */
export async function rebuildIndex(options: RebuildOptions): Promise<RebuildReport> {
  const { client, tableName, indexer, pageSize = 100, restart = false } = options;
  const checkpoint = restart ? undefined : await readCheckpoint(client, tableName);
  const { items, invalid } = await indexEveryItem(options, checkpoint);
  const scanned = await scanIndex(client, tableName);
  const removed = await removeDeleted(indexer, scanned, pageSize);
  // 3. Postings of items that had no doc record when scanned: removed through the indexer (strays.ts).
  const strayPostings = await removeStrays({ client, tableName, indexer, scanned });
  // 4. The shrunk set compacted, whatever its size: the index left with every posting at most its item's length, and
  // its tf the item's (no cut, no ghost).
  const compacted = await indexer.compact(1);
  // 5. Corpus counts that a manual edit made disagree, repaired only from a snapshot (repair-counts.ts).
  const counts = await repairCounts(client, tableName);
  await client.send(new DeleteCommand({ TableName: tableName, Key: CHECKPOINT_KEY }));
  return {
    items,
    removed,
    strayPostings,
    compacted,
    repairedCounts: counts === 'repaired' ? 1 : 0,
    countsSkipped: counts === 'skipped' ? 1 : 0,
    invalid,
    resumedAfter: checkpoint?.throughId,
  };
}
