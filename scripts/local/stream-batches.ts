// How Lambda's DynamoDB stream event source mapping treats one batch, for the local consumer (stream-consumer.ts),
// with the settings serverless.yml gives it (infra/stream.json): a batch whose invocation throws is split in two and
// each half retried on its own; a reported partial failure is retried from the first failed record; after
// maximumRetryAttempts retries the batch is given up and its on-failure record (the JSON Lambda sends to the SQS
// destination) handed to `onFailure`.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { FailureRecord } from '../redrive.ts';
import { type FilterPattern, passesFilters } from './stream-filter.ts';

export interface StreamSettings {
  batchSize: number;
  batchWindow: number;
  maximumRetryAttempts: number;
  maximumRecordAgeInSeconds: number;
  parallelizationFactor: number;
  /** The function's timeout in seconds (serverless.yml); the local consumer tells the handler what is left of it. */
  functionTimeout: number;
  /** The records that invoke the function (Lambda's event filtering; serverless.yml deploys the same). */
  filterPatterns: FilterPattern[];
}

/** The stream event's settings, as serverless.yml reads them. */
export const streamSettings: StreamSettings = JSON.parse(
  readFileSync(new URL('../../infra/stream.json', import.meta.url), 'utf8'),
);

/**
 * A batch cut as Lambda runs up to `parallelizationFactor` batches of one shard at once: its records spread over that
 * many concurrent batches by their item's key (partition and sort key), so each item's records stay together and in
 * order. Empty batches are left out.
 */
export function concurrentBatches(records: readonly DynamoDBRecord[], factor: number): DynamoDBRecord[][] {
  const batches: DynamoDBRecord[][] = Array.from({ length: Math.max(1, factor) }, () => []);
  for (const record of records) {
    const keys = record.dynamodb?.Keys;
    const key = `${keys?.pk?.S ?? ''}\u0000${keys?.sk?.S ?? ''}`;
    let hash = 0;
    for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0;
    batches[hash % batches.length]?.push(record);
  }
  return batches.filter((batch) => batch.length > 0);
}

/**
 * Adds an iterator for every shard of the stream not in `iterators` nor `finished`, from the shard's start (TRIM_HORIZON:
 * rebuilding is idempotent, so replays are harmless).
 */
export async function discoverShards(
  streams: DynamoDBStreamsClient,
  streamArn: string,
  iterators: Map<string, string | undefined>,
  finished: ReadonlySet<string>,
): Promise<void> {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  for (const shard of StreamDescription?.Shards ?? []) {
    const id = shard.ShardId;
    if (!id || iterators.has(id) || finished.has(id)) continue;
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: id, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    iterators.set(id, ShardIterator);
  }
}

/**
 * Reads one batch as Lambda's poller makes it: GetRecords after GetRecords until `batchSize` item records are in
 * hand or the shard has nothing more for now (with a batching window of 0 Lambda invokes with what there is).
 * Records the filter patterns do not pass (the index's own, idempotency records) are dropped as the deployed event
 * source mapping drops them (infra/stream.json), and do not count towards the batch: on this one table they are most
 * of the stream.
 */
export async function readBatch(
  streams: DynamoDBStreamsClient,
  iterator: string,
  batchSize: number,
): Promise<{ records: DynamoDBRecord[]; read: number; next: string | undefined }> {
  const records: DynamoDBRecord[] = [];
  let read = 0;
  let next: string | undefined = iterator;
  while (next && records.length < batchSize) {
    const reply: GetRecordsCommandOutput = await streams.send(
      new GetRecordsCommand({ ShardIterator: next, Limit: Math.min(1000, batchSize - records.length) }),
    );
    const page = (reply.Records ?? []) as unknown as DynamoDBRecord[];
    read += page.length;
    next = reply.NextShardIterator;
    records.push(...page.filter((record) => passesFilters(streamSettings.filterPatterns, record)));
    if (page.length === 0) break;
  }
  return { records, read, next };
}

/**
 * Reads the stream as Lambda's poller does: every shard from its start (TRIM_HORIZON), new shards as they appear
 * (looked for every 5 s), one batch at a time (`readBatch`), until `stopping()`. Each batch of item records goes to
 * `deliver` with how many records its reads took; the shard moves on once `deliver` resolves. A shard that fails to
 * read is read again from its start.
 *
 * A shard is read only once its last batch is done. Reading it ahead while a batch is indexed was measured
 * (bench:freshness, 5 rounds side by side): Cranfield's consumer waited 4.6 s between batches instead of
 * 7.5 and settled 8 % sooner after the last create, but its index writes grew 9 %, and on DynamoDB Local's one lock
 * the creates ran 23 % slower: the load took 10 % longer from its first create to settled.
 */
