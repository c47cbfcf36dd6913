import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import type { Role } from '../../lib/auth/policy.ts';
import { ensureTable, localClient } from '../../scripts/local/dynamodb.ts';
import { mintToken, type TokenOptions } from '../../scripts/local/issuer.ts';

export const stack = inject('stack');

/** A real RS256 access token from this run's issuer. */
export const token = (options: TokenOptions = {}) => mintToken(stack.issuer, options);
export const tokenFor = (...groups: Role[]) => token({ groups });

/** A document client on DynamoDB Local (the caller destroys it). */
export const documentClient = () => DynamoDBDocumentClient.from(localClient(stack.dynamodbEndpoint));

/** A fresh table in DynamoDB Local, created from infra/table.json, with a document client on it. */
export async function freshTable() {
  const client = localClient(stack.dynamodbEndpoint);
  const tableName = `test-${randomUUID()}`;
  await ensureTable(client, tableName);
  return { client: DynamoDBDocumentClient.from(client), tableName };
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
