// The local stand-in for Lambda's DynamoDB Streams trigger: polls DynamoDB Local's stream for the table and
// hands each batch to the very handler that runs on AWS (functions/index-items.ts). Started by the local stack.
// Batching and retries are the AWS event's (infra/stream.json, see stream-batches.ts); a batch given up on is
// written, as the on-failure record Lambda would send to the SQS queue, to .local/index-failures.jsonl.

import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { concurrentBatches, deliverBatch, pollStream, streamSettings } from './stream-batches.ts';

const endpoint = process.env.DYNAMODB_ENDPOINT ?? '';
const tableName = process.env.TABLE_NAME ?? '';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials });
const { handler } = await import('../../functions/index-items.ts');

const table = await new DynamoDBClient({ endpoint, region: 'us-east-1', credentials }).send(
  new DescribeTableCommand({ TableName: tableName }),
);
const streamArn = table.Table?.LatestStreamArn;
if (!streamArn) throw new Error(`Table ${tableName} has no stream`);

const FAILURES =
  process.env.INDEX_FAILURES_FILE ??
  fileURLToPath(new URL('../../.local/index-failures.jsonl', import.meta.url));
// A batch is what readBatch gathers (stream-batches.ts): up to batchSize item records, or what there is now, as
// Lambda invokes with a batching window of 0.
if (streamSettings.batchWindow !== 0)
  throw new Error('the local stream consumer supports a batchWindow of 0 only');
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});

// Shards are read from their start: rebuilding is idempotent, so replays are harmless.
await pollStream(streams, streamArn, {
  batchSize: streamSettings.batchSize,
  stopping: () => stopping,
  // As Lambda with parallelizationFactor > 1: the shard's batch runs as that many concurrent batches.
  deliver: async (records, shardId) => {
    const batches = concurrentBatches(records, streamSettings.parallelizationFactor);
    await Promise.all(
      batches.map((batch) =>
        deliverBatch(batch, {
          handler,
          settings: streamSettings,
          streamArn,
          shardId,
          stopping: () => stopping,
          onFailure(record) {
            mkdirSync(dirname(FAILURES), { recursive: true });
            appendFileSync(FAILURES, `${JSON.stringify(record)}\n`);
            const info = record.DDBStreamBatchInfo;
            const file = relative(process.cwd(), FAILURES);
            console.error(
              `stream consumer: gave up on ${info.batchSize} stream records (shard ${info.shardId}, sequence ` +
                `${info.startSequenceNumber} to ${info.endSequenceNumber}) after ` +
                `${record.requestContext?.approximateInvokeCount} attempts; the failure record is in ${file}. ` +
                `Redrive: npm run reindex -- --failure ${file}`,
            );
          },
        }),
      ),
    );
  },
});
process.exit(0);
