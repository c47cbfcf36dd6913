// The item reads: one by id, many by id, and pages in id order (a merge of Queries over the shards, list.ts).
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../dynamodb/batch-get.ts';
import { ItemNotFoundError } from './errors.ts';
import { COUNTER_KEY, itemKey, itemSk } from './keys.ts';
import { type RangeQuery, readShards } from './list.ts';
import { fromRecord } from './record.ts';
import type { Item } from './schema.ts';
import type { ItemTable } from './table.ts';

type TableRecord = Record<string, unknown>;

const getRecord = async ({ client, tableName }: ItemTable, key: Record<string, string>) =>
  (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

/** The reads by id, all that the index's writers and the retriever need of the items. */
export interface ItemLookup {
  get(id: number): Promise<Item>;
  /**
   * The items among `ids` that exist, keyed by id: strongly consistent, unless `consistent: false` (half the read
   * units; a write may take a moment to show, as it does in DynamoDB's eventually consistent reads).
   */
  getMany(ids: readonly number[], options?: { consistent?: boolean }): Promise<Map<number, Item>>;
}

/** The reads by id over one table: the handlers that never write an item bundle this, not the repository. */
export const createItemLookup = (table: ItemTable): ItemLookup => ({
  get: (id) => getItem(table, id),
  getMany: (ids, { consistent = true } = {}) => getItems(table, ids, consistent),
});

/** The item with this id (a consistent read); ItemNotFoundError when there is none. */
export async function getItem(table: ItemTable, id: number): Promise<Item> {
  const record = await getRecord(table, itemKey(id));
  if (!record) throw new ItemNotFoundError(id);
  return fromRecord(record);
}

/** The items among `ids` that exist, keyed by id (consistent reads unless `consistent` is false). */
export async function getItems(
  { client, tableName }: ItemTable,
  ids: readonly number[],
  consistent: boolean,
): Promise<Map<number, Item>> {
  const records = await batchGet(client, tableName, ids.map(itemKey), { consistent });
  return new Map(records.map(fromRecord).map((item) => [item.id, item]));
}

/** One partition's records with ids in [from, to], up to `limit` (pages past DynamoDB's 1 MB a reply). */
const rangeQuery =
  ({ client, tableName }: ItemTable, projection: string | undefined): RangeQuery =>
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

/** Up to `need` records with ids after `afterId`, in id order (fewer only when no more exist). */
export async function recordsAfter(
  table: ItemTable,
  afterId: number,
  need: number,
  projection?: string,
): Promise<TableRecord[]> {
  const readCounter = async () => {
    const value = (await getRecord(table, COUNTER_KEY))?.value;
    return typeof value === 'number' ? value : 0;
  };
  return (await readShards(rangeQuery(table, projection), readCounter, afterId, need)).records;
}
