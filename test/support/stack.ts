import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import type { Role } from '../../lib/auth/policy.ts';
import { ensureTable, localClient } from '../../scripts/local/dynamodb.ts';
import { mintToken, type TokenOptions } from '../../scripts/local/issuer.ts';
import { scanAll } from './index-state.ts';

export const stack = inject('stack');

/** A real RS256 access token from this run's issuer. */
export const token = (options: TokenOptions = {}) => mintToken(stack.issuer, options);
export const tokenFor = (...groups: Role[]) => token({ groups });

/** A document client on DynamoDB Local (the caller destroys it). */
export const documentClient = () => DynamoDBDocumentClient.from(localClient(stack.dynamodbEndpoint));

/**
 * A fresh table in DynamoDB Local, created from infra/table.json, with a document client on it; with a stream only
 * when the test reads it (`stream: true`), since stream records slow every table whose stream starts after them
 * (`ensureTable`).
 */
export async function freshTable({ stream = false }: { stream?: boolean } = {}) {
  const client = localClient(stack.dynamodbEndpoint);
  const tableName = `test-${randomUUID()}`;
  await ensureTable(client, tableName, { stream });
  return { client: DynamoDBDocumentClient.from(client), tableName };
}

/**
 * A fresh table holding exactly the records of `source`: a state set up once (items created, updated and indexed
 * through the service, one call at a time) starts many runs that each change it, for the cost of a scan and a few
 * batch writes instead of the calls that built it.
 */
export async function copyOf(source: { client: DynamoDBDocumentClient; tableName: string }) {
  const copy = await freshTable();
  const records = await scanAll(source);
  const batches = Array.from({ length: Math.ceil(records.length / 25) }, (_, i) =>
    records.slice(25 * i, 25 * i + 25),
  );
  await Promise.all(batches.map((batch) => writeAll(copy, batch)));
  return copy;
}

/** One BatchWriteItem's puts, with whatever DynamoDB leaves unprocessed sent again. */
async function writeAll(table: { client: DynamoDBDocumentClient; tableName: string }, records: object[]) {
  let requests = records.map((Item) => ({ PutRequest: { Item } }));
  while (requests.length > 0) {
    const { UnprocessedItems } = await table.client.send(
      new BatchWriteCommand({ RequestItems: { [table.tableName]: requests } }),
    );
    requests = (UnprocessedItems?.[table.tableName] ?? []) as typeof requests;
  }
}

/**
 * The real client, but every put is sent twice: the first lands, the second is what the SDK sends again after a
 * time-out that lost the reply.
 */
export function sendingPutsTwice(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const send = client.send.bind(client);
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: Parameters<typeof send>[0]) => {
        if (command instanceof PutCommand) await send(command);
        return send(command);
      };
    },
  });
}
