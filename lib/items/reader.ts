// Reading item records from their shards (keys.ts): one by id, many by id, and pages of them in id order.
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../dynamodb/batch-get.ts';
import { COUNTER_KEY, itemKey, itemSk } from './keys.ts';
import { type RangeQuery, readShards } from './list.ts';

type TableRecord = Record<string, unknown>;

/** Reads item records by id, and pages of them in id order. */
export function createRecordReader(client: DynamoDBDocumentClient, tableName: string) {
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
    /** The item's record; undefined when there is no such item. */
    async one(id: number): Promise<TableRecord | undefined> {
      return getRecord(itemKey(id));
    },

    /** The records of the items among `ids` that exist (consistent reads unless `consistent` is false). */
    async many(ids: readonly number[], consistent = true): Promise<TableRecord[]> {
      return batchGet(client, tableName, ids.map(itemKey), { consistent });
    },

    /** Up to `need` records with ids after `afterId`, in id order (fewer only when no more exist). */
    async after(afterId: number, need: number, projection?: string): Promise<TableRecord[]> {
      return (await readShards(rangeQuery(projection), readCounter, afterId, need)).records;
    },
  };
}
