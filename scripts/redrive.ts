// Redrive: bring the index up to date for what the stream consumer gave up on. Lambda's on-failure destination (and
// the local consumer) record a failed batch as a range of one stream shard; the range's records are read back from
// the stream (while it still has them: 24 h on AWS) and the items they name are reindexed.
// Used by scripts/reindex.ts (`--failure`); the streams client is a dev dependency, never bundled into a function.
import {
  type _Record,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import * as v from 'valibot';
import { changedItems } from '../lib/search/write/stream.ts';

/** The invocation record Lambda sends to an on-failure destination for a DynamoDB stream batch. */
export const FailureRecord = v.object({
  requestContext: v.optional(
    v.looseObject({ condition: v.optional(v.string()), approximateInvokeCount: v.optional(v.number()) }),
  ),
  responseContext: v.optional(v.looseObject({})),
  version: v.optional(v.string()),
  timestamp: v.optional(v.string()),
  DDBStreamBatchInfo: v.looseObject({
    shardId: v.string(),
    startSequenceNumber: v.string(),
    endSequenceNumber: v.string(),
    approximateArrivalOfFirstRecord: v.optional(v.string()),
    approximateArrivalOfLastRecord: v.optional(v.string()),
    batchSize: v.optional(v.number()),
    streamArn: v.string(),
  }),
});
export type FailureRecord = v.InferOutput<typeof FailureRecord>;

/**
 * Failure records from a file's text: one record (JSON), an array of them, JSON Lines (as the local consumer writes
 * them), or the output of `aws sqs receive-message` (each message's `Body` is a record).
 */
export function parseFailureRecords(text: string): FailureRecord[] {
  let values: unknown[];
  try {
    const whole: unknown = JSON.parse(text);
    values = Array.isArray(whole) ? whole : [whole];
  } catch {
    values = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
  }
  return values.flatMap((value) => {
    const messages = (value as { Messages?: unknown }).Messages;
    if (Array.isArray(messages))
      return messages.map((message) => v.parse(FailureRecord, JSON.parse(String(message.Body))));
    return [v.parse(FailureRecord, value)];
  });
}

/** Lambda's region for a stream ARN (`arn:aws:dynamodb:<region>:…`). */
export const regionOfArn = (arn: string): string | undefined => arn.split(':')[3] || undefined;

const GONE = new Set(['TrimmedDataAccessException', 'ResourceNotFoundException', 'ExpiredIteratorException']);

export type FailedRange =
  | { status: 'read'; records: number; ids: number[] }
  | { status: 'gone'; reason: string; ids: number[] };

/**
 * The item ids a failed batch's records name, read from its shard from the start to the end sequence number.
 * `gone` when the stream no longer holds them all (older than 24 h, or the stream was replaced).
 */
export async function readFailedRange(
  streams: DynamoDBStreamsClient,
  { DDBStreamBatchInfo: info }: FailureRecord,
): Promise<FailedRange> {
  const start = BigInt(info.startSequenceNumber);
  const end = BigInt(info.endSequenceNumber);
  let iterator: string | undefined;
  try {
    ({ ShardIterator: iterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: info.streamArn,
        ShardId: info.shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        SequenceNumber: info.startSequenceNumber,
      }),
    ));
  } catch (error) {
    if (error instanceof Error && GONE.has(error.name))
      return { status: 'gone', reason: `${error.name}: ${error.message}`, ids: [] };
    throw error;
  }
  const records: _Record[] = [];
  let reachedEnd = false;
  // An open shard answers an empty page when it has nothing more; a few in a row end the read.
  for (let empty = 0; iterator && !reachedEnd && empty < 3; ) {
    const reply = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const page = reply.Records ?? [];
    empty = page.length === 0 ? empty + 1 : 0;
    for (const record of page) {
      const sequence = BigInt(record.dynamodb?.SequenceNumber ?? '0');
      if (records.length === 0 && sequence !== start) {
        return {
          status: 'gone',
          reason: `the range's first record (${start}) is no longer in the shard`,
          ids: [],
        };
      }
      if (sequence > end) {
        reachedEnd = true;
        break;
      }
      records.push(record);
      if (sequence === end) reachedEnd = true;
    }
    iterator = reply.NextShardIterator;
  }
  // The SDK's records are the JSON Lambda delivers.
  const ids = [...changedItems(records as unknown as DynamoDBRecord[]).keys()];
  if (!reachedEnd)
    return { status: 'gone', reason: `the shard ends before the range's last record (${end})`, ids };
  return { status: 'read', records: records.length, ids };
}
