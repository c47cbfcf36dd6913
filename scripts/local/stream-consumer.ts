// The local stand-in for Lambda's DynamoDB Streams trigger: polls DynamoDB Local's stream for the table and
// hands each batch to the very handler that runs on AWS (functions/index-items.ts). Started by the local stack.

import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

const endpoint = process.env.DYNAMODB_ENDPOINT ?? '';
const tableName = process.env.TABLE_NAME ?? '';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials });
const { handler } = await import('../../functions/index-items.ts');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const table = await new DynamoDBClient({ endpoint, region: 'us-east-1', credentials }).send(
  new DescribeTableCommand({ TableName: tableName }),
);
const streamArn = table.Table?.LatestStreamArn;
if (!streamArn) throw new Error(`Table ${tableName} has no stream`);

// Shard id → iterator. Shards are read from their start: rebuilding is idempotent, so replays are harmless.
const iterators = new Map<string, string | undefined>();
// As Lambda's maximumRetryAttempts: a batch that keeps failing is retried with back-off, then skipped.
const MAX_ATTEMPTS = 10;
const attempts = new Map<string, number>();
const finished = new Set<string>();
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});

async function discoverShards() {
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

/** The stream records as Lambda delivers them (the SDK's shape is the same JSON). */
const toLambdaRecords = (records: _Record[]) => records as unknown as DynamoDBRecord[];

let lastDiscovery = 0;
while (!stopping) {
  if (Date.now() - lastDiscovery > 5_000 || iterators.size === 0) {
    await discoverShards().catch(() => {});
    lastDiscovery = Date.now();
  }
  let busy = false;
  for (const [shardId, iterator] of iterators) {
    if (!iterator) {
      iterators.delete(shardId);
      finished.add(shardId);
      continue;
    }
    try {
      const reply = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
      const records = reply.Records ?? [];
      if (records.length > 0) {
        busy = true;
        const { batchItemFailures } = await handler({ Records: toLambdaRecords(records) });
        const tries = (attempts.get(iterator) ?? 0) + 1;
        // As Lambda does: retry the batch from the start, leaving the iterator where it was.
        if (batchItemFailures.length > 0 && tries < MAX_ATTEMPTS) {
          attempts.set(iterator, tries);
          await pause(Math.min(2000, 50 * 2 ** tries));
          continue;
        }
        attempts.delete(iterator);
        if (batchItemFailures.length > 0)
          console.error(`stream consumer: skipping a batch after ${tries} attempts`);
      }
      iterators.set(shardId, reply.NextShardIterator);
    } catch {
      iterators.delete(shardId);
      finished.delete(shardId);
    }
  }
  if (!busy) await pause(100);
}
process.exit(0);
