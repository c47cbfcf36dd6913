import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../concurrency.ts';

/** Reads up to any number of keys with BatchGetItem (100 a call), retrying unprocessed keys. */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Record<string, unknown>[],
  options: { consistent?: boolean; concurrency?: number } = {},
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const chunks = Array.from({ length: Math.ceil(keys.length / 100) }, (_, i) =>
    keys.slice(i * 100, i * 100 + 100),
  );
  await mapLimit(chunks, options.concurrency ?? 1, async (chunk) => {
    let pending: Record<string, unknown>[] | undefined = chunk;
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 * 2 ** attempt)));
      if (attempt > 8) throw new Error('BatchGetItem kept leaving keys unprocessed');
      const reply: BatchGetCommandOutput = await client.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: options.consistent ?? false } },
        }),
      );
      found.push(...(reply.Responses?.[tableName] ?? []));
      pending = reply.UnprocessedKeys?.[tableName]?.Keys;
    }
  });
  return found;
}
