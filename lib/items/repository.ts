import { isDeepStrictEqual } from 'node:util';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { isConditionFailure } from '../dynamodb/conditions.ts';
import { retry } from '../retry.ts';
import { ItemNotFoundError, VersionConflictError, WriteContentionError } from './errors.ts';
import { createIdAllocator } from './ids.ts';
import { COUNTER_KEY, itemKey } from './keys.ts';
import { sameFields, writableFields } from './merge-patch.ts';
import { createRecordReader } from './reader.ts';
import { fromRecord, toRecord } from './record.ts';
import { type Item, ItemIdSchema, type ItemWrite } from './schema.ts';

/** Options of a conditional write: `ifMatch` is the version the caller expects (`If-Match`). */
export interface WriteOptions {
  ifMatch?: number | undefined;
}

export interface ItemPage {
  items: Item[];
  /** Set when more items follow the last one of this page. */
  hasMore: boolean;
}

export interface ItemRepository {
  list(options: { limit: number; afterId?: number | undefined }): Promise<ItemPage>;
  /** Item ids in id order after `afterId` (keys only: an item whose record does not parse is still listed). */
  listIds(options: {
    limit: number;
    afterId?: number | undefined;
  }): Promise<{ ids: number[]; more: boolean }>;
  get(id: number): Promise<Item>;
  /**
   * The items among `ids` that exist, keyed by id: strongly consistent, unless `consistent: false` (half the read
   * units; a write may take a moment to show, as it does in DynamoDB's eventually consistent reads).
   */
  getMany(ids: readonly number[], options?: { consistent?: boolean }): Promise<Map<number, Item>>;
  /** Creates an item; `alsoWrite` adds a write committed in the same transaction (an idempotency record). */
  create(fields: ItemWrite, options?: { alsoWrite?: (item: Item) => Record<string, unknown> }): Promise<Item>;
  /** Replaces the writable fields with the result of `change`; retried on a lost race unless `ifMatch` is set. */
  update(id: number, change: (current: Item) => ItemWrite, options?: WriteOptions): Promise<Item>;
  delete(id: number, options?: WriteOptions): Promise<void>;
}

export interface ItemRepositoryOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  now?: () => Date;
  /** How often a write without `If-Match` retries after losing a race before giving up. */
  maxAttempts?: number;
  /** The most ids one lease from the counter takes (lib/items/ids.ts). */
  maxLease?: number;
}

/** The items repository over one DynamoDB table (see keys.ts for the key design). */
export function createItemRepository({
  client,
  tableName,
  now = () => new Date(),
  maxAttempts = 25,
  maxLease = 100,
}: ItemRepositoryOptions): ItemRepository {
  const reader = createRecordReader(client, tableName);

  const nextId = createIdAllocator(
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
    },
    { maxLease },
  );

  async function get(id: number): Promise<Item> {
    const record = await reader.one(id);
    if (!record) throw new ItemNotFoundError(id);
    return fromRecord(record);
  }

  /**
   * After a refused conditional put: whether the stored record is exactly `item`, i.e. the put had landed and its
   * reply was lost (a timeout), so the SDK sent it again and the repeat's condition failed.
   */
  async function landed(item: Item): Promise<boolean> {
    const stored = await get(item.id).catch(() => undefined);
    return stored !== undefined && isDeepStrictEqual(toRecord(stored), toRecord(item));
  }

  /** Writes `item` only if the stored version is still `expectedVersion`; explains a refusal. */
  async function putIfVersion(item: Item, expectedVersion: number): Promise<'written' | 'raced'> {
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

  /** Deletes the record at `key` if it exists (and is at version `ifMatch`, when given). */
  async function remove(id: number, key: Record<string, string>, ifMatch: number | undefined) {
    try {
      await client.send(
        new DeleteCommand({
          TableName: tableName,
          Key: key,
          ConditionExpression: ifMatch === undefined ? 'attribute_exists(pk)' : 'version = :expected',
          ...(ifMatch === undefined ? {} : { ExpressionAttributeValues: { ':expected': ifMatch } }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'deleted';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (!error.Item || ifMatch === undefined) return 'absent';
      throw new VersionConflictError(id, ifMatch);
    }
  }

  return {
    async list({ limit, afterId }) {
      // One extra item tells whether another page follows without returning an empty last page.
      const records = await reader.after(afterId ?? 0, limit + 1);
      return { items: records.slice(0, limit).map(fromRecord), hasMore: records.length > limit };
    },

    async listIds({ limit, afterId }) {
      const records = await reader.after(afterId ?? 0, limit + 1, 'pk, sk, id');
      return {
        ids: records.slice(0, limit).map((record) => Number(record.sk)),
        more: records.length > limit,
      };
    },

    get,

    async getMany(ids, { consistent = true } = {}) {
      return new Map((await reader.many(ids, consistent)).map(fromRecord).map((item) => [item.id, item]));
    },

    async create(fields, { alsoWrite } = {}) {
      const id = await nextId();
      const timestamp = now().toISOString();
      const item: Item = { id, ...fields, createdAt: timestamp, updatedAt: timestamp, version: 1 };
      const put = {
        TableName: tableName,
        Item: toRecord(item),
        ConditionExpression: 'attribute_not_exists(pk)',
      };
      if (alsoWrite) {
        // The SDK sends a retried transaction with the same client request token: DynamoDB applies it once.
        await client.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, alsoWrite(item)] }));
        return item;
      }
      try {
        await client.send(new PutCommand(put));
      } catch (error) {
        // The id is fresh from the counter, so a record already there is this very write, or a real failure.
        if (!isConditionFailure(error) || !(await landed(item))) throw error;
      }
      return item;
    },

    async update(id, change, { ifMatch } = {}) {
      const attempt = async () => {
        const current = await get(id);
        if (ifMatch !== undefined && current.version !== ifMatch) throw new VersionConflictError(id, ifMatch);
        const fields = change(current);
        if (sameFields(writableFields(current), fields)) return current;
        const next: Item = {
          ...current,
          ...fields,
          updatedAt: now().toISOString(),
          version: current.version + 1,
        };
        if ((await putIfVersion(next, current.version)) === 'written') return next;
        if (ifMatch !== undefined) {
          if (await landed(next)) return next;
          throw new VersionConflictError(id, ifMatch);
        }
        // Lost a race without If-Match: read again and re-apply, until the attempts run out.
        throw new WriteContentionError(id);
      };
      return retry(attempt, {
        attempts: maxAttempts,
        backoff: { baseMs: 10, maxMs: 100 },
        retryable: (error) => error instanceof WriteContentionError,
      });
    },

    async delete(id, { ifMatch } = {}) {
      if ((await remove(id, itemKey(id), ifMatch)) === 'deleted') return;
      throw new ItemNotFoundError(id);
    },
  };
}
