import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createIdAllocator } from './ids.ts';
import { createItemLookup, type ItemLookup, recordsAfter } from './reader.ts';
import { fromRecord } from './record.ts';
import type { Item, ItemWrite } from './schema.ts';
import type { ItemTable } from './table.ts';
import { updateItem } from './update.ts';
import { deleteItem, leaseIds, putNew } from './writer.ts';

/** Options of a conditional write: `ifMatch` is the version the caller expects (`If-Match`). */
export interface WriteOptions {
  ifMatch?: number | undefined;
}

export interface ItemPage {
  items: Item[];
  /** Set when more items follow the last one of this page. */
  hasMore: boolean;
}

export interface ItemRepository extends ItemLookup {
  list(options: { limit: number; afterId?: number | undefined }): Promise<ItemPage>;
  /** Item ids in id order after `afterId` (keys only: an item whose record does not parse is still listed). */
  listIds(options: {
    limit: number;
    afterId?: number | undefined;
  }): Promise<{ ids: number[]; more: boolean }>;
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

/** The items repository over one DynamoDB table: reads in reader.ts, writes in writer.ts and update.ts. */
export function createItemRepository({
  client,
  tableName,
  now = () => new Date(),
  maxAttempts = 25,
  maxLease = 100,
}: ItemRepositoryOptions): ItemRepository {
  const table: ItemTable = { client, tableName };
  const nextId = createIdAllocator(leaseIds(table), { maxLease });
  return {
    async list({ limit, afterId }) {
      // One extra item tells whether another page follows without returning an empty last page.
      const records = await recordsAfter(table, afterId ?? 0, limit + 1);
      return { items: records.slice(0, limit).map(fromRecord), hasMore: records.length > limit };
    },
    async listIds({ limit, afterId }) {
      const records = await recordsAfter(table, afterId ?? 0, limit + 1, 'pk, sk, id');
      return {
        ids: records.slice(0, limit).map((record) => Number(record.sk)),
        more: records.length > limit,
      };
    },
    ...createItemLookup(table),
    async create(fields, { alsoWrite } = {}) {
      const id = await nextId();
      const timestamp = now().toISOString();
      const item: Item = { id, ...fields, createdAt: timestamp, updatedAt: timestamp, version: 1 };
      await putNew(table, item, alsoWrite);
      return item;
    },
    update: (id, change, { ifMatch } = {}) => updateItem(table, { id, change, ifMatch, now, maxAttempts }),
    delete: (id, { ifMatch } = {}) => deleteItem(table, id, ifMatch),
  };
}
