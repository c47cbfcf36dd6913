import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';

/** Reads up to any number of keys with BatchGetItem (100 a call), retrying unprocessed keys. */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Record<string, unknown>[],
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(start, start + 100);
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
  }
  return found;
}
