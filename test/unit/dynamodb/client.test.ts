import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamodb/client.ts';

/** A server that answers every request `{}` after 100 ms, counting the connections open at once. */
const seen = { open: 0, most: 0 };
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
      }, 100),
    );
  });
  server.on('connection', (socket) => {
    seen.open++;
    seen.most = Math.max(seen.most, seen.open);
    socket.on('close', () => seen.open--);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

/** The most connections `requests` concurrent reads opened through a client made with `maxSockets`. */
async function connectionsFor(requests: number, maxSockets?: number) {
  Object.assign(seen, { open: 0, most: 0 });
  const client = createDocumentClient({ region: 'us-east-1', endpoint, maxSockets });
  await Promise.all(
    Array.from({ length: requests }, (_, i) =>
      client.send(new GetCommand({ TableName: 't', Key: { pk: `${i}` } })),
    ),
  );
  client.destroy();
  return seen.most;
}

describe('the DynamoDB client', () => {
  it('opens as many connections as requests in flight up to maxSockets, 50 by default', async () => {
    expect(await connectionsFor(80)).toBe(50);
    expect(await connectionsFor(80, 128)).toBe(80);
  });
});
