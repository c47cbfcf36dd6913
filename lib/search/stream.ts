import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import * as v from 'valibot';
import { ITEM_PK } from '../items/keys.ts';
import { logger } from '../logger.ts';
import type { Indexer } from './indexer.ts';

const isDataError = (error: unknown) => error instanceof v.ValiError || error instanceof SyntaxError;

/** The distinct item ids a batch of stream records touches, each with its first sequence number. */
export function changedItems(records: readonly DynamoDBRecord[]): Map<number, string> {
  const ids = new Map<number, string>();
  for (const record of records) {
    const keys = record.dynamodb?.Keys;
    if (keys?.pk?.S !== ITEM_PK || !keys.sk?.S) continue;
    const id = Number(keys.sk.S);
    if (Number.isSafeInteger(id) && id > 0 && !ids.has(id))
      ids.set(id, record.dynamodb?.SequenceNumber ?? '');
  }
  return ids;
}

/**
 * Brings the index up to date for every item a batch touches. Each item is rebuilt from its current state,
 * so order, duplicates and retries do not matter; a failed item is reported so Lambda retries from there.
 */
export async function indexChanges(
  indexer: Indexer,
  records: readonly DynamoDBRecord[],
  concurrency = 4,
): Promise<DynamoDBBatchResponse> {
  const queue = [...changedItems(records)];
  const failures: { itemIdentifier: string }[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [id, sequenceNumber] = next;
      try {
        await indexer.reindexItem(id);
      } catch (error) {
        // A stored record that does not parse cannot be fixed by retrying: report it and move on,
        // so one bad record never holds up the index for every change behind it.
        if (isDataError(error)) {
          logger.error('item cannot be indexed: its stored record is invalid', { itemId: id, error });
          continue;
        }
        logger.error('indexing failed', { itemId: id, error });
        failures.push({ itemIdentifier: sequenceNumber });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { batchItemFailures: failures };
}
