import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deliverBatch, failureRecord } from '../../../scripts/local/stream-batches.ts';
import { parseFailureRecords } from '../../../scripts/redrive.ts';

const SETTINGS = { maximumRetryAttempts: 3 };
const STREAM = {
  streamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/x',
  shardId: 'shardId-1',
};
const records = (n: number): DynamoDBRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    dynamodb: {
      SequenceNumber: String(1000 + i),
      ApproximateCreationDateTime: 1_700_000_000 + i,
      Keys: { pk: { S: 'ITEM' }, sk: { S: String(i + 1).padStart(16, '0') } },
    },
  }));
const seq = (batch: readonly DynamoDBRecord[]) => batch.map((r) => Number(r.dynamodb?.SequenceNumber) - 1000);

describe('the local consumer delivers a batch as Lambda does', () => {
  it('splits a batch that throws until the failing record is alone, retries it, then records the failure', async () => {
    const calls: number[][] = [];
    const failures: unknown[] = [];
    await deliverBatch(records(8), {
      ...STREAM,
      settings: SETTINGS,
      pause: async () => {},
      handler: async ({ Records }) => {
        calls.push(seq(Records));
        if (seq(Records).includes(5)) throw new Error('poison');
        return { batchItemFailures: [] };
      },
      onFailure: (record) => {
        failures.push(record);
      },
    });
    expect(calls).toStrictEqual([
      [0, 1, 2, 3, 4, 5, 6, 7],
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [4, 5],
      [4],
      [5],
      [5],
      [5],
      [5],
      [6, 7],
    ]);
    expect(failures).toStrictEqual([
      {
        requestContext: {
          requestId: expect.any(String),
          functionArn: expect.stringMatching(/^arn:aws:lambda:/),
          condition: 'RetryAttemptsExhausted',
          approximateInvokeCount: 4,
        },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
        version: '1.0',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        DDBStreamBatchInfo: {
          ...STREAM,
          startSequenceNumber: '1005',
          endSequenceNumber: '1005',
          approximateArrivalOfFirstRecord: '2023-11-14T22:13:25Z',
          approximateArrivalOfLastRecord: '2023-11-14T22:13:25Z',
          batchSize: 1,
        },
      },
    ]);
  });

  it('retries a reported partial failure from its first failed record, then records the rest of the batch', async () => {
    const calls: number[][] = [];
    const failures: ReturnType<typeof failureRecord>[] = [];
    await deliverBatch(records(6), {
      ...STREAM,
      settings: SETTINGS,
      pause: async () => {},
      handler: async ({ Records }) => {
        calls.push(seq(Records));
        // Items 3 and 4 keep failing; Lambda checkpoints at the smaller sequence number.
        const failed = Records.filter((r) => ['1004', '1003'].includes(r.dynamodb?.SequenceNumber ?? ''));
        return {
          batchItemFailures: failed
            .reverse()
            .map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? '' })),
        };
      },
      onFailure: (record) => {
        failures.push(record);
      },
    });
    expect(calls).toStrictEqual([
      [0, 1, 2, 3, 4, 5],
      [3, 4, 5],
      [3, 4, 5],
      [3, 4, 5],
    ]);
    expect(failures.map((f) => [f.DDBStreamBatchInfo, f.responseContext])).toStrictEqual([
      [
        expect.objectContaining({ startSequenceNumber: '1003', endSequenceNumber: '1005', batchSize: 3 }),
        { statusCode: 200, executedVersion: '$LATEST' },
      ],
    ]);
  });

  it('delivers a batch that succeeds once, and retries a passing failure without recording it', async () => {
    let calls = 0;
    const failures: unknown[] = [];
    await deliverBatch(records(3), {
      ...STREAM,
      settings: SETTINGS,
      pause: async () => {},
      handler: async ({ Records }) => {
        calls++;
        if (calls === 1)
          return { batchItemFailures: [{ itemIdentifier: Records[0]?.dynamodb?.SequenceNumber ?? '' }] };
        return { batchItemFailures: [] };
      },
      onFailure: (record) => {
        failures.push(record);
      },
    });
    expect([calls, failures]).toStrictEqual([2, []]);
  });
});

describe('failure records for a redrive', () => {
  const record = failureRecord(records(2), STREAM, { invokeCount: 11, functionError: true });
  it('are read from JSON, a JSON array, JSON Lines and `aws sqs receive-message` output', () => {
    expect(parseFailureRecords(JSON.stringify(record))).toStrictEqual([record]);
    expect(parseFailureRecords(JSON.stringify([record, record]))).toStrictEqual([record, record]);
    expect(parseFailureRecords(`${JSON.stringify(record)}\n\n${JSON.stringify(record)}\n`)).toStrictEqual([
      record,
      record,
    ]);
    const sqs = { Messages: [{ MessageId: 'm', ReceiptHandle: 'r', Body: JSON.stringify(record) }] };
    expect(parseFailureRecords(JSON.stringify(sqs, null, 2))).toStrictEqual([record]);
  });

  it('are refused when they name no stream range', () => {
    expect(() => parseFailureRecords(JSON.stringify({ requestContext: {} }))).toThrow();
    expect(() => parseFailureRecords('not json')).toThrow();
  });
});
