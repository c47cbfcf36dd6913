import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { RequestCounts } from '../../dynamodb/client.ts';
import { itemIdOf } from '../../items/keys.ts';
import { logger, metrics as serviceMetrics } from '../../observability.ts';
import { type BatchResult, reindexBatch } from './batch.ts';
import { type Indexer, STEPS, type WriterCounts } from './indexer.ts';

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

/** What a batch's figures are the change of: the clock, the writer's counts and the client's requests. */
function figuresNow(indexer: Indexer, requests: RequestCounts | undefined) {
  return {
    at: process.hrtime.bigint(),
    counts: structuredClone(indexer.counts) as WriterCounts,
    requests: requests ? { ...requests } : undefined,
  };
}
type Figures = ReturnType<typeof figuresNow>;

/** What the batch of `items` added to each figure, into `metrics` (operation indexItems). */
function addBatchMetrics(
  metrics: Metrics,
  [before, after]: [Figures, Figures],
  items: number,
  result: BatchResult,
) {
  const count = (name: string, value: number) => metrics.addMetric(name, MetricUnit.Count, value);
  const ms = (name: string, value: number) => metrics.addMetric(name, MetricUnit.Milliseconds, value);
  metrics.addDimension('operation', 'indexItems');
  count('indexedItems', items);
  count('batchSplits', result.split ? 1 : 0);
  count('failedItems', result.failed.length);
  count('invalidItems', result.invalid.length);
  count('slowPasses', after.counts.slowPasses - before.counts.slowPasses);
  ms('batchLatency', Number(after.at - before.at) / 1e6);
  count('passes', after.counts.passes - before.counts.passes);
  for (const step of STEPS) ms(`${step}Ms`, after.counts.stepMs[step] - before.counts.stepMs[step]);
  if (!before.requests || !after.requests) return;
  count('dynamodbRequests', after.requests.requests - before.requests.requests);
  count('dynamodbWrites', after.requests.writes - before.requests.writes);
  const retries = ({ requests, attempts }: RequestCounts) => attempts - requests;
  count('dynamodbRetries', retries(after.requests) - retries(before.requests));
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
 * too slow for (context.ts `WriterCounts`), its latency, its passes and the time each step of them took, and (given
 * the client's `requests`: client.ts `countRequests`) the DynamoDB requests it sent, the retries the SDK made and the
 * writes the requests carried.
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
  const before = figuresNow(indexer, requests);
  const changed = changedItems(records);
  const result = await reindexBatch(indexer, [...changed.keys()], { concurrency, deadline });
  addBatchMetrics(metrics, [before, figuresNow(indexer, requests)], changed.size, result);
  // A stored record that does not parse cannot be fixed by retrying: say so and move on, so one bad record never
  // holds up the index for every change behind it (rewriting the item brings a new stream record).
  for (const { id, error } of result.invalid)
    logger.error('item cannot be indexed: its stored record is invalid', { itemId: id, error });
  for (const { id, error } of result.failed) logger.error('indexing failed', { itemId: id, error });
  return { batchItemFailures: result.failed.map(({ id }) => ({ itemIdentifier: changed.get(id) ?? '' })) };
}
