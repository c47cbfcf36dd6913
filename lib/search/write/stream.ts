import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { RequestCounts } from '../../dynamodb/client.ts';
import { itemIdOf } from '../../items/keys.ts';
import { logger, metrics as serviceMetrics } from '../../observability.ts';
import { reindexBatch } from './batch.ts';
import type { Indexer } from './indexer.ts';

/** The distinct item ids a batch of stream records touches, each with its first sequence number. */
export function changedItems(records: readonly DynamoDBRecord[]): Map<number, string> {
  const ids = new Map<number, string>();
  for (const record of records) {
    const keys = record.dynamodb?.Keys;
    const id = itemIdOf({ pk: keys?.pk?.S, sk: keys?.sk?.S });
    if (id !== undefined && !ids.has(id)) ids.set(id, record.dynamodb?.SequenceNumber ?? '');
  }
  return ids;
}

/**
 * Brings the index up to date for every item a batch touches, as one batch (`reindexItems`), its passes sized to end
 * by the invocation's `deadline` (epoch ms) if given. Each item is rebuilt from its current state, so order,
 * duplicates and retries do not matter. If the batch fails, its items are taken one by one and the failed ones
 * reported, so Lambda retries from the first of them (and, after its retries, sends the rest of the batch to the
 * failures queue: docs/operations.md, redrive).
 *
 * Each batch adds its figures to `metrics` (operation indexItems; the handler publishes them): the items it
 * touched, whether it was split into single items, the items that failed or are invalid, the passes the table was
 * too slow for (context.ts `WriterCounts`), its latency, and (given the client's `requests`: client.ts
 * `countRequests`) the retries the SDK made of its DynamoDB requests.
 */
export async function indexChanges(
  indexer: Indexer,
  records: readonly DynamoDBRecord[],
  {
    concurrency = 4,
    metrics = serviceMetrics,
    requests,
    deadline,
  }: { concurrency?: number; metrics?: Metrics; requests?: RequestCounts; deadline?: number } = {},
): Promise<DynamoDBBatchResponse> {
  const started = process.hrtime.bigint();
  const retriesBefore = requests ? requests.attempts - requests.requests : 0;
  const slowBefore = indexer.counts.slowPasses;
  const changed = changedItems(records);
  const { invalid, failed, split } = await reindexBatch(indexer, [...changed.keys()], {
    concurrency,
    deadline,
  });
  metrics.addDimension('operation', 'indexItems');
  metrics.addMetric('indexedItems', MetricUnit.Count, changed.size);
  metrics.addMetric('batchSplits', MetricUnit.Count, split ? 1 : 0);
  metrics.addMetric('failedItems', MetricUnit.Count, failed.length);
  metrics.addMetric('invalidItems', MetricUnit.Count, invalid.length);
  metrics.addMetric('slowPasses', MetricUnit.Count, indexer.counts.slowPasses - slowBefore);
  metrics.addMetric('batchLatency', MetricUnit.Milliseconds, Number(process.hrtime.bigint() - started) / 1e6);
  if (requests)
    metrics.addMetric(
      'dynamodbRetries',
      MetricUnit.Count,
      requests.attempts - requests.requests - retriesBefore,
    );
  // A stored record that does not parse cannot be fixed by retrying: say so and move on, so one bad record never
  // holds up the index for every change behind it (rewriting the item brings a new stream record).
  for (const { id, error } of invalid)
    logger.error('item cannot be indexed: its stored record is invalid', { itemId: id, error });
  for (const { id, error } of failed) logger.error('indexing failed', { itemId: id, error });
  return { batchItemFailures: failed.map(({ id }) => ({ itemIdentifier: changed.get(id) ?? '' })) };
}
