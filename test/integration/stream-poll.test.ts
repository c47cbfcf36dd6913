import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { itemIdOf, itemKey } from '../../lib/items/keys.ts';
import { tailKey } from '../../lib/search/format/keys.ts';
import { pollStream } from '../../scripts/local/stream-batches.ts';
import { freshTable, stack } from '../support/stack.ts';

// The local consumer's poller (scripts/local/stream-batches.ts pollStream) on DynamoDB Local's own stream: what
// Lambda's event source mapping guarantees the handler.

type Table = Awaited<ReturnType<typeof freshTable>>;
const streams = new DynamoDBStreamsClient({
  endpoint: stack.dynamodbEndpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
afterAll(() => streams.destroy());

/** Item records, and as many of the index's (which the filter drops), ids `from` … `from + count - 1`. */
async function write({ client, tableName }: Table, from: number, count: number) {
  const puts = Array.from({ length: count }, (_, i) => from + i).flatMap((id) => [
    { PutRequest: { Item: { ...itemKey(id), id } } },
    { PutRequest: { Item: { ...tailKey(`term${id}`), v: 1 } } },
  ]);
  for (let at = 0; at < puts.length; at += 25)
    await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: puts.slice(at, at + 25) } }));
}
const idOf = ({ dynamodb }: DynamoDBRecord) =>
  itemIdOf({ pk: dynamodb?.Keys?.pk?.S, sk: dynamodb?.Keys?.sk?.S });
const sequenceOf = (record: DynamoDBRecord) => BigInt(record.dynamodb?.SequenceNumber ?? '0');

/** Polls the table's stream until `until(batches)`, each batch's records kept. */
async function poll(
  table: Table,
  { batchSize, until }: { batchSize: number; until: (batches: DynamoDBRecord[][]) => boolean },
) {
  const { Table: description } = await table.client.send(
    new DescribeTableCommand({ TableName: table.tableName }),
  );
  const batches: DynamoDBRecord[][] = [];
  const stop = { now: false };
  const polling = pollStream(streams, description?.LatestStreamArn ?? '', {
    batchSize,
    stopping: () => stop.now,
    deliver: async (records) => {
      batches.push(records);
      stop.now ||= until(batches);
    },
  });
  // A cap, not a measurement: the poller finds records within a poll interval.
  const limit = setTimeout(() => {
    stop.now = true;
  }, 60_000);
  await polling;
  clearTimeout(limit);
  return batches;
}

describe('pollStream (scripts/local/stream-batches.ts): the local stand-in for Lambda’s stream poller', () => {
  it('delivers each item record once and in order, cut at batchSize or what the shard has; the index’s records dropped', async () => {
    const table = await freshTable({ stream: true });
    await write(table, 1, 35);
    const batches = await poll(table, { batchSize: 10, until: (got) => got.flat().length >= 35 });
    expect(batches.map((batch) => batch.length)).toStrictEqual([10, 10, 10, 5]);
    const records = batches.flat();
    expect(records.map(idOf)).toStrictEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    const sequences = records.map(sequenceOf);
    expect(sequences.every((sequence, i) => i === 0 || sequence > (sequences[i - 1] as bigint))).toBe(true);
  });
});
