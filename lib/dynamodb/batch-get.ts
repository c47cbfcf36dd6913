import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../concurrency.ts';
import { retry } from '../retry.ts';

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
    const batch = { pending: chunk };
    await retry(
      async () => {
        const reply: BatchGetCommandOutput = await client.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: { Keys: batch.pending, ConsistentRead: options.consistent ?? false },
            },
          }),
        );
        found.push(...(reply.Responses?.[tableName] ?? []));
        batch.pending = reply.UnprocessedKeys?.[tableName]?.Keys ?? [];
        return batch.pending;
      },
      {
        attempts: 9,
        backoff: { baseMs: 20, maxMs: 200 },
        until: (unprocessed) => unprocessed.length === 0,
        exhausted: () => new Error('BatchGetItem kept leaving keys unprocessed'),
      },
    );
  });
  return found;
}
