import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { ITEM_PK } from '../items/keys.ts';
import type { Indexer } from './indexer.ts';

/** The distinct item ids a batch of stream records touches, in the order they first appear. */
export function changedItems(records: readonly DynamoDBRecord[]): number[] {
  const ids = new Set<number>();
  for (const record of records) {
    const keys = record.dynamodb?.Keys;
    if (keys?.pk?.S !== ITEM_PK || !keys.sk?.S) continue;
    const id = Number(keys.sk.S);
    if (Number.isSafeInteger(id) && id > 0) ids.add(id);
  }
  return [...ids];
}

/**
 * Brings the index up to date for every item a batch touches, as one batch (lib/search/indexer.ts): each item
 * is rebuilt from its current state, so order, duplicates and retries do not matter. An item whose stored record
 * does not parse is logged and passed over (retrying cannot fix it). Any other failure fails the invocation, so
 * Lambda retries the batch, bisecting it (BisectBatchOnFunctionError) until the failing records stand alone and,
 * past the retry limit, sends them to the on-failure destination.
 */
export async function indexChanges(
  indexer: Indexer,
  records: readonly DynamoDBRecord[],
): Promise<DynamoDBBatchResponse> {
  const ids = changedItems(records);
  if (ids.length > 0) await indexer.reindexItems(ids);
  return { batchItemFailures: [] };
}
