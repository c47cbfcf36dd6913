// A change of an item as a read, then a put at the version read. Without If-Match a lost race is retried from a
// fresh read (the change applies to what is stored then); with If-Match it is a conflict.
import { retry } from '../retry.ts';
import { VersionConflictError, WriteContentionError } from './errors.ts';
import { sameFields, writableFields } from './merge-patch.ts';
import { getItem } from './reader.ts';
import type { Item, ItemWrite } from './schema.ts';
import type { ItemTable } from './table.ts';
import { landed, putIfVersion } from './writer.ts';

/** One change of one item, as the repository's `update` receives it. */
export interface ItemChange {
  id: number;
  /** The writable fields the item is to have, from its current state. */
  change: (current: Item) => ItemWrite;
  /** The version the caller expects (`If-Match`). */
  ifMatch: number | undefined;
  now: () => Date;
  /** How often a write without `If-Match` retries after losing a race before giving up. */
  maxAttempts: number;
}

/** Applies the change, retrying a lost race without `If-Match` until the attempts run out. */
export function updateItem(table: ItemTable, request: ItemChange): Promise<Item> {
  return retry(() => attemptUpdate(table, request), {
    attempts: request.maxAttempts,
    backoff: { baseMs: 10, maxMs: 100 },
    retryable: (error) => error instanceof WriteContentionError,
  });
}

/** One read and conditional put; WriteContentionError when another writer won the race without `If-Match`. */
async function attemptUpdate(table: ItemTable, { id, change, ifMatch, now }: ItemChange): Promise<Item> {
  const current = await getItem(table, id);
  if (ifMatch !== undefined && current.version !== ifMatch) throw new VersionConflictError(id, ifMatch);
  const fields = change(current);
  if (sameFields(writableFields(current), fields)) return current;
  const next: Item = { ...current, ...fields, updatedAt: now().toISOString(), version: current.version + 1 };
  if ((await putIfVersion(table, next, current.version)) === 'written') return next;
  if (ifMatch === undefined) throw new WriteContentionError(id);
  if (await landed(table, next)) return next;
  throw new VersionConflictError(id, ifMatch);
}
