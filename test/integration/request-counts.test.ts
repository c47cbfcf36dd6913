import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
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

describe('countRequests (lib/dynamodb/client.ts): the SDK’s retries, as the stream handler publishes them', () => {
  it('counts one attempt a request while DynamoDB answers in time', async () => {
    const client = clientOf(2_000);
    const counts = countRequests(client);
    await Promise.all([get(client), get(client), get(client)]);
    expect(counts).toStrictEqual({ requests: 3, attempts: 3 });
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
    expect(counts).toStrictEqual({ requests: 1, attempts: 3 });
    client.destroy();
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
});
