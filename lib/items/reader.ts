// Reading item records wherever they are: on their shard, and while `npm run migrate-items` runs (lib/items/migrate.ts)
// at their old key too. Items move only from the old key to their shard, each in one transaction, so a read that looks
// at the old key before the shard (or at the shard, the old key, then the shard again) never misses an item moving.
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../dynamodb/batch-get.ts';
import { COUNTER_KEY, itemIdOf, itemKey, itemSk, LAYOUT_KEY, LEGACY_ITEM_PK, legacyItemKey } from './keys.ts';
import { mergeRuns, type RangeQuery, type Run, readShards } from './list.ts';

type TableRecord = Record<string, unknown>;

/**
 * Whether items of the layout before issue #21 may remain: until the migration's marker (LAYOUT_KEY) is seen, read at
 * most once every `recheckMs`; once seen, never again (nothing writes the old layout after it).
 */
export function createLegacyCheck(client: DynamoDBDocumentClient, tableName: string, recheckMs: number) {
  let migrated = false;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<boolean> | undefined;
  return async (): Promise<boolean> => {
    if (migrated) return false;
    if (Date.now() - checkedAt < recheckMs) return true;
    pending ??= client
      .send(new GetCommand({ TableName: tableName, Key: LAYOUT_KEY, ConsistentRead: true }))
      .then(({ Item }) => {
        migrated = Item !== undefined;
        checkedAt = Date.now();
        return !migrated;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}

const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Reads item records by id, and pages of them in id order, in either layout. */
export function createRecordReader(
  client: DynamoDBDocumentClient,
  tableName: string,
  legacyActive: () => Promise<boolean>,
) {
  const getRecord = async (key: Record<string, string>) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

  /** One partition's records with ids in [from, to], up to `limit` (pages past DynamoDB's 1 MB a reply). */
  const rangeQuery =
    (projection: string | undefined): RangeQuery =>
    async (pk, from, to, limit) => {
      const records: TableRecord[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const reply = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk, ':from': itemSk(from), ':to': itemSk(to) },
            Limit: limit - records.length,
            ConsistentRead: true,
            ...(projection === undefined ? {} : { ProjectionExpression: projection }),
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
        records.push(...(reply.Items ?? []));
        start = reply.LastEvaluatedKey;
      } while (start !== undefined && records.length < limit);
      return { records, truncated: start !== undefined };
    };

  const readCounter = async () => {
    const value = (await getRecord(COUNTER_KEY))?.value;
    return typeof value === 'number' ? value : 0;
  };

  return {
    /** The item's record and whether it is still at its old key; undefined when there is no such item. */
    async locate(id: number): Promise<{ record: TableRecord; legacy: boolean } | undefined> {
      const record = await getRecord(itemKey(id));
      if (record) return { record, legacy: false };
      if (!(await legacyActive())) return undefined;
      const old = await getRecord(legacyItemKey(id));
      if (old) return { record: old, legacy: true };
      const moved = await getRecord(itemKey(id));
      return moved ? { record: moved, legacy: false } : undefined;
    },

    /** The records of the items among `ids` that exist (consistent reads unless `consistent` is false). */
    async many(ids: readonly number[], consistent = true): Promise<TableRecord[]> {
      const read = (keys: Record<string, string>[]) => batchGet(client, tableName, keys, { consistent });
      const found = await read(ids.map(itemKey));
      if (found.length === ids.length || !(await legacyActive())) return found;
      const seen = () =>
        new Set(found.map((record) => itemIdOf({ pk: String(record.pk), sk: String(record.sk) })));
      const missing = () => {
        const have = seen();
        return ids.filter((id) => !have.has(id));
      };
      found.push(...(await read(missing().map(legacyItemKey))));
      found.push(...(await read(missing().map(itemKey))));
      return found;
    },

    /** Up to `need` records with ids after `afterId`, in id order (fewer only when no more exist). */
    async after(afterId: number, need: number, projection?: string): Promise<TableRecord[]> {
      const query = rangeQuery(projection);
      const shards = () => readShards(query, readCounter, afterId, need);
      if (!(await legacyActive())) return (await shards()).records;
      const old = await query(LEGACY_ITEM_PK, afterId + 1, MAX_ID, need);
      const legacy: Run = {
        records: old.records,
        complete: old.truncated
          ? (itemIdOf({ pk: LEGACY_ITEM_PK, sk: String(old.records.at(-1)?.sk) }) ?? 0)
          : Number.POSITIVE_INFINITY,
      };
      return mergeRuns(legacy, await shards(), need).records;
    },
  };
}
