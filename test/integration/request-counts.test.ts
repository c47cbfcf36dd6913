import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { countRequests, createDocumentClient } from '../../lib/dynamodb/client.ts';
import { freshTable, stack } from '../support/stack.ts';

let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable());
});

const clientOf = (requestTimeoutMs: number, endpoint = stack.dynamodbEndpoint) =>
  createDocumentClient({ region: 'us-east-1', endpoint, requestTimeoutMs });
const get = (client: ReturnType<typeof clientOf>) =>
  client.send(new GetCommand({ TableName: tableName, Key: { pk: 'ITEM#0', sk: 'ITEM#1' } }));

describe('countRequests (lib/dynamodb/client.ts): requests, the SDK’s retries and writes, as the stream handler publishes them', () => {
  it('counts one attempt a request while DynamoDB answers in time', async () => {
    const client = clientOf(2_000);
    const counts = countRequests(client);
    await Promise.all([get(client), get(client), get(client)]);
    expect(counts).toStrictEqual({ requests: 3, attempts: 3, writes: 0 });
    client.destroy();
  });

  it('counts every attempt of a request that times out: its retries are the attempts past the first', async () => {
    // An endpoint that takes every connection and never answers: each attempt times out, and the SDK makes all three.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as { port: number };
    const client = clientOf(100, `http://127.0.0.1:${port}`);
    const counts = countRequests(client);
    await expect(get(client)).rejects.toThrow();
    expect(counts).toStrictEqual({ requests: 1, attempts: 3, writes: 0 });
    client.destroy();
    for (const socket of sockets) socket.destroy();
    silent.close();
  });

  it('counts the writes the requests carry: one a put, update or delete, each of a transaction or a batch', async () => {
    const client = clientOf(2_000);
    const counts = countRequests(client);
    const key = (n: number) => ({ pk: 'COUNTS#test', sk: `W#${n}` });
    await client.send(new PutCommand({ TableName: tableName, Item: key(1) }));
    await client.send(
      new BatchWriteCommand({
        RequestItems: { [tableName]: [2, 3].map((n) => ({ PutRequest: { Item: key(n) } })) },
      }),
    );
    // Three writes and a condition check, which writes nothing.
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: key(4) } },
          {
            Update: {
              TableName: tableName,
              Key: key(1),
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: { ':v': 1 },
            },
          },
          { Delete: { TableName: tableName, Key: key(2) } },
          {
            ConditionCheck: {
              TableName: tableName,
              Key: key(3),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
        ],
      }),
    );
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(4),
        UpdateExpression: 'SET v = :v',
        ExpressionAttributeValues: { ':v': 2 },
      }),
    );
    // Reads write nothing, a transaction's included.
    await get(client);
    await client.send(
      new TransactGetCommand({ TransactItems: [{ Get: { TableName: tableName, Key: key(1) } }] }),
    );
    expect(counts).toStrictEqual({ requests: 6, attempts: 6, writes: 1 + 2 + 3 + 1 });
    client.destroy();
  });
});
