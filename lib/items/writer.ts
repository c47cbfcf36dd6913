// The item writes, each one conditional request: a fresh item's put, a put at an expected version, a delete.
import { isDeepStrictEqual } from 'node:util';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { isConditionFailure } from '../dynamodb/conditions.ts';
import { ItemNotFoundError, VersionConflictError } from './errors.ts';
import type { LeaseIds } from './ids.ts';
import { COUNTER_KEY, itemKey } from './keys.ts';
import { getItem } from './reader.ts';
import { toRecord } from './record.ts';
import { type Item, ItemIdSchema } from './schema.ts';
import type { ItemTable } from './table.ts';

/** Leases ids from the counter with one atomic ADD (ids.ts). */
export const leaseIds =
  ({ client, tableName }: ItemTable): LeaseIds =>
  async (size) => {
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: COUNTER_KEY,
        UpdateExpression: 'ADD #value :size',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':size': size },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return v.parse(ItemIdSchema, Attributes?.value);
  };

/**
 * Writes a new item; `alsoWrite` adds a write committed in the same transaction (an idempotency record). The SDK
 * sends a retried transaction with the same client request token, so DynamoDB applies it once.
 */
export async function putNew(
  table: ItemTable,
  item: Item,
  alsoWrite?: (item: Item) => Record<string, unknown>,
): Promise<void> {
  const { client, tableName } = table;
  const put = { TableName: tableName, Item: toRecord(item), ConditionExpression: 'attribute_not_exists(pk)' };
  if (alsoWrite) {
    await client.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, alsoWrite(item)] }));
    return;
  }
  try {
    await client.send(new PutCommand(put));
  } catch (error) {
    // The id is fresh from the counter, so a record already there is this very write, or a real failure.
    if (!isConditionFailure(error) || !(await landed(table, item))) throw error;
  }
}

/**
 * After a refused conditional put: whether the stored record is exactly `item`, i.e. the put had landed and its
 * reply was lost (a timeout), so the SDK sent it again and the repeat's condition failed.
 */
export async function landed(table: ItemTable, item: Item): Promise<boolean> {
  const stored = await getItem(table, item.id).catch(() => undefined);
  return stored !== undefined && isDeepStrictEqual(toRecord(stored), toRecord(item));
}

/** Writes `item` only if the stored version is still `expectedVersion`; explains a refusal. */
export async function putIfVersion(
  { client, tableName }: ItemTable,
  item: Item,
  expectedVersion: number,
): Promise<'written' | 'raced'> {
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: toRecord(item),
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':expected': expectedVersion },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'written';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (!error.Item) throw new ItemNotFoundError(item.id);
    return 'raced';
  }
}

/** Deletes the item if it exists (and is at version `ifMatch`, when given). */
export async function deleteItem(
  { client, tableName }: ItemTable,
  id: number,
  ifMatch: number | undefined,
): Promise<void> {
  try {
    await client.send(
      new DeleteCommand({
        TableName: tableName,
        Key: itemKey(id),
        ConditionExpression: ifMatch === undefined ? 'attribute_exists(pk)' : 'version = :expected',
        ...(ifMatch === undefined ? {} : { ExpressionAttributeValues: { ':expected': ifMatch } }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (!error.Item || ifMatch === undefined) throw new ItemNotFoundError(id);
    throw new VersionConflictError(id, ifMatch);
  }
}
