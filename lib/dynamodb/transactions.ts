import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { retryableCancellation } from './conditions.ts';

/**
 * One update, applied only if other items are as they were read: a transaction of the update and a ConditionCheck of
 * each. False when a condition failed or a concurrent transaction won (what was read moved: read again to retry);
 * any other failure (throttling, a validation error) is thrown, never passed over.
 */
export async function updateIfUnchanged(
  client: DynamoDBDocumentClient,
  update: Record<string, unknown>,
  checks: readonly Record<string, unknown>[],
): Promise<boolean> {
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [{ Update: update }, ...checks.map((check) => ({ ConditionCheck: check }))] as never[],
      }),
    );
    return true;
  } catch (error) {
    if (retryableCancellation(error)) return false;
    throw error;
  }
}
