// `npm run migrate-items`: moves the items of the layout before issue #21 (pk ITEM, one partition) to their shards
// (keys.ts) while the API serves. Each item moves in one transaction: a put of its record at its shard's key, on
// condition that none is there, and a delete of its old key, on condition that it is still the version copied. So an
// item is at exactly one key at every moment, and a writer's change of an item at its old key (which moves it too,
// repository.ts) and the migration's move of it cannot both land. Reads look at the old key while the marker
// (LAYOUT_KEY) is absent. The counter (COUNTER/ITEM) stays where it is: leases go on from its value, so no id is
// reused. Nothing but the old partition records the work left, so the command is resumed by running it again.
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../concurrency.ts';
import { isCancelled } from '../dynamodb/conditions.ts';
import {
  ID_BLOCK,
  ITEM_SHARDS,
  itemIdOf,
  itemKey,
  LAYOUT_KEY,
  LEGACY_ITEM_PK,
  legacyItemKey,
} from './keys.ts';

export interface MigrationProgress {
  /** Items this run moved. */
  moved: number;
  /** Items a writer moved or deleted before this run could (nothing left to do for them). */
  skipped: number;
  /** Items left at their old keys when the last page was read (an estimate while writers move items too). */
  left: number;
}

export interface MigrateItemsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Old records read a page. */
  pageSize?: number;
  /** Moves at once. */
  concurrency?: number;
  onProgress?: (progress: MigrationProgress) => void;
  /** Called before each move (tests interrupt a run here). */
  beforeMove?: (id: number) => void | Promise<void>;
}

type TableRecord = Record<string, unknown>;

/** Moves one old record to its shard; false when it had already gone (moved or deleted by a writer). */
async function moveRecord(
  client: DynamoDBDocumentClient,
  tableName: string,
  record: TableRecord,
): Promise<boolean> {
  const id = itemIdOf({ pk: LEGACY_ITEM_PK, sk: String(record.sk) });
  if (id === undefined) throw new Error(`not an item's record: ${String(record.pk)}/${String(record.sk)}`);
  for (let current: TableRecord | undefined = record, attempt = 1; current; attempt++) {
    if (attempt > 25) throw new Error(`item ${id} could not be moved in 25 attempts`);
    const sameVersion =
      current.version === undefined
        ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(version)' }
        : {
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          };
    try {
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { ...current, ...itemKey(id) },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Delete: {
                TableName: tableName,
                Key: legacyItemKey(id),
                ...sameVersion,
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (!isCancelled(error)) throw error;
      // Changed, moved or deleted since it was read (or a transaction on it ran): read it again.
      const { Item: now } = await client.send(
        new GetCommand({ TableName: tableName, Key: legacyItemKey(id), ConsistentRead: true }),
      );
      if (now && (await shardHas(client, tableName, id)))
        throw new Error(`item ${id} is at both its old key and its shard: run again after checking it`);
      current = now;
    }
  }
  return false;
}

async function shardHas(client: DynamoDBDocumentClient, tableName: string, id: number): Promise<boolean> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: itemKey(id), ConsistentRead: true }),
  );
  return Item !== undefined;
}

async function countLeft(client: DynamoDBDocumentClient, tableName: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const reply = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': LEGACY_ITEM_PK },
        Select: 'COUNT',
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += reply.Count ?? 0;
    start = reply.LastEvaluatedKey;
  } while (start);
  return count;
}

/**
 * Moves every item of the old layout to its shard, a page at a time, then writes the marker that tells readers to stop
 * looking at the old keys. Idempotent and resumable: a run that stops leaves every item at one key, and the next run
 * moves what is left. A table with nothing to move just gets the marker.
 */
export async function migrateItems({
  client,
  tableName,
  pageSize = 100,
  concurrency = 8,
  onProgress,
  beforeMove,
}: MigrateItemsOptions): Promise<MigrationProgress> {
  const progress: MigrationProgress = { moved: 0, skipped: 0, left: await countLeft(client, tableName) };
  for (;;) {
    // The page always starts at the partition's beginning: what was moved has left it.
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': LEGACY_ITEM_PK },
        Limit: pageSize,
        ConsistentRead: true,
      }),
    );
    if (Items.length === 0) break;
    await mapLimit(Items, concurrency, async (record) => {
      await beforeMove?.(Number(record.sk));
      if (await moveRecord(client, tableName, record)) progress.moved++;
      else progress.skipped++;
      progress.left = Math.max(0, progress.left - 1);
    });
    onProgress?.({ ...progress });
  }
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: LAYOUT_KEY, ConsistentRead: true }),
  );
  if (!Item)
    await client
      .send(
        new PutCommand({
          TableName: tableName,
          Item: { ...LAYOUT_KEY, shards: ITEM_SHARDS, block: ID_BLOCK, migratedAt: new Date().toISOString() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
      });
  return { ...progress, left: 0 };
}
