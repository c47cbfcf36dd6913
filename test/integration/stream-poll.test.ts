import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollStream } from '../../scripts/local/stream-batches.ts';
import { freshTable, stack } from '../support/stack.ts';

// The local consumer's poller (scripts/local/stream-batches.ts pollStream, shard-reader.ts) on DynamoDB Local's own
// stream: what Lambda's event source mapping guarantees the handler, and the read-ahead that keeps the stream's reads
// out of the time between batches.

type Table = Awaited<ReturnType<typeof freshTable>>;
const streams = new DynamoDBStreamsClient({
  endpoint: stack.dynamodbEndpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
/** The stream records GetRecords returned while a batch was being delivered. */
const reads = { duringDelivery: 0, delivering: false };
streams.middlewareStack.add(
  (next, context) => async (args) => {
    const reply = await next(args);
    const records = (reply.output as { Records?: unknown[] }).Records ?? [];
    if (context.commandName === 'GetRecordsCommand' && reads.delivering)
      reads.duringDelivery += records.length;
    return reply;
  },
  { step: 'initialize', name: 'countReads' },
);
afterAll(() => streams.destroy());

/** Item records, and as many of the index's (which the filter drops), ids `from` … `from + count - 1`. */
async function write({ client, tableName }: Table, from: number, count: number) {
  const puts = Array.from({ length: count }, (_, i) => from + i).flatMap((id) => [
    { PutRequest: { Item: { pk: `ITEM#${id % 64}`, sk: String(id).padStart(16, '0'), id } } },
    { PutRequest: { Item: { pk: `T#term${id}`, sk: 'K#~', v: 1 } } },
  ]);
  for (let at = 0; at < puts.length; at += 25)
    await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: puts.slice(at, at + 25) } }));
}
const idOf = (record: DynamoDBRecord) => Number(record.dynamodb?.Keys?.sk?.S);
const sequenceOf = (record: DynamoDBRecord) => BigInt(record.dynamodb?.SequenceNumber ?? '0');

/** Polls the table's stream until `until(batches)`, each batch's records kept; `during` runs inside each delivery. */
async function poll(
  table: Table,
  {
    batchSize,
    until,
    during,
  }: {
    batchSize: number;
    until: (batches: DynamoDBRecord[][]) => boolean;
    during?: (batch: number) => Promise<void>;
  },
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
      reads.delivering = true;
      await during?.(batches.length);
      reads.delivering = false;
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

let table: Table;
beforeAll(async () => {
  table = await freshTable({ stream: true });
});

describe('pollStream (scripts/local/stream-batches.ts): the local stand-in for Lambda’s stream poller', () => {
  it('delivers each item record once and in order, cut at batchSize or what the shard has; the index’s records dropped', async () => {
    await write(table, 1, 35);
    const batches = await poll(table, { batchSize: 10, until: (got) => got.flat().length >= 35 });
    expect(batches.map((batch) => batch.length)).toStrictEqual([10, 10, 10, 5]);
    const records = batches.flat();
    expect(records.map(idOf)).toStrictEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    const sequences = records.map(sequenceOf);
    expect(sequences.every((sequence, i) => i === 0 || sequence > (sequences[i - 1] as bigint))).toBe(true);
  });

  it('reads the records written while a batch is delivered during that delivery, and hands them all to the next', async () => {
    const batches = await poll(table, {
      batchSize: 1000,
      until: (got) => got.flat().some((record) => idOf(record) === 140),
      during: async (batch) => {
        if (batch !== 1) return;
        await write(table, 101, 40);
        // The reader reads on while the batch runs: wait (within a cap) until it has read the 80 records written.
        const deadline = Date.now() + 10_000;
        while (reads.duringDelivery < 80 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
      },
    });
    expect(reads.duringDelivery).toBe(80);
    // The first batch is the shard so far (the first test's 35 items); the second is every item written during it.
    expect(batches.map((batch) => batch.length)).toStrictEqual([35, 40]);
    expect(batches[1]?.map(idOf)).toStrictEqual(Array.from({ length: 40 }, (_, i) => 101 + i));
  });
});
