import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { onlyConditionFailures } from '../dynamodb/conditions.ts';
import { COUNTER_KEY, ITEM_PK, itemSk } from '../items/keys.ts';
import { logger } from '../observability.ts';
import { reindexBatch } from './batch.ts';
import { decodeBlock } from './blocks.ts';
import type { Indexer } from './indexer.ts';
import { BLOCK_PREFIX, idOfKey, STATS_KEY, termPk } from './keys.ts';
import { createPostingWriter, type Posting } from './postings.ts';
import { estimateTotal, type Progress, Watermark } from './progress.ts';

export interface RebuildReport {
  items: number;
  removed: number;
  strayPostings: number;
  repairedCounts: number;
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

/** One page of item ids in id order after `afterId` (keys only: an item that does not parse is still listed). */
async function listIds(client: DynamoDBDocumentClient, tableName: string, afterId: number, limit: number) {
  const { Items = [], LastEvaluatedKey } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk > :after',
      ExpressionAttributeValues: { ':pk': ITEM_PK, ':after': itemSk(afterId) },
      ProjectionExpression: 'sk',
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return { ids: Items.map((row) => Number(row.sk)), more: LastEvaluatedKey !== undefined };
}

const Row = v.object({
  pk: v.string(),
  sk: v.string(),
  p: v.optional(v.string()),
  df: v.optional(v.number()),
  dl: v.optional(v.number()),
  version: v.optional(v.number()),
});

async function* scan(client: DynamoDBDocumentClient, tableName: string) {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        ExclusiveStartKey: startKey,
        ProjectionExpression: 'pk, sk, #p, df, dl, version',
        ExpressionAttributeNames: { '#p': 'p' },
      }),
    );
    for (const row of page.Items ?? []) yield v.parse(Row, row);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/**
 * `npm run reindex`: rebuilds the index from the items. Re-derives every item's postings, removes the index
 * records of deleted items, deletes postings no doc record accounts for, and repairs df and corpus counts.
 * Counts are repaired with compare-and-swap, so a write racing the rebuild is never overwritten.
 *
 * The first phase lists item ids in pages and indexes up to `concurrency` pages at once (`reindexItems`). It is
 * resumable: the checkpoint (CHECKPOINT_KEY) moves past a page only once it and every page before it are done, so a
 * run that crashes is resumed after it by the next (unless `restart`); the checkpoint is deleted at the end.
 */
export async function rebuildIndex({
  client,
  tableName,
  indexer,
  blockCapacity,
  concurrency = 4,
  pageSize = 100,
  restart = false,
  onProgress,
  now = Date.now,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  indexer: Indexer;
  /** Postings per index block (see blocks.ts), as the indexer writes them. */
  blockCapacity?: number;
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
  const writer = createPostingWriter({ client, tableName, blockCapacity });
  const checkpoint = restart ? undefined : await readCheckpoint(client, tableName);
  const report: RebuildReport = {
    items: 0,
    removed: 0,
    strayPostings: 0,
    repairedCounts: 0,
    invalid: 0,
    resumedAfter: checkpoint?.throughId,
  };
  // 1. Every item, in pages of ids, a few pages at a time.
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
    const page = await listIds(client, tableName, afterId, pageSize);
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

  // 2. Every doc record without an item, then postings and counts.
  const docs = new Map<number, { dl: number }>();
  const postings: Posting[] = [];
  const dfs = new Map<string, number>();
  for await (const row of scan(client, tableName)) {
    if (row.pk.startsWith('D#')) docs.set(Number(row.pk.slice(2)), { dl: row.dl ?? 0 });
    else if (row.pk.startsWith('T#') && row.sk.startsWith(BLOCK_PREFIX) && row.p !== undefined) {
      const term = row.pk.slice(2);
      for (const posting of decodeBlock(row.p)) postings.push({ term, ...posting });
    } else if (row.pk.startsWith('T#') && row.sk === 'DF') dfs.set(row.pk, row.df ?? 0);
  }
  const docIds = [...docs.keys()];
  for (let i = 0; i < docIds.length; i += pageSize) {
    const { outcomes, failed } = await reindexBatch(indexer, docIds.slice(i, i + pageSize));
    if (failed[0]) throw failed[0].error;
    for (const [id, outcome] of outcomes) {
      if (outcome !== 'removed') continue;
      docs.delete(id);
      report.removed++;
    }
  }
  // 3. Postings of items without a doc record cannot come from any rebuild: remove them with their df.
  const counts = new Map<string, number>();
  const stray: Posting[] = [];
  for (const posting of postings) {
    const pk = termPk(posting.term);
    if (docs.has(idOfKey(posting.key))) counts.set(pk, (counts.get(pk) ?? 0) + 1);
    else stray.push(posting);
  }
  // A term at a time (one grouped write each): a posting a concurrent rebuild removed first is skipped, and not
  // counted, by the writer, so each term's count is what was really removed.
  const strayByTerm = new Map<string, number>();
  for (const [pk, postingsOfTerm] of Map.groupBy(stray, (posting) => termPk(posting.term))) {
    const removed = await writer.remove(postingsOfTerm);
    report.strayPostings += removed;
    strayByTerm.set(pk, removed);
  }
  // 4. Counters that drifted (only possible after manual edits): compare-and-swap them back.
  const cas = async (key: Record<string, string>, field: string, seen: number | undefined, value: number) => {
    await client
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: `SET #f = :value`,
          ConditionExpression: seen === undefined ? 'attribute_not_exists(#f)' : '#f = :seen',
          ExpressionAttributeNames: { '#f': field },
          ExpressionAttributeValues: { ':value': value, ...(seen === undefined ? {} : { ':seen': seen }) },
        }),
      )
      .then(() => report.repairedCounts++)
      .catch(() => {});
  };
  for (const [pk, before] of dfs) {
    const df = before - (strayByTerm.get(pk) ?? 0);
    const actual = counts.get(pk) ?? 0;
    if (df !== actual) await cas({ pk, sk: 'DF' }, 'df', df, actual);
  }
  const { Item: stats } = await client.send(
    new GetCommand({ TableName: tableName, Key: STATS_KEY, ConsistentRead: true }),
  );
  const len = [...docs.values()].reduce((sum, doc) => sum + doc.dl, 0);
  if (stats?.docs !== docs.size)
    await cas(STATS_KEY, 'docs', typeof stats?.docs === 'number' ? stats.docs : undefined, docs.size);
  if (stats?.len !== len)
    await cas(STATS_KEY, 'len', typeof stats?.len === 'number' ? stats.len : undefined, len);
  await client.send(new DeleteCommand({ TableName: tableName, Key: CHECKPOINT_KEY }));
  return report;
}