export async function pollStream(
  streams: DynamoDBStreamsClient,
  streamArn: string,
  options: {
    batchSize: number;
    stopping: () => boolean;
    deliver: (records: DynamoDBRecord[], shardId: string, read: number) => Promise<void>;
  },
): Promise<void> {
  const iterators = new Map<string, string | undefined>();
  const finished = new Set<string>();
  let lastDiscovery = 0;
  while (!options.stopping()) {
    if (Date.now() - lastDiscovery > 5_000 || iterators.size === 0) {
      await discoverShards(streams, streamArn, iterators, finished).catch(() => {});
      lastDiscovery = Date.now();
    }
    let busy = false;
    for (const [shardId, iterator] of iterators) {
      if (options.stopping()) break;
      if (!iterator) {
        iterators.delete(shardId);
        finished.add(shardId);
        continue;
      }
      try {
        const { records, read, next } = await readBatch(streams, iterator, options.batchSize);
        if (read > 0) busy = true;
        if (records.length > 0) await options.deliver(records, shardId, read);
        iterators.set(shardId, next);
      } catch {
        iterators.delete(shardId);
        finished.delete(shardId);
      }
    }
    if (!busy) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What the handler learns of its invocation: the time left before Lambda would end it. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

export type StreamHandler = (
  event: { Records: DynamoDBRecord[] },
  context?: InvocationContext,
) => Promise<DynamoDBBatchResponse>;

export interface BatchOptions {
  handler: StreamHandler;
  /** With `functionTimeout`, each invocation's context counts down from it (the local consumer does not stop it). */
  settings: Pick<StreamSettings, 'maximumRetryAttempts'> & Partial<Pick<StreamSettings, 'functionTimeout'>>;
  streamArn: string;
  shardId: string;
  functionArn?: string;
  /** Waits between retries (Lambda backs off too). */
  pause?: (attempt: number) => Promise<void>;
  /** Stop retrying (the consumer is shutting down); the batch is left as it is. */
  stopping?: () => boolean;
  onFailure: (record: FailureRecord) => Promise<void> | void;
}

/** Lambda's timestamps in a failure record: ISO 8601 to the second. */
function arrival(record: DynamoDBRecord | undefined): string {
  const value = record?.dynamodb?.ApproximateCreationDateTime as unknown;
  const date = value instanceof Date ? value : new Date(Number(value ?? 0) * 1000);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function failureRecord(
  batch: readonly DynamoDBRecord[],
  { streamArn, shardId, functionArn }: Pick<BatchOptions, 'streamArn' | 'shardId' | 'functionArn'>,
  { invokeCount, functionError }: { invokeCount: number; functionError: boolean },
): FailureRecord {
  return {
    requestContext: {
      requestId: randomUUID(),
      functionArn: functionArn ?? 'arn:aws:lambda:us-east-1:000000000000:function:items-local-indexItems',
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: invokeCount,
    },
    responseContext: {
      statusCode: 200,
      executedVersion: '$LATEST',
      ...(functionError ? { functionError: 'Unhandled' } : {}),
    },
    version: '1.0',
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      shardId,
      startSequenceNumber: batch[0]?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: batch.at(-1)?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival(batch[0]),
      approximateArrivalOfLastRecord: arrival(batch.at(-1)),
      batchSize: batch.length,
      streamArn,
    },
  };
}

/** An invocation's context, its time counting down from `timeoutSeconds` from now (none without a timeout). */
function invocation(timeoutSeconds: number | undefined): InvocationContext | undefined {
  if (timeoutSeconds === undefined) return undefined;
  const end = Date.now() + timeoutSeconds * 1000;
  return { getRemainingTimeInMillis: () => end - Date.now() };
}

/** Delivers one batch as Lambda would; resolves once it succeeded or was given up (see `onFailure`). */
export async function deliverBatch(records: readonly DynamoDBRecord[], options: BatchOptions): Promise<void> {
  const pause =
    options.pause ?? ((attempt) => new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempt))));
  // Splitting a batch does not use up a retry; each half starts with the retries its parent had left.
  async function deliver(initial: readonly DynamoDBRecord[], retries: number): Promise<void> {
    let batch = initial;
    for (let invokeCount = 1, retried = retries; ; invokeCount++, retried++) {
      let functionError = false;
      try {
        const context = invocation(options.settings.functionTimeout);
        const { batchItemFailures = [] } = (await options.handler({ Records: [...batch] }, context)) ?? {};
        if (batchItemFailures.length === 0) return;
        // Partial success: retry from the earliest failed record (an unknown identifier fails the whole batch).
        const failed = batchItemFailures.map((f) =>
          batch.findIndex((r) => r.dynamodb?.SequenceNumber === f.itemIdentifier),
        );
        const from = failed.includes(-1) ? 0 : Math.min(...failed);
        batch = batch.slice(from);
      } catch {
        functionError = true;
        if (batch.length > 1) {
          const half = Math.ceil(batch.length / 2);
          await deliver(batch.slice(0, half), retried);
          await deliver(batch.slice(half), retried);
          return;
        }
      }
      if (retried >= options.settings.maximumRetryAttempts) {
        await options.onFailure(failureRecord(batch, options, { invokeCount, functionError }));
        return;
      }
      if (options.stopping?.()) return;
      await pause(retried + 1);
    }
  }
  await deliver(records, 0);
}
