import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RequestCounts } from '../../../../lib/dynamodb/client.ts';
import { itemKey } from '../../../../lib/items/keys.ts';
import { type Indexer, type IndexOutcome, noCounts } from '../../../../lib/search/write/indexer.ts';
import { indexChanges } from '../../../../lib/search/write/stream.ts';

/** A stream record of a write to item `id` (what the handler reads of it: the keys and the sequence number). */
const recordOf = (id: number, sequence: number) =>
  ({
    dynamodb: {
      Keys: { pk: { S: itemKey(id).pk }, sk: { S: itemKey(id).sk } },
      SequenceNumber: `${sequence}`,
    },
  }) as DynamoDBRecord;

/**
 * An indexer whose batches fail when `batchFails`, and whose single items fail or are invalid as listed: what the
 * handler does with each outcome, without a table (the indexer itself is tested on DynamoDB Local).
 */
function indexerWith({
  batchFails = false,
  failing = [] as number[],
  invalid = [] as number[],
} = {}): Indexer {
  const outcome = (id: number): IndexOutcome => (invalid.includes(id) ? 'invalid' : 'indexed');
  return {
    async reindexItems(ids) {
      if (batchFails) throw new Error('the batch failed');
      return new Map(ids.map((id) => [id, outcome(id)]));
    },
    async reindexItem(id) {
      if (failing.includes(id)) throw new Error(`item ${id} failed`);
      return outcome(id);
    },
    compact: async () => 0,
    counts: noCounts(),
  };
}

/** Runs indexChanges with a metrics object of its own and returns its response and the EMF record it published. */
async function run(indexer: Indexer, records: DynamoDBRecord[], requests?: RequestCounts) {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const metrics = new Metrics({ namespace: 'Test', serviceName: 'items' });
  const response = await indexChanges(indexer, records, { metrics, ...(requests ? { requests } : {}) });
  metrics.publishStoredMetrics();
  vi.restoreAllMocks();
  const emf = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"_aws"'));
  expect(emf).toHaveLength(1);
  return { response, emf: JSON.parse(emf[0] ?? '{}') };
}

afterEach(() => vi.restoreAllMocks());

describe('the stream handler’s metrics (operation indexItems)', () => {
  it('counts the items a batch touched, once each, and no split or failure when the batch succeeds', async () => {
    const { response, emf } = await run(indexerWith(), [recordOf(1, 10), recordOf(2, 11), recordOf(1, 12)]);
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(emf).toMatchObject({
      operation: 'indexItems',
      indexedItems: 2,
      batchSplits: 0,
      failedItems: 0,
      invalidItems: 0,
      slowPasses: 0,
    });
    expect(emf.batchLatency).toBeGreaterThanOrEqual(0);
    expect(emf._aws.CloudWatchMetrics[0].Metrics.map((m: { Name: string }) => m.Name)).toStrictEqual([
      'indexedItems',
      'batchSplits',
      'failedItems',
      'invalidItems',
      'slowPasses',
      'batchLatency',
      'passes',
      'planMs',
      'writeAheadMs',
      'rollbackMs',
      'postingsMs',
      'commitMs',
    ]);
  });

  it('counts a batch split into single items, and the items that failed or are invalid', async () => {
    const indexer = indexerWith({ batchFails: true, failing: [3], invalid: [4] });
    const { response, emf } = await run(
      indexer,
      [1, 2, 3, 4].map((id) => recordOf(id, 20 + id)),
    );
    // Lambda retries from the first failed item's record; the invalid one is logged and skipped.
    expect(response).toStrictEqual({ batchItemFailures: [{ itemIdentifier: '23' }] });
    expect(emf).toMatchObject({ indexedItems: 4, batchSplits: 1, failedItems: 1, invalidItems: 1 });
  });

  it('counts the requests the batch sent, the retries the SDK made of them (attempts past the first) and their writes, not those made before', async () => {
    // The client's counts as countRequests keeps them (its own test sends real requests to DynamoDB Local): 10
    // requests, 12 attempts and 40 writes before this batch; the batch sends 5 requests in 8 attempts, with 60 writes.
    const requests = { requests: 10, attempts: 12, writes: 40 };
    const indexer = indexerWith();
    const reindexItems = indexer.reindexItems;
    indexer.reindexItems = async (ids) => {
      Object.assign(requests, {
        requests: requests.requests + 5,
        attempts: requests.attempts + 8,
        writes: requests.writes + 60,
      });
      return reindexItems(ids);
    };
    const { emf } = await run(indexer, [recordOf(1, 30)], requests);
    expect(emf).toMatchObject({
      indexedItems: 1,
      dynamodbRequests: 5,
      dynamodbRetries: 3,
      dynamodbWrites: 60,
    });
  });

  it('counts the passes, their steps’ times and the passes the table was too slow for during the batch, not those before it', async () => {
    const counts = noCounts();
    Object.assign(counts, { slowPasses: 2, passes: 5 });
    Object.assign(counts.stepMs, { plan: 100, writeAhead: 50, rollback: 1, postings: 900, commit: 40 });
    const indexer = { ...indexerWith(), counts };
    const reindexItems = indexer.reindexItems;
    indexer.reindexItems = async (ids) => {
      Object.assign(counts, { slowPasses: counts.slowPasses + 3, passes: counts.passes + 4 });
      Object.assign(counts.stepMs, { plan: 112, writeAhead: 57, rollback: 1, postings: 1_200, commit: 48 });
      return reindexItems(ids);
    };
    const { emf } = await run(indexer, [recordOf(1, 40)]);
    expect(emf).toMatchObject({
      indexedItems: 1,
      slowPasses: 3,
      passes: 4,
      planMs: 12,
      writeAheadMs: 7,
      rollbackMs: 0,
      postingsMs: 300,
      commitMs: 8,
    });
  });
});
