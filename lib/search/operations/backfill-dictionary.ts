import { type DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { isConditionFailure } from '../../dynamodb/conditions.ts';
import { decodeBlock } from '../format/blocks.ts';
import { DF_SK, dfKey, dictionaryEntry, LAST_BLOCK_SK, TERM_PK_PREFIX, termOfPk } from '../format/keys.ts';

/**
 * Puts every term indexed before the dictionary existed into it (an index written by an older version has head
 * records without an entry): one Scan of the terms' head records, then for each one without an entry, its entry
 * written under a condition — a term's only block on its version (a writer that changed it meanwhile wrote the entry
 * itself), a DF record on its existence. Safe to run while the index is written, and again.
 */
export async function backfillDictionary({
  client,
  tableName,
  concurrency = 8,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  concurrency?: number;
}): Promise<{ entries: number }> {
  let entries = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :t) AND (sk = :df OR sk = :last) AND attribute_not_exists(wt)',
        ExpressionAttributeValues: { ':t': TERM_PK_PREFIX, ':df': DF_SK, ':last': LAST_BLOCK_SK },
        ExpressionAttributeNames: { '#p': 'p' },
        ProjectionExpression: 'pk, sk, v, #p',
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    startKey = page.LastEvaluatedKey;
    const records = page.Items ?? [];
    // A last block is the head only of a term without a DF record.
    const lastBlocks = records.filter((r) => r.sk === LAST_BLOCK_SK);
    const withDf = new Set(
      (
        await batchGet(
          client,
          tableName,
          lastBlocks.map((r) => dfKey(termOfPk(r.pk) ?? '')),
          { consistent: true },
        )
      ).map((r) => String(r.pk)),
    );
    const heads = records.filter((r) => r.sk === DF_SK || !withDf.has(String(r.pk)));
    await mapLimit(heads, concurrency, async (record) => {
      const term = termOfPk(record.pk) ?? '';
      const entry = Object.entries(dictionaryEntry(term));
      const values = Object.fromEntries(entry.map(([name, value]) => [`:${name}`, value]));
      const set = entry.map(([name]) => `${name} = :${name}`).join(', ');
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: record.pk, sk: record.sk },
            ...(record.sk === DF_SK
              ? {
                  UpdateExpression: `SET ${set}`,
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeValues: values,
                }
              : {
                  UpdateExpression: `SET df = :n, ${set}`,
                  ConditionExpression: 'v = :v',
                  ExpressionAttributeValues: {
                    ...values,
                    ':n': decodeBlock(String(record.p)).length,
                    ':v': record.v,
                  },
                }),
          }),
        );
        entries++;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    });
  } while (startKey);
  return { entries };
}
